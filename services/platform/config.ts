/**
 * Every setting of the service is an environment variable, parsed and validated once at start.
 * A missing or malformed variable stops the process with a message that names it and says what it expects.
 * The README's configuration table is written from SETTINGS below; keep the two in step.
 */
import { parseDuration } from './duration';

type Kind = 'string' | 'int' | 'bool' | 'url' | 'duration' | 'list' | 'durations' | 'enum';

interface Setting {
  kind: Kind;
  default?: string;
  /** Required only for these roles (a missing value is fine for the others). */
  requiredFor?: Role[];
  values?: readonly string[];
  min?: number;
  secret?: boolean;
  doc: string;
}

export type Role = 'mcp' | 'graphql' | 'worker' | 'cli';

export const SETTINGS = {
  DATABASE_URL: { kind: 'url', requiredFor: ['mcp', 'graphql', 'worker', 'cli'], secret: true, doc: 'PostgreSQL connection URL (postgres://user:pass@host:5432/db).' },
  DATABASE_POOL_MAX: { kind: 'int', default: '10', min: 1, doc: 'Largest number of PostgreSQL connections per process.' },
  DATABASE_SSL: { kind: 'bool', default: 'false', doc: 'Connect to PostgreSQL over TLS.' },
  TEMPORAL_ADDRESS: { kind: 'string', default: 'localhost:7233', doc: 'Temporal frontend host:port.' },
  TEMPORAL_NAMESPACE: { kind: 'string', default: 'default', doc: 'Temporal namespace.' },
  TEMPORAL_TASK_QUEUE: { kind: 'string', default: 'meeting-intelligence', doc: 'Task queue the worker polls and the API pods start workflows on.' },
  TEMPORAL_TLS_CERT_PATH: { kind: 'string', default: '', doc: 'Client certificate for Temporal mTLS (PEM file); empty for plaintext.' },
  TEMPORAL_TLS_KEY_PATH: { kind: 'string', default: '', doc: 'Client key for Temporal mTLS (PEM file).' },
  TEMPORAL_TLS_CA_PATH: { kind: 'string', default: '', doc: 'CA bundle that signs the Temporal server certificate (PEM file).' },
  TEMPORAL_TLS_SERVER_NAME: { kind: 'string', default: '', doc: 'Server name to verify on the Temporal certificate.' },
  HOST: { kind: 'string', default: '0.0.0.0', doc: 'Interface the HTTP servers listen on.' },
  MCP_PORT: { kind: 'int', default: '3000', min: 0, doc: 'Port of the mcp role (POST /mcp).' },
  GRAPHQL_PORT: { kind: 'int', default: '4000', min: 0, doc: 'Port of the graphql role (POST /graphql).' },
  WORKER_METRICS_PORT: { kind: 'int', default: '9464', min: 0, doc: 'Port of the worker role for /metrics, /healthz and /readyz.' },
  PUBLIC_BASE_URL: { kind: 'url', default: 'http://localhost:3000', doc: 'External base URL, used in transcript_url and share_url links.' },
  MCP_ALLOWED_HOSTS: { kind: 'list', default: 'localhost,127.0.0.1,[::1]', doc: 'Host header values accepted by /mcp (DNS-rebinding protection); `*` accepts any.' },
  MCP_MAX_TRANSCRIPT_TOKENS: { kind: 'int', default: '20000', min: 100, doc: 'Default token budget of one svc_get_transcript page.' },
  RATE_LIMIT_PER_MINUTE: { kind: 'int', default: '600', min: 1, doc: 'Tool calls or GraphQL operations one API key may make per minute (too_many_requests beyond).' },
  SHUTDOWN_GRACE_MS: { kind: 'int', default: '10000', min: 0, doc: 'How long SIGTERM waits for in-flight requests and activities before closing.' },
  LOG_LEVEL: { kind: 'enum', default: 'info', values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], doc: 'Log level of the JSON logs.' },
  GRAPHQL_INTROSPECTION: { kind: 'bool', default: 'false', doc: 'Allow introspection and the Apollo sandbox on /graphql.' },
  GRAPHQL_MAX_DEPTH: { kind: 'int', default: '8', min: 1, doc: 'Deepest GraphQL selection accepted.' },
  GRAPHQL_MAX_QUERY_BYTES: { kind: 'int', default: '20000', min: 100, doc: 'Largest GraphQL document accepted, in bytes.' },
  SECRETS_KEY: { kind: 'string', requiredFor: ['graphql', 'worker'], secret: true, doc: '32-byte key (64 hex characters or base64) that encrypts webhook secrets at rest.' },
  ALLOW_PRIVATE_NETWORK: { kind: 'bool', default: 'false', doc: 'Let media downloads and webhooks reach loopback and private addresses. Local development and tests only.' },
  MEDIA_MAX_BYTES: { kind: 'int', default: '524288000', min: 1, doc: 'Largest media file fetched for transcription, in bytes.' },
  MEDIA_FETCH_TIMEOUT: { kind: 'duration', default: '120s', doc: 'Time limit for downloading one media file.' },
  ASR_URL: { kind: 'string', default: '', doc: 'Base URL of an OpenAI-compatible speech-to-text server (POST /v1/audio/transcriptions). Empty: only caption files are accepted.' },
  ASR_API_KEY: { kind: 'string', default: '', secret: true, doc: 'Bearer key for ASR_URL.' },
  ASR_MODEL: { kind: 'string', default: 'whisper-1', doc: 'Model name sent to ASR_URL.' },
  LLM_URL: { kind: 'string', default: '', doc: 'Base URL of an OpenAI-compatible chat server for summaries (POST /v1/chat/completions). Empty: the built-in extractive summarizer.' },
  LLM_API_KEY: { kind: 'string', default: '', secret: true, doc: 'Bearer key for LLM_URL.' },
  LLM_MODEL: { kind: 'string', default: 'gpt-4o-mini', doc: 'Model name sent to LLM_URL.' },
  WEBHOOK_TIMEOUT: { kind: 'duration', default: '15s', doc: 'Time a webhook receiver has to answer 2xx.' },
  WEBHOOK_RETRY_SCHEDULE: { kind: 'durations', default: '0s,5s,5m,30m,2h,5h,10h,10h', doc: 'Delay before each webhook attempt (comma-separated); jitter of up to 10% is added.' },
  WEBHOOK_SECRET_OVERLAP: { kind: 'duration', default: '24h', doc: 'How long a rotated-out webhook secret keeps signing alongside the new one.' },
  LIVE_IDLE_TIMEOUT: { kind: 'duration', default: '30m', doc: 'A live meeting with no activity for this long ends by itself.' },
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

