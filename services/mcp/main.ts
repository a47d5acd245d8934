import { closeServers, listen, serverUrl } from '../platform/http';
import { runRoleMain, RunningRole } from '../platform/role';
import { createDatabaseRuntime, DatabaseRuntime, requireRuntimeSchema } from '../platform/db-runtime';
import type { Config } from '../platform/config';
import { startReadAudit } from '../core/read-audit';
import { startMeaningSearch } from '../core/passages';
import { logger } from '../platform/logger';
import { createTemporalClient } from '../platform/temporal';
import { temporalWorkflows } from '../../workflows/client';
import { createMcpApp } from './app';

/**
 * The mcp role: POST /mcp plus health and metrics. Its tools need PostgreSQL, so it is ready whenever
 * the database is; the one tool that starts a workflow (svc_resummarize_meeting) uses a lazy Temporal
 * client that connects on first use and is no readiness check. Pass a shared runtime to run beside
 * other roles.
 */
export async function startMcpRole(config: Config, shared?: DatabaseRuntime): Promise<RunningRole & { url: string }> {
  const rt = shared ?? createDatabaseRuntime(config);
  await requireRuntimeSchema(rt, !shared);
  // Reads of meetings are buffered and written in batches; stopping writes what is left.
  const reads = startReadAudit(rt.db, config.readAudit);
  const { embedder } = await startMeaningSearch(rt.db, config, logger);
  const temporal = createTemporalClient(config);
  const workflows = temporalWorkflows(temporal.client, config.temporal.taskQueue);
  const app = createMcpApp({ db: rt.db, config, embedder, workflows }, rt.checks);
  const server = await listen(app, config.mcpPort, config.host);
  return {
    url: `${serverUrl(server, config.host === '0.0.0.0' ? 'localhost' : config.host)}/mcp`,
    close: async () => {
      await closeServers([server], config.shutdownGraceMs);
      await reads.stop();
      await temporal.connection.close();
      if (!shared) await rt.close();
    },
  };
}

if (require.main === module) runRoleMain('mcp', (config) => startMcpRole(config));
