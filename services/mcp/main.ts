import { setFlagsFromString } from 'node:v8';
import { closeServers, listen, serverUrl } from '../platform/http';
import { runRoleMain, RunningRole } from '../platform/role';
import { createDatabaseRuntime, DatabaseRuntime, requireRuntimeSchema } from '../platform/db-runtime';
import type { Config } from '../platform/config';
import { startReadAudit } from '../core/audit';
import { startMeaningSearch } from '../core/passages';
import { logger } from '../platform/logger';
import type { WorkflowPort } from '../core/ports';
import { createMcpApp } from './app';

/**
 * The role's port to Temporal, opened on first use: only svc_resummarize_meeting and svc_correct_sentence start workflows,
 * and the Temporal SDK costs every mcp process tens of MB it would mostly never use, so its modules
 * are loaded then, not at start.
 */
function lazyWorkflowPort(config: Config): { port: WorkflowPort; close(): Promise<void> } {
  let opening: Promise<{ port: WorkflowPort; close(): Promise<void> }> | undefined;
  const open = () =>
    (opening ??= (async () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (above)
      const { createTemporalClient } = require('../platform/temporal') as typeof import('../platform/temporal');
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (above)
      const { temporalWorkflows } = require('../../workflows/client') as typeof import('../../workflows/client');
      const temporal = createTemporalClient(config);
      return {
        port: temporalWorkflows(temporal.client, config.temporal.taskQueue),
        close: () => temporal.connection.close(),
      };
    })());
  const port: WorkflowPort = {
    startTranscription: async (meetingId) => (await open()).port.startTranscription(meetingId),
    startLiveMeeting: async (input) => (await open()).port.startLiveMeeting(input),
    updateLiveMeeting: async (meetingId, update, args, deadlineMs) =>
      (await open()).port.updateLiveMeeting(meetingId, update, args, deadlineMs),
    startResummary: async (input) => (await open()).port.startResummary(input),
    startEmbedding: async (meetingId) => (await open()).port.startEmbedding(meetingId),
    redeliverWebhook: async (input) => (await open()).port.redeliverWebhook(input),
  };
  return { port, close: async () => (opening ? (await opening).close() : undefined) };
}

/**
 * How far V8 lets the heap grow past what its last full collection kept, in percent. Left to itself, V8
 * on a machine with plenty of memory lets the old space reach up to four times the live heap before
 * collecting it in full. Under concurrent calls much of each call's garbage (its rows, records and the
 * answer's text) outlives a young collection and is promoted, so the old space fills with the dead
 * answers of earlier calls, and that is the pod's resident memory. At twice the live heap the role
 * collects in full more often, each collection over a small heap; at 1.5 times it paid for that in
 * CPU on large transcript pages (test/bench/JOURNAL.md).
 */
const HEAP_GROWING_PERCENT = 100;

/**
 * The mcp role: POST /mcp plus health and metrics. Its tools need PostgreSQL, so it is ready whenever
 * the database is; the tools that start a workflow (svc_resummarize_meeting, svc_correct_sentence) use a lazy Temporal
 * client that connects on first use and is no readiness check. Pass a shared runtime to run beside
 * other roles.
 */
export async function startMcpRole(config: Config, shared?: DatabaseRuntime): Promise<RunningRole & { url: string }> {
  // A process-wide setting, so only when the role has the process to itself (not `serve all`), and
  // not over the operator's own `node --heap-growing-percent=N` (0: V8's own growth).
  if (!shared && !process.execArgv.some((a) => a.startsWith('--heap-growing-percent')))
    setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const rt = shared ?? createDatabaseRuntime(config);
  await requireRuntimeSchema(rt, !shared);
  // Reads of meetings are buffered and written in batches; stopping writes what is left.
  const reads = startReadAudit(rt.db, config.readAudit);
  const { embedder } = await startMeaningSearch(rt.db, config, logger);
  const workflows = lazyWorkflowPort(config);
  const app = createMcpApp({ db: rt.db, config, embedder, workflows: workflows.port }, rt.checks);
  const server = await listen(app, config.mcpPort, config.host);
  return {
    url: `${serverUrl(server, config.host === '0.0.0.0' ? 'localhost' : config.host)}/mcp`,
    close: async () => {
      await closeServers([server], config.shutdownGraceMs);
      await reads.stop();
      await workflows.close();
      if (!shared) await rt.close();
    },
  };
}

if (require.main === module) runRoleMain('mcp', (config) => startMcpRole(config));
