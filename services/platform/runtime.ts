/**
 * What the graphql and worker roles (and `serve all`) hold for their lifetime: the database pool, the
 * (lazy) Temporal client and the readiness checks over both. Closing it is the last step of a
 * graceful shutdown. A role that needs only the database uses db-runtime.ts.
 */
import type { Client, Connection } from '@temporalio/client';
import type { Config } from './config';
import { createDatabaseRuntime, DatabaseRuntime } from './db-runtime';
import { createTemporalClient, pingTemporal } from './temporal';

export interface Runtime extends DatabaseRuntime {
  temporal: Client;
  temporalConnection: Connection;
}

export function createRuntime(config: Config): Runtime {
  const base = createDatabaseRuntime(config);
  const { client, connection } = createTemporalClient(config);
  let closed = false;
  return {
    ...base,
    temporal: client,
    temporalConnection: connection,
    checks: [...base.checks, { name: 'temporal', check: () => pingTemporal(connection) }],
    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.allSettled([connection.close(), base.close()]);
    },
  };
}