export interface Config {
  databaseUrl: string;
  databasePoolMax: number;
  databaseSsl: boolean;
  temporal: {
    address: string;
    namespace: string;
    taskQueue: string;
    tls?: { certPath: string; keyPath: string; caPath?: string; serverName?: string };
  };
  host: string;
  mcpPort: number;
  graphqlPort: number;
  workerMetricsPort: number;
  publicBaseUrl: string;
  mcpAllowedHosts: string[];
  mcpMaxTranscriptTokens: number;
  rateLimitPerMinute: number;
  shutdownGraceMs: number;
  logLevel: string;
  graphql: { introspection: boolean; maxDepth: number; maxQueryBytes: number };
  secretsKey?: Buffer;
  allowPrivateNetwork: boolean;
  media: { maxBytes: number; fetchTimeoutMs: number };
  asr: { url: string; apiKey: string; model: string };
  llm: { url: string; apiKey: string; model: string };
  webhook: { timeoutMs: number; retryScheduleMs: number[]; secretOverlapMs: number };
  liveIdleTimeoutMs: number;
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
      const parts = raw.split(',').map((p) => p.trim()).filter(Boolean);
      const values = parts.map(parseDuration);
      if (parts.length === 0 || values.some((v) => v === undefined)) {
        problems.push(`${name} must be a comma-separated list of durations like 0s,5s,5m; got "${raw}"`);
        return undefined;
      }
      return values as number[];
    }
    case 'list':
      return raw.split(',').map((p) => p.trim()).filter(Boolean);
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
  const secretsKey = typeof v.SECRETS_KEY === 'string' && v.SECRETS_KEY ? parseSecretsKey(v.SECRETS_KEY, problems) : undefined;
  const tlsCert = v.TEMPORAL_TLS_CERT_PATH as string;
  const tlsKey = v.TEMPORAL_TLS_KEY_PATH as string;
  if (Boolean(tlsCert) !== Boolean(tlsKey)) {
    problems.push('TEMPORAL_TLS_CERT_PATH and TEMPORAL_TLS_KEY_PATH must be set together');
  }
  if (problems.length) throw new ConfigError(problems);

  return {
    databaseUrl: v.DATABASE_URL as string,
    databasePoolMax: v.DATABASE_POOL_MAX as number,
    databaseSsl: v.DATABASE_SSL as boolean,
    temporal: {
      address: v.TEMPORAL_ADDRESS as string,
      namespace: v.TEMPORAL_NAMESPACE as string,
      taskQueue: v.TEMPORAL_TASK_QUEUE as string,
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
    mcpPort: v.MCP_PORT as number,
    graphqlPort: v.GRAPHQL_PORT as number,
    workerMetricsPort: v.WORKER_METRICS_PORT as number,
    publicBaseUrl: (v.PUBLIC_BASE_URL as string).replace(/\/+$/, ''),
    mcpAllowedHosts: v.MCP_ALLOWED_HOSTS as string[],
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
    media: { maxBytes: v.MEDIA_MAX_BYTES as number, fetchTimeoutMs: v.MEDIA_FETCH_TIMEOUT as number },
    asr: { url: v.ASR_URL as string, apiKey: v.ASR_API_KEY as string, model: v.ASR_MODEL as string },
    llm: { url: v.LLM_URL as string, apiKey: v.LLM_API_KEY as string, model: v.LLM_MODEL as string },
    webhook: {
      timeoutMs: v.WEBHOOK_TIMEOUT as number,
      retryScheduleMs: v.WEBHOOK_RETRY_SCHEDULE as number[],
      secretOverlapMs: v.WEBHOOK_SECRET_OVERLAP as number,
    },
    liveIdleTimeoutMs: v.LIVE_IDLE_TIMEOUT as number,
  };
}
