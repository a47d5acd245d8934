import type { Server } from 'node:http';
import { closeServers, listen, serverUrl } from '../platform/http';
import { runRoleMain, RunningRole } from '../platform/role';
import { createRuntime, Runtime } from '../platform/runtime';
import { requireRuntimeSchema } from '../platform/db-runtime';
import type { Config } from '../platform/config';
import { startReadAudit } from '../core/audit';
import { startMeaningSearch } from '../core/passages';
import { logger } from '../platform/logger';
import { createGraphqlApp } from './app';

/** The graphql role: POST /graphql plus health and metrics. Pass a shared runtime to run beside other roles. */
export async function startGraphqlRole(
  config: Config,
  shared?: Runtime,
): Promise<RunningRole & { url: string; server: Server }> {
  const rt = shared ?? createRuntime(config);
  await requireRuntimeSchema(rt, !shared);
  // Reads of meetings are buffered and written in batches; stopping writes what is left.
  const reads = startReadAudit(rt.db, config.readAudit);
  const { embedder } = await startMeaningSearch(rt.db, config, logger);
  const { app, stop } = await createGraphqlApp({ db: rt.db, config, temporal: rt.temporal, embedder }, rt.checks);
  const server = await listen(app, config.graphqlPort, config.host);
  return {
    server,
    url: `${serverUrl(server, config.host === '0.0.0.0' ? 'localhost' : config.host)}/graphql`,
    close: async () => {
      await closeServers([server], config.shutdownGraceMs);
      await stop();
      await reads.stop();
      if (!shared) await rt.close();
    },
  };
}

if (require.main === module) runRoleMain('graphql', (config) => startGraphqlRole(config));
