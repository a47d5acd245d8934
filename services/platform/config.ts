/**
 * Every setting of the service is an environment variable, parsed and validated once at start.
 * A missing or malformed variable stops the process with a message that names it and says what it expects.
 * docs/configuration.md's table is written from SETTINGS (settings.ts); keep the two in step.
 */
import { parseDuration } from './duration';
import { SETTINGS, SPEECH_MODEL_ENTRY, type Role, type Setting } from './settings';

export { SETTINGS, SPEECH_MODEL_ENTRY, type Role, type SettingName } from './settings';

export interface Config {
  databaseUrl: string;
  databasePoolMax: number;
  databaseSsl: boolean;
  temporal: {
    address: string;
    namespace: string;
    taskQueue: string;
    /** TEMPORAL_SPEECH_TASK_QUEUE, defaulted from taskQueue. */
    speechTaskQueue: string;
    tls?: { certPath: string; keyPath: string; caPath?: string; serverName?: string };
  };
  host: string;
  trustProxy: boolean | number | string[];
  mcpPort: number;
  graphqlPort: number;
  workerMetricsPort: number;
  /**
   * Temporal worker slots: WORKER_MAX_CONCURRENT_ACTIVITIES, WORKER_MAX_CONCURRENT_WORKFLOW_TASKS, and
   * WORKER_MAX_CONCURRENT_EMBEDDINGS on the embedding task queue.
   */
  workerConcurrency: { maxActivities: number; maxWorkflowTasks: number; maxEmbeddings: number };
  publicBaseUrl: string;
  mcpAllowedHosts: string[];
  /** Origins accepted by /mcp (scheme://host[:port], lowercase), or ['*']; never empty. */
  mcpAllowedOrigins: string[];
  /** Loopback origins (localhost, 127.0.0.1, [::1], any port) accepted too: when MCP_ALLOWED_ORIGINS is not set. */
  mcpLoopbackOrigins: boolean;
  mcpMaxTranscriptTokens: number;
  rateLimitPerMinute: number;
  shutdownGraceMs: number;
  logLevel: string;
  graphql: { introspection: boolean; maxDepth: number; maxQueryBytes: number };
  secretsKey?: Buffer;
  allowPrivateNetwork: boolean;
  media: { maxBytes: number; maxSeconds: number; fetchTimeoutMs: number };
  /** WORKER_KIND */
  workerKind: 'general' | 'speech';
  asr: {
    engine: 'embedded' | 'openai-compatible';
    /** The embedded engine: SPEECH_MODELS_DIR, SPEECH_MODEL, SPEECH_MODELS, SPEECH_RECOGNIZERS. */
    speech: { modelsDir: string; model: string; models?: string[]; recognizers: number };
    url: string;
    apiKey: string;
    model: string;
    responseFormat: 'verbose_json' | 'diarized_json' | 'json';
    chunkMaxBytes: number;
    chunkMaxSeconds: number;
    chunkConcurrency: number;
    splitChannels: boolean;
    /** DIARIZATION: who labels a one-channel recording's speakers (docs/speakers.md). */
    diarization: 'auto' | 'own' | 'off';
  };
  /** EMBEDDING_MODEL_DIR: the sentence-embedding model's folder; '' (the setting off): no search by meaning. */
  embeddingModelDir: string;
  /** LLM_*: the chat model that writes meeting notes (docs/llm-notes.md); url '' for the built-in summarizer. */
  llm: { url: string; apiKey: string; model: string; timeoutMs: number; maxTokens: number; partChars: number };
  webhook: { timeoutMs: number; retryScheduleMs: number[]; secretOverlapMs: number };
  liveIdleTimeoutMs: number;
  /** WEB_SESSION_TTL: how long a page sign-in lasts. */
  webSessionTtlMs: number;
  readAudit: { enabled: boolean; flushIntervalMs: number; batchRows: number; retentionMs: number };
  /** CHANGES_RETENTION: how long the change log keeps a change (and honours a cursor). */
  changesRetentionMs: number;
  /** RETENTION_SCHEDULE: cron (UTC) of the daily retention run. */
  retentionSchedule: string;
  temporalMetricsBindAddress: string;
  oauth: OAuthConfig;
}

export type OAuthMode = 'none' | 'external' | 'builtin';

