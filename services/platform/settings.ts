/**
 * The table of every setting: its environment variable, kind, default, the roles that need it, and
 * the words docs/configuration.md shows for it. config.ts parses and checks them at start.
 */
export type Kind = 'string' | 'int' | 'bool' | 'url' | 'duration' | 'list' | 'durations' | 'enum';

export interface Setting {
  kind: Kind;
  default?: string;
  /** Required only for these roles (a missing value is fine for the others). */
  requiredFor?: Role[];
  values?: readonly string[];
  min?: number;
  secret?: boolean;
  doc: string;
}

/** One entry of SPEECH_MODELS: a folder name, optionally `=` and ISO 639-1 codes joined by `+` (or `*`). */
export const SPEECH_MODEL_ENTRY = /^[A-Za-z0-9][A-Za-z0-9._-]*(=(\*|[a-z]{2,3}(\+[a-z]{2,3})*))?$/;

export type Role = 'mcp' | 'graphql' | 'worker' | 'cli';

export const SETTINGS = {
  DATABASE_URL: {
    kind: 'url',
    requiredFor: ['mcp', 'graphql', 'worker', 'cli'],
    secret: true,
    doc: 'PostgreSQL connection URL (postgres://user:pass@host:5432/db).',
  },
  DATABASE_POOL_MAX: {
    kind: 'int',
    default: '10',
    min: 1,
    doc: 'Largest number of PostgreSQL connections per process.',
  },
  DATABASE_SSL: { kind: 'bool', default: 'false', doc: 'Connect to PostgreSQL over TLS.' },
  TEMPORAL_ADDRESS: { kind: 'string', default: 'localhost:7233', doc: 'Temporal frontend host:port.' },
  TEMPORAL_NAMESPACE: { kind: 'string', default: 'default', doc: 'Temporal namespace.' },
  TEMPORAL_TASK_QUEUE: {
    kind: 'string',
    default: 'meeting-intelligence',
    doc: 'Task queue the worker polls and the API pods start workflows on.',
  },
  TEMPORAL_TLS_CERT_PATH: {
    kind: 'string',
    default: '',
    doc: 'Client certificate for Temporal mTLS (PEM file); empty for plaintext.',
  },
  TEMPORAL_TLS_KEY_PATH: { kind: 'string', default: '', doc: 'Client key for Temporal mTLS (PEM file).' },
  TEMPORAL_TLS_CA_PATH: {
    kind: 'string',
    default: '',
    doc: 'CA bundle that signs the Temporal server certificate (PEM file).',
  },
  TEMPORAL_TLS_SERVER_NAME: { kind: 'string', default: '', doc: 'Server name to verify on the Temporal certificate.' },
  TRUST_PROXY: {
    kind: 'string',
    default: 'loopback,uniquelocal',
    doc: 'Which proxies may set X-Forwarded-For (express "trust proxy": true, false, a hop count, or comma-separated subnets/names such as loopback,uniquelocal). Per-address limits use the address it yields.',
  },
  HOST: { kind: 'string', default: '0.0.0.0', doc: 'Interface the HTTP servers listen on.' },
  MCP_PORT: { kind: 'int', default: '3000', min: 0, doc: 'Port of the mcp role (POST /mcp).' },
  GRAPHQL_PORT: { kind: 'int', default: '4000', min: 0, doc: 'Port of the graphql role (POST /graphql).' },
  WORKER_METRICS_PORT: {
    kind: 'int',
    default: '9464',
    min: 0,
    doc: 'Port of the worker role for /metrics, /healthz and /readyz.',
  },
  WORKER_MAX_CONCURRENT_ACTIVITIES: {
    kind: 'int',
    default: '16',
    min: 1,
    doc: "Most activities (downloads, transcriptions, summaries) one worker process runs at once; the rest wait in the Temporal task queue. Bounds the worker's memory.",
  },
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: {
    kind: 'int',
    default: '40',
    min: 2,
    doc: 'Most workflow tasks one worker process runs at once (at least 2).',
  },
  WORKER_MAX_CONCURRENT_EMBEDDINGS: {
    kind: 'int',
    default: '1',
    min: 1,
    doc: "Most embedding activities (search by meaning: a meeting after its transcript, a backfill step, live meetings' new sentences) one worker process runs at once, on a task queue of their own (TEMPORAL_TASK_QUEUE and `-embeddings`) apart from WORKER_MAX_CONCURRENT_ACTIVITIES, so embedding work waits there and never holds the slots uploads need. The process has one embedder: more than 2 only adds waiting.",
  },
  PUBLIC_BASE_URL: {
    kind: 'url',
    default: 'http://localhost:3000',
    doc: 'External base URL, used in transcript_url and share_url links.',
  },
  MCP_ALLOWED_HOSTS: {
    kind: 'list',
    default: 'localhost,127.0.0.1,[::1]',
    doc: 'Host header values accepted by /mcp (DNS-rebinding protection); `*` accepts any.',
  },
  MCP_ALLOWED_ORIGINS: {
    kind: 'list',
    default: '',
    doc: 'Origin header values accepted by /mcp, comma-separated (e.g. https://app.example.com); a request with any other Origin, `null` included, is refused with 403, and requests without an Origin are not affected. Empty: the origin of PUBLIC_BASE_URL and any loopback origin (http or https, localhost, 127.0.0.1 or [::1], any port); `*` accepts any.',
  },
  MCP_MAX_TRANSCRIPT_TOKENS: {
    kind: 'int',
    default: '20000',
    min: 100,
    doc: 'Default token budget of one svc_get_transcript page.',
  },
  RATE_LIMIT_PER_MINUTE: {
    kind: 'int',
    default: '600',
    min: 0,
    doc: 'Tool calls and GraphQL operations one API key (or OAuth-signed-in user) may make per minute across every pod, unless a team admin gave the key its own (429 too_many_requests beyond); 0 turns the limit off.',
  },
  SHUTDOWN_GRACE_MS: {
    kind: 'int',
    default: '10000',
    min: 0,
    doc: 'How long SIGTERM waits for in-flight requests and activities before closing.',
  },
  LOG_LEVEL: {
    kind: 'enum',
    default: 'info',
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    doc: 'Log level of the JSON logs.',
  },
  GRAPHQL_INTROSPECTION: {
    kind: 'bool',
    default: 'false',
    doc: 'Allow introspection and the Apollo sandbox on /graphql.',
  },
  GRAPHQL_MAX_DEPTH: { kind: 'int', default: '8', min: 1, doc: 'Deepest GraphQL selection accepted.' },
  GRAPHQL_MAX_QUERY_BYTES: {
    kind: 'int',
    default: '20000',
    min: 100,
    doc: 'Largest GraphQL document accepted, in bytes.',
  },
  SECRETS_KEY: {
    kind: 'string',
    requiredFor: ['graphql', 'worker'],
    secret: true,
    doc: '32-byte key (64 hex characters or base64) that encrypts webhook secrets and OAuth signing keys at rest; required by the mcp role too when OAUTH_MODE=builtin.',
  },
  ALLOW_PRIVATE_NETWORK: {
    kind: 'bool',
    default: 'false',
    doc: 'Let media downloads and webhooks reach loopback and private addresses. Local development and tests only.',
  },
  MEDIA_MAX_BYTES: {
    kind: 'int',
    default: '524288000',
    min: 1,
    doc: 'Largest media file fetched for transcription, in bytes.',
  },
  MEDIA_MAX_SECONDS: {
    kind: 'int',
    default: '28800',
    min: 1,
    doc: 'Longest recording accepted for transcription, in seconds (ffprobe measures it after the download).',
  },
  MEDIA_FETCH_TIMEOUT: { kind: 'duration', default: '120s', doc: 'Time limit for downloading one media file.' },
  ASR_ENGINE: {
    kind: 'enum',
    values: ['embedded', 'openai-compatible'],
    doc: 'Who turns speech into text: embedded (sherpa-onnx in the worker, with the model of SPEECH_MODEL; no server) or openai-compatible (the server at ASR_URL). Empty: embedded when ASR_URL is empty, else openai-compatible.',
  },
  SPEECH_MODELS_DIR: {
    kind: 'string',
    default: '.models',
    doc: "Folder of the embedded engine's models (`make models` fills .models; the image carries them), relative to the working directory or absolute. Each model is a folder with a model.json (docs/speech.md).",
  },
  SPEECH_MODEL: {
    kind: 'string',
    default: 'moonshine-tiny-en',
    doc: "Folder under SPEECH_MODELS_DIR of the embedded engine's speech model (any offline recognizer sherpa-onnx reads, described by its model.json); the default model, and the first asked for a language it serves.",
  },
  SPEECH_MODELS: {
    kind: 'list',
    default: '',
    doc: "More speech models the embedded engine loads beside SPEECH_MODEL, comma-separated folders under SPEECH_MODELS_DIR, each serving the languages of its model.json or those after `=` (whisper-base=cs+de). An upload's language goes to the first model naming it, else to a model serving every language (`*`); without a language, a Whisper model among them detects it (docs/speech.md).",
  },
  SPEECH_RECOGNIZERS: {
    kind: 'int',
    default: '0',
    min: 0,
    doc: 'Recognizers the embedded engine loads in one worker process, each decoding one piece of speech at a time on one thread; 0: one per CPU the process may use.',
  },
  TEMPORAL_SPEECH_TASK_QUEUE: {
    kind: 'string',
    default: '',
    doc: 'Task queue of speech recognition (one chunk of a recording per activity), so speech workers run and scale on their own (WORKER_KIND=speech); empty: TEMPORAL_TASK_QUEUE, where every worker also recognises speech.',
  },
  WORKER_KIND: {
    kind: 'enum',
    default: 'general',
    values: ['general', 'speech'],
    doc: 'What a worker process runs: general (the workflows and every activity, on TEMPORAL_TASK_QUEUE) or speech (speech recognition only, on TEMPORAL_SPEECH_TASK_QUEUE).',
  },
  ASR_URL: {
    kind: 'string',
    default: '',
    doc: 'Base URL of an OpenAI-compatible speech-to-text server (POST /v1/audio/transcriptions). Empty: the embedded engine transcribes (ASR_ENGINE).',
  },
  ASR_API_KEY: { kind: 'string', default: '', secret: true, doc: 'Bearer key for ASR_URL.' },
  ASR_MODEL: { kind: 'string', default: 'whisper-1', doc: 'Model name sent to ASR_URL.' },
  ASR_RESPONSE_FORMAT: {
    kind: 'enum',
    default: 'verbose_json',
    values: ['verbose_json', 'diarized_json', 'json'],
    doc: 'Answer format asked of ASR_URL: verbose_json (timed segments, a speaker on diarizing servers), diarized_json (OpenAI gpt-4o-transcribe-diarize: speaker-labelled segments, told the speakers of earlier chunks) or json (text only).',
  },
  ASR_CHUNK_MAX_BYTES: {
    kind: 'int',
    default: '25165824',
    min: 65536,
    doc: 'Largest audio file sent to ASR_URL in one request, in bytes (OpenAI refuses files over 25 MB); longer recordings are sent in chunks.',
  },
  ASR_CHUNK_MAX_SECONDS: {
    kind: 'int',
    default: '600',
    min: 10,
    doc: 'Longest audio chunk sent to ASR_URL in one request, in seconds; chunks are cut at silences where there are any.',
  },
  ASR_CHUNK_CONCURRENCY: { kind: 'int', default: '4', min: 1, doc: 'Chunks of one recording transcribed at once.' },
  ASR_SPLIT_CHANNELS: {
    kind: 'bool',
    default: 'false',
    doc: 'Transcribe each channel of a two-channel recording on its own and label its sentences by channel (an upload can say otherwise with split_channels).',
  },
  DIARIZATION: {
    kind: 'enum',
    default: 'auto',
    values: ['auto', 'own', 'off'],
    doc: 'Who labels the speakers of a one-channel recording: auto (the worker diarizes it, unless the speech server answers speakers: ASR_RESPONSE_FORMAT=diarized_json, or segments with a speaker), own (the worker diarizes it and its speakers replace those of the server) or off (the labels of the server, else one speaker).',
  },
  EMBEDDING_MODEL_DIR: {
    kind: 'string',
    default: '.models/all-minilm-l6-v2',
    doc: 'Folder of the sentence-embedding model that search by meaning runs in-process (`make models` fills it; the image carries it), relative to the working directory or absolute, with a model.json (docs/search.md). off: no search by meaning, questions are answered by their words.',
  },
  LLM_URL: {
    kind: 'string',
    default: '',
    doc: 'Base URL of an OpenAI-compatible chat server for summaries (POST /v1/chat/completions). Empty: the built-in extractive summarizer.',
  },
  LLM_API_KEY: { kind: 'string', default: '', secret: true, doc: 'Bearer key for LLM_URL.' },
  LLM_MODEL: { kind: 'string', default: 'gpt-4o-mini', doc: 'Model name sent to LLM_URL.' },
  LLM_TIMEOUT: { kind: 'duration', default: '120s', doc: 'Time the chat server at LLM_URL has to answer one call.' },
  LLM_MAX_TOKENS: {
    kind: 'int',
    default: '2048',
    min: 256,
    doc: 'Answer tokens one call to LLM_URL may write at most (max_tokens); a model that repeats itself stops there.',
  },
  LLM_PART_CHARS: {
    kind: 'int',
    default: '24000',
    min: 2000,
    doc: "Transcript characters one call to LLM_URL is sent at most: a longer meeting is summarised in parts of this size, then whole from the parts' notes (docs/llm-notes.md). Keep it within the model's context.",
  },
  WEBHOOK_TIMEOUT: { kind: 'duration', default: '15s', doc: 'Time a webhook receiver has to answer 2xx.' },
  WEBHOOK_RETRY_SCHEDULE: {
    kind: 'durations',
    default: '0s,5s,5m,30m,2h,5h,10h,10h',
    doc: 'Delay before each webhook attempt (comma-separated); jitter of up to 10% is added.',
  },
  WEBHOOK_SECRET_OVERLAP: {
    kind: 'duration',
    default: '24h',
    doc: 'How long a rotated-out webhook secret keeps signing alongside the new one.',
  },
  TEMPORAL_METRICS_BIND_ADDRESS: {
    kind: 'string',
    default: '',
    doc: 'host:port where the worker exports the Temporal SDK metrics (temporal_*) for Prometheus, e.g. 0.0.0.0:9465; empty: off.',
  },
  LIVE_IDLE_TIMEOUT: {
    kind: 'duration',
    default: '30m',
    doc: 'A live meeting with no activity for this long ends by itself.',
  },
  READ_AUDIT: {
    kind: 'bool',
    default: 'true',
    doc: "Record every read of a meeting's content (transcript, summary, fetch, soundbite, search moments, page view) in the read audit: who, which meeting, which surface, when. false: no read is recorded (for comparison benchmarks; not for production).",
  },
  READ_AUDIT_FLUSH_INTERVAL: {
    kind: 'duration',
    default: '1s',
    doc: 'Reads are buffered in the process and written to the read audit with one multi-row INSERT this often (or sooner, at READ_AUDIT_BATCH_ROWS), and on shutdown.',
  },
  READ_AUDIT_BATCH_ROWS: {
    kind: 'int',
    default: '500',
    min: 1,
    doc: 'Buffered reads that make the read audit flush at once.',
  },
  READ_AUDIT_RETENTION: {
    kind: 'duration',
    default: '365d',
    doc: 'How long read-audit rows are kept; older ones are deleted by the daily retention run.',
  },
  CHANGES_RETENTION: {
    kind: 'duration',
    default: '30d',
    doc: 'How long the change log (svc_get_changes, GraphQL changes) keeps a change, deletions and expiries included; a cursor older than this is refused (start again without one), and the daily retention run prunes older changes.',
  },
  RETENTION_SCHEDULE: {
    kind: 'string',
    default: '0 3 * * *',
    doc: "When the retention run (RetentionWorkflow: meetings past their team's retention period, old read-audit rows) runs, as a cron expression in UTC; the worker creates or updates the Temporal schedule at start.",
  },
  WEB_SESSION_TTL: {
    kind: 'duration',
    default: '12h',
    doc: 'Lifetime of a sign-in to the meeting and soundbite pages (/meetings, /soundbites); signing in again starts a new one.',
  },
  // OAuth for the MCP endpoint (docs/oauth.md). API keys keep working in every mode.
  OAUTH_MODE: {
    kind: 'enum',
    default: 'none',
    values: ['none', 'external', 'builtin'],
    doc: 'How MCP clients sign in besides API keys: none (API keys only), external (access tokens from your identity provider at OAUTH_ISSUER), builtin (this service is the authorization server, with dynamic client registration).',
  },
  OAUTH_ISSUER: {
    kind: 'url',
    doc: "OAUTH_MODE=external: issuer URL of the identity provider, exactly as in its tokens' iss claim. (In builtin mode the issuer is PUBLIC_BASE_URL.)",
  },
  OAUTH_JWKS_URL: {
    kind: 'url',
    doc: "OAUTH_MODE=external: URL of the issuer's signing keys (JWKS); empty: discovered from the issuer's OpenID Connect or RFC 8414 metadata.",
  },
  OAUTH_AUDIENCE: {
    kind: 'string',
    default: '',
    doc: 'Audience (aud) an access token must name; empty: the MCP resource URL, PUBLIC_BASE_URL + /mcp. A token minted for another resource is refused.',
  },
  OAUTH_USER_CLAIM: {
    kind: 'string',
    default: 'email',
    doc: "Access-token claim matched (case-insensitively) to a user's email; a token for an email the service does not know is refused.",
  },
  OAUTH_CLOCK_SKEW: {
    kind: 'duration',
    default: '60s',
    doc: 'Clock difference tolerated when checking access-token exp and nbf.',
  },
  OAUTH_ACCESS_TOKEN_TTL: { kind: 'duration', default: '1h', doc: 'OAUTH_MODE=builtin: lifetime of an access token.' },
  OAUTH_REFRESH_TOKEN_TTL: {
    kind: 'duration',
    default: '30d',
    doc: 'OAUTH_MODE=builtin: lifetime of a refresh token; every refresh rotates it and starts a new lifetime.',
  },
  OAUTH_SIGNING_ALG: {
    kind: 'enum',
    default: 'ES256',
    values: ['ES256', 'RS256'],
    doc: 'OAUTH_MODE=builtin: algorithm of new token signing keys (kept in the database, encrypted with SECRETS_KEY).',
  },
  OIDC_ISSUER: {
    kind: 'url',
    doc: 'OAUTH_MODE=builtin: OpenID Connect provider users sign in with (the email of its ID token names the user). Empty: users sign in by pasting one of their API keys.',
  },
  OIDC_CLIENT_ID: {
    kind: 'string',
    default: '',
    doc: 'Client id of this service at OIDC_ISSUER; register PUBLIC_BASE_URL + /oauth/callback as its redirect URI.',
  },
  OIDC_CLIENT_SECRET: {
    kind: 'string',
    default: '',
    secret: true,
    doc: 'Client secret of this service at OIDC_ISSUER (empty for a public client).',
  },
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;
