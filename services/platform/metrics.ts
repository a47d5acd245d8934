/**
 * One Prometheus registry per process, and every metric the service exposes, in one place, so the
 * dashboards and alerts in the chart can be checked against it. Labels are bounded: route templates,
 * tool names, operation names from an allowlist, outcomes.
 */
import client from 'prom-client';

export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

const latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const httpRequests = new client.Counter({
  name: 'http_requests_total',
  help: 'HTTP requests by route template, method and status code.',
  labelNames: ['route', 'method', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new client.Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request latency by route template and method.',
  labelNames: ['route', 'method'] as const,
  buckets: latencyBuckets,
  registers: [registry],
});

export const mcpToolCalls = new client.Counter({
  name: 'mcp_tool_calls_total',
  help: 'MCP tool calls by tool and outcome (ok or the error code).',
  labelNames: ['tool', 'outcome'] as const,
  registers: [registry],
});

export const mcpToolDuration = new client.Histogram({
  name: 'mcp_tool_duration_seconds',
  help: 'MCP tool call latency by tool.',
  labelNames: ['tool'] as const,
  buckets: latencyBuckets,
  registers: [registry],
});

export const graphqlOperations = new client.Counter({
  name: 'graphql_operations_total',
  help: 'GraphQL operations by operation name (allowlisted, else "other") and outcome.',
  labelNames: ['operation', 'outcome'] as const,
  registers: [registry],
});

export const graphqlDuration = new client.Histogram({
  name: 'graphql_operation_duration_seconds',
  help: 'GraphQL operation latency by operation name.',
  labelNames: ['operation'] as const,
  buckets: latencyBuckets,
  registers: [registry],
});

export const pipelineStage = new client.Histogram({
  name: 'pipeline_stage_duration_seconds',
  help: 'Transcription pipeline activity duration by stage and outcome.',
  labelNames: ['stage', 'outcome'] as const,
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800],
  registers: [registry],
});

export const webhookDeliveries = new client.Counter({
  name: 'webhook_deliveries_total',
  help: 'Webhook deliveries by final outcome (delivered, failed, disabled, skipped).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const webhookAttempts = new client.Counter({
  name: 'webhook_attempts_total',
  help: 'Webhook HTTP attempts by result class (2xx, 4xx, 5xx, error, timeout).',
  labelNames: ['result'] as const,
  registers: [registry],
});

export const webhookReadyToDelivered = new client.Histogram({
  name: 'webhook_ready_to_delivered_seconds',
  help: 'Time from transcript ready to the receiver answering 2xx.',
  buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 60, 300, 3600, 36000],
  registers: [registry],
});

export const ruleExecutions = new client.Counter({
  name: 'rule_executions_total',
  help: 'Automation rule executions by status.',
  labelNames: ['status'] as const,
  registers: [registry],
});

export const liveMeetings = new client.Gauge({
  name: 'live_meetings',
  help: 'Live meetings by state, as last counted from the database.',
  labelNames: ['state'] as const,
  registers: [registry],
});

export const liveSentencesIngested = new client.Counter({
  name: 'live_sentences_ingested_total',
  help: 'Sentences ingested into live meetings.',
  registers: [registry],
});

export interface PoolSample {
  used: number;
  free: number;
  pending: number;
}

/** The process's database pools, sampled when /metrics is scraped (a sampler answering null is gone). */
const poolSamplers = new Set<() => PoolSample | null>();

export function trackDbPool(sample: () => PoolSample | null): void {
  poolSamplers.add(sample);
}

export const dbPoolConnections = new client.Gauge({
  name: 'db_pool_connections',
  help: 'PostgreSQL pool connections by state (used, free, pending).',
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    const total: PoolSample = { used: 0, free: 0, pending: 0 };
    for (const sample of poolSamplers) {
      const s = sample();
      if (!s) poolSamplers.delete(sample);
      else for (const k of ['used', 'free', 'pending'] as const) total[k] += s[k];
    }
    for (const k of ['used', 'free', 'pending'] as const) this.set({ state: k }, total[k]);
  },
});

// OAuth for the MCP endpoint (services/oauth). Label values come from fixed lists in that module.

export const oauthSignIns = new client.Counter({
  name: 'oauth_sign_ins_total',
  help: 'Sign-ins on the built-in authorization server by outcome (ok, bad_credentials, unknown_user, provider_error).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const oauthTokensIssued = new client.Counter({
  name: 'oauth_tokens_issued_total',
  help: 'Access tokens issued by the built-in authorization server by grant type (authorization_code, refresh_token).',
  labelNames: ['grant_type'] as const,
  registers: [registry],
});

export const oauthRefusals = new client.Counter({
  name: 'oauth_refusals_total',
  help: 'OAuth requests refused, by reason: bad access tokens at /mcp and bad requests to the built-in authorization server.',
  labelNames: ['reason'] as const,
  registers: [registry],
});

export const readAuditRows = new client.Counter({
  name: 'read_audit_rows_total',
  help: 'Read-audit rows by outcome: written to read_audit, or dropped after failed flushes filled the buffer.',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const readAuditFlushFailures = new client.Counter({
  name: 'read_audit_flush_failures_total',
  help: 'Read-audit flushes (one multi-row INSERT) the database refused; the rows wait for the next flush.',
  registers: [registry],
});

export const meetingEmbeddings = new client.Counter({
  name: 'meeting_embeddings_total',
  help: 'Meetings embedded for search by meaning, by outcome (embedded, no-sentences, gone, no-vector-store, failed).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const embeddingBacklog = new client.Gauge({
  name: 'meeting_embedding_backlog',
  help: 'Completed meetings the current embedding model has not embedded yet (the backfill sets it after each step).',
  labelNames: ['model'] as const,
  registers: [registry],
});

export const languageReindexBacklog = new client.Gauge({
  name: 'meeting_language_reindex_backlog',
  help: "Meetings waiting for their language's index (LanguageReindexWorkflow sets it after each step; 0 when it ends).",
  registers: [registry],
});

export const languageReindexSentences = new client.Counter({
  name: 'meeting_language_reindexed_sentences_total',
  help: "Sentences indexed again with their meeting's language by LanguageReindexWorkflow.",
  registers: [registry],
});

export const summaryRuns = new client.Counter({
  name: 'summary_runs_total',
  help: "Meeting summaries written, by trigger (transcription, live, resummary) and outcome: extractive (no chat model), llm (the chat model's notes), llm_partial (some fields the built-in summarizer's), llm_failed (the built-in summary instead).",
  labelNames: ['trigger', 'outcome'] as const,
  registers: [registry],
});

export const summaryRunSeconds = new client.Histogram({
  name: 'summary_run_duration_seconds',
  help: 'Time one meeting summary took, by source (extractive, llm): every call to the chat model included.',
  labelNames: ['source'] as const,
  buckets: [0.05, 0.25, 1, 5, 15, 30, 60, 120, 300, 600, 1800],
  registers: [registry],
});

export const summaryTokens = new client.Counter({
  name: 'summary_llm_tokens_total',
  help: 'Tokens the chat model at LLM_URL read (prompt) and wrote (completion) for meeting summaries, as its answers report them.',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export const retentionDeletedMeetings = new client.Counter({
  name: 'retention_deleted_meetings_total',
  help: "Meetings deleted by the retention run for being older than their team's retention period.",
  registers: [registry],
});