export interface OAuthConfig {
  mode: OAuthMode;
  /** Who signs access tokens: OAUTH_ISSUER (external) or PUBLIC_BASE_URL (builtin); undefined when mode is none. */
  issuer?: string;
  jwksUrl?: string;
  audience: string;
  userClaim: string;
  clockSkewMs: number;
  accessTokenTtlMs: number;
  refreshTokenTtlMs: number;
  signingAlg: 'ES256' | 'RS256';
  /** Delegated sign-in of the built-in server; undefined: sign-in with an API key. */
  oidc?: { issuer: string; clientId: string; clientSecret: string };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Parsed = Record<string, string | number | boolean | string[] | number[] | undefined>;

function parseOne(name: string, s: Setting, raw: string, problems: string[]): Parsed[string] {
  switch (s.kind) {
    case 'string':
      return raw;
    case 'int': {
      if (!/^-?\d+$/.test(raw.trim())) {
        problems.push(`${name} must be a whole number, got "${raw}"`);
        return undefined;
      }
      const n = Number(raw);
      if (s.min !== undefined && n < s.min) problems.push(`${name} must be at least ${s.min}, got ${n}`);
      return n;
    }
    case 'bool': {
      const v = raw.trim().toLowerCase();
      if (['true', '1', 'yes'].includes(v)) return true;
      if (['false', '0', 'no', ''].includes(v)) return false;
      problems.push(`${name} must be true or false, got "${raw}"`);
      return undefined;
    }
    case 'url': {
      try {
        new URL(raw);
        return raw;
      } catch {
        problems.push(`${name} must be a URL, got "${s.secret ? '<hidden>' : raw}"`);
        return undefined;
      }
    }
    case 'duration': {
      const ms = parseDuration(raw);
      if (ms === undefined) problems.push(`${name} must be a duration like 500ms, 15s, 5m, 2h; got "${raw}"`);
      return ms;
    }
    case 'durations': {
      const parts = raw
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      const values = parts.map(parseDuration);
      if (parts.length === 0 || values.some((v) => v === undefined)) {
        problems.push(`${name} must be a comma-separated list of durations like 0s,5s,5m; got "${raw}"`);
        return undefined;
      }
      return values as number[];
    }
    case 'list':
      return raw
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
    case 'enum':
      if (!s.values!.includes(raw)) problems.push(`${name} must be one of ${s.values!.join(', ')}; got "${raw}"`);
      return raw;
  }
}

function parseSecretsKey(raw: string, problems: string[]): Buffer | undefined {
  const hex = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : undefined;
  const key = hex ?? Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    problems.push('SECRETS_KEY must be 32 bytes, written as 64 hex characters or base64 (openssl rand -hex 32)');
    return undefined;
  }
  return key;
}

function parseTrustProxy(raw: string): boolean | number | string[] {
  const v = raw.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false' || v === '') return false;
  if (/^\d+$/.test(v)) return Number(v);
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Parse the environment for one role. Throws ConfigError listing every problem at once. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, role: Role = 'cli'): Config {
  const problems: string[] = [];
  const v: Parsed = {};
  for (const [name, setting] of Object.entries(SETTINGS) as [string, Setting][]) {
    const raw = env[name];
    if (raw === undefined || raw === '') {
      if (setting.requiredFor?.includes(role)) {
        problems.push(`${name} is required: ${setting.doc}`);
        continue;
      }
      if (setting.default === undefined) continue;
      v[name] = parseOne(name, setting, setting.default, problems);
      continue;
    }
    v[name] = parseOne(name, setting, raw, problems);
  }
  const secretsKey =
    typeof v.SECRETS_KEY === 'string' && v.SECRETS_KEY ? parseSecretsKey(v.SECRETS_KEY, problems) : undefined;
  const tlsCert = v.TEMPORAL_TLS_CERT_PATH as string;
  const tlsKey = v.TEMPORAL_TLS_KEY_PATH as string;
  if (Boolean(tlsCert) !== Boolean(tlsKey)) {
    problems.push('TEMPORAL_TLS_CERT_PATH and TEMPORAL_TLS_KEY_PATH must be set together');
  }
  for (const entry of (v.SPEECH_MODELS as string[] | undefined) ?? [])
    if (!SPEECH_MODEL_ENTRY.test(entry))
      problems.push(
        `SPEECH_MODELS: ${JSON.stringify(entry)} is not a model folder, optionally with its languages (whisper-base or whisper-base=cs+de)`,
      );
  if (v.ASR_ENGINE === 'openai-compatible' && !v.ASR_URL)
    problems.push('ASR_URL is required with ASR_ENGINE=openai-compatible: the base URL of the speech-to-text server');
  const oauth = parseOAuth(v, role, Boolean(secretsKey), problems);
  const mcpAllowedOrigins = allowedOrigins(
    v.MCP_ALLOWED_ORIGINS as string[] | undefined,
    v.PUBLIC_BASE_URL as string,
    problems,
  );
  if (problems.length) throw new ConfigError(problems);

  return {
    databaseUrl: v.DATABASE_URL as string,
    databasePoolMax: v.DATABASE_POOL_MAX as number,
    databaseSsl: v.DATABASE_SSL as boolean,
    temporal: {
      address: v.TEMPORAL_ADDRESS as string,
      namespace: v.TEMPORAL_NAMESPACE as string,
      taskQueue: v.TEMPORAL_TASK_QUEUE as string,
      speechTaskQueue: (v.TEMPORAL_SPEECH_TASK_QUEUE as string) || (v.TEMPORAL_TASK_QUEUE as string),
      tls: tlsCert
        ? {
            certPath: tlsCert,
            keyPath: tlsKey,
            caPath: (v.TEMPORAL_TLS_CA_PATH as string) || undefined,
            serverName: (v.TEMPORAL_TLS_SERVER_NAME as string) || undefined,
          }
        : undefined,
    },
    host: v.HOST as string,
    trustProxy: parseTrustProxy(v.TRUST_PROXY as string),
    mcpPort: v.MCP_PORT as number,
    graphqlPort: v.GRAPHQL_PORT as number,
    workerMetricsPort: v.WORKER_METRICS_PORT as number,
    workerConcurrency: {
      maxActivities: v.WORKER_MAX_CONCURRENT_ACTIVITIES as number,
      maxWorkflowTasks: v.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS as number,
      maxEmbeddings: v.WORKER_MAX_CONCURRENT_EMBEDDINGS as number,
    },
    publicBaseUrl: (v.PUBLIC_BASE_URL as string).replace(/\/+$/, ''),
    mcpAllowedHosts: v.MCP_ALLOWED_HOSTS as string[],
    mcpAllowedOrigins,
    mcpLoopbackOrigins: !(v.MCP_ALLOWED_ORIGINS as string[] | undefined)?.length,
    mcpMaxTranscriptTokens: v.MCP_MAX_TRANSCRIPT_TOKENS as number,
    rateLimitPerMinute: v.RATE_LIMIT_PER_MINUTE as number,
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS as number,
    logLevel: v.LOG_LEVEL as string,
    graphql: {
      introspection: v.GRAPHQL_INTROSPECTION as boolean,
      maxDepth: v.GRAPHQL_MAX_DEPTH as number,
      maxQueryBytes: v.GRAPHQL_MAX_QUERY_BYTES as number,
    },
    secretsKey,
    allowPrivateNetwork: v.ALLOW_PRIVATE_NETWORK as boolean,
    media: {
      maxBytes: v.MEDIA_MAX_BYTES as number,
      maxSeconds: v.MEDIA_MAX_SECONDS as number,
      fetchTimeoutMs: v.MEDIA_FETCH_TIMEOUT as number,
    },
    workerKind: v.WORKER_KIND as 'general' | 'speech',
    asr: {
      engine:
        (v.ASR_ENGINE as 'embedded' | 'openai-compatible' | undefined) ??
        (v.ASR_URL ? 'openai-compatible' : 'embedded'),
      speech: {
        modelsDir: v.SPEECH_MODELS_DIR as string,
        model: v.SPEECH_MODEL as string,
        models: v.SPEECH_MODELS as string[],
        recognizers: v.SPEECH_RECOGNIZERS as number,
      },
      url: v.ASR_URL as string,
      apiKey: v.ASR_API_KEY as string,
      model: v.ASR_MODEL as string,
      responseFormat: v.ASR_RESPONSE_FORMAT as 'verbose_json' | 'diarized_json' | 'json',
      chunkMaxBytes: v.ASR_CHUNK_MAX_BYTES as number,
      chunkMaxSeconds: v.ASR_CHUNK_MAX_SECONDS as number,
      chunkConcurrency: v.ASR_CHUNK_CONCURRENCY as number,
      splitChannels: v.ASR_SPLIT_CHANNELS as boolean,
      diarization: v.DIARIZATION as 'auto' | 'own' | 'off',
    },
    embeddingModelDir: v.EMBEDDING_MODEL_DIR === 'off' ? '' : (v.EMBEDDING_MODEL_DIR as string),
    llm: {
      url: v.LLM_URL as string,
      apiKey: v.LLM_API_KEY as string,
      model: v.LLM_MODEL as string,
      timeoutMs: v.LLM_TIMEOUT as number,
      maxTokens: v.LLM_MAX_TOKENS as number,
      partChars: v.LLM_PART_CHARS as number,
    },
    webhook: {
      timeoutMs: v.WEBHOOK_TIMEOUT as number,
      retryScheduleMs: v.WEBHOOK_RETRY_SCHEDULE as number[],
      secretOverlapMs: v.WEBHOOK_SECRET_OVERLAP as number,
    },
    liveIdleTimeoutMs: v.LIVE_IDLE_TIMEOUT as number,
    webSessionTtlMs: v.WEB_SESSION_TTL as number,
    readAudit: {
      enabled: v.READ_AUDIT as boolean,
      flushIntervalMs: v.READ_AUDIT_FLUSH_INTERVAL as number,
      batchRows: v.READ_AUDIT_BATCH_ROWS as number,
      retentionMs: v.READ_AUDIT_RETENTION as number,
    },
    changesRetentionMs: v.CHANGES_RETENTION as number,
    retentionSchedule: v.RETENTION_SCHEDULE as string,
    temporalMetricsBindAddress: v.TEMPORAL_METRICS_BIND_ADDRESS as string,
    oauth: oauth!,
  };
}

/** MCP_ALLOWED_ORIGINS as origins (URL.origin form), defaulting to the origin of PUBLIC_BASE_URL. */
function allowedOrigins(list: string[] | undefined, publicBaseUrl: string, problems: string[]): string[] {
  if (!list || list.length === 0) {
    try {
      return [new URL(publicBaseUrl).origin];
    } catch {
      return []; // PUBLIC_BASE_URL is malformed, which is reported on its own
    }
  }
  if (list.includes('*')) return ['*'];
  const out: string[] = [];
  for (const o of list) {
    let origin: string | undefined;
    try {
      origin = new URL(o).origin;
    } catch {
      origin = undefined;
    }
    if (!origin || origin === 'null' || !/^https?:/.test(origin))
      problems.push(`MCP_ALLOWED_ORIGINS must list origins like https://app.example.com (or *); got "${o}"`);
    else out.push(origin);
  }
  return out;
}

/** The OAUTH_* and OIDC_* settings, checked against each other. */
function parseOAuth(v: Parsed, role: Role, hasSecretsKey: boolean, problems: string[]): OAuthConfig | undefined {
  const mode = v.OAUTH_MODE as OAuthMode;
  const base = ((v.PUBLIC_BASE_URL as string | undefined) ?? '').replace(/\/+$/, '');
  const oidcIssuer = v.OIDC_ISSUER as string | undefined;
  const oidcClientId = v.OIDC_CLIENT_ID as string;
  // "Given" (even if malformed, which is reported on its own) rather than "parsed".
  const given = (name: string) => name in v;
  if (mode === 'external' && !given('OAUTH_ISSUER'))
    problems.push('OAUTH_ISSUER is required with OAUTH_MODE=external: the issuer URL of your identity provider');
  if (mode !== 'external' && given('OAUTH_ISSUER')) {
    problems.push(
      `OAUTH_ISSUER applies to OAUTH_MODE=external only (OAUTH_MODE is ${mode}; the built-in server's issuer is PUBLIC_BASE_URL)`,
    );
  }
  if (given('OIDC_ISSUER') && mode !== 'builtin')
    problems.push(`OIDC_ISSUER applies to OAUTH_MODE=builtin only (OAUTH_MODE is ${mode})`);
  if (given('OIDC_ISSUER') && !oidcClientId) problems.push('OIDC_CLIENT_ID is required with OIDC_ISSUER');
  if (mode === 'builtin' && role === 'mcp' && !hasSecretsKey) {
    problems.push('SECRETS_KEY is required with OAUTH_MODE=builtin: it encrypts the token signing keys at rest');
  }
  if (!String(v.OAUTH_USER_CLAIM ?? '').trim()) problems.push('OAUTH_USER_CLAIM must name a token claim, like email');
  for (const name of ['OAUTH_ACCESS_TOKEN_TTL', 'OAUTH_REFRESH_TOKEN_TTL'] as const) {
    if (typeof v[name] === 'number' && (v[name] as number) < 1000) problems.push(`${name} must be at least 1s`);
  }
  if (problems.length) return undefined;
  return {
    mode,
    issuer: mode === 'external' ? (v.OAUTH_ISSUER as string) : mode === 'builtin' ? base : undefined,
    jwksUrl: (v.OAUTH_JWKS_URL as string | undefined) || undefined,
    audience: (v.OAUTH_AUDIENCE as string) || `${base}/mcp`,
    userClaim: (v.OAUTH_USER_CLAIM as string).trim(),
    clockSkewMs: v.OAUTH_CLOCK_SKEW as number,
    accessTokenTtlMs: v.OAUTH_ACCESS_TOKEN_TTL as number,
    refreshTokenTtlMs: v.OAUTH_REFRESH_TOKEN_TTL as number,
    signingAlg: v.OAUTH_SIGNING_ALG as 'ES256' | 'RS256',
    oidc: oidcIssuer
      ? { issuer: oidcIssuer, clientId: oidcClientId, clientSecret: v.OIDC_CLIENT_SECRET as string }
      : undefined,
  };
}
