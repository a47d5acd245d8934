/**
 * What every role holds for its lifetime: the database pool, the (lazy) Temporal client and the
 * readiness checks over both. Closing it is the last step of a graceful shutdown.
 */
import type { Client, Connection } from '@temporalio/client';
import type { Config } from './config';
import { createDb, Db, pingDb } from './db';
import type { ReadinessCheck } from './http';
import { createTemporalClient, pingTemporal } from './temporal';

export interface Runtime {
  config: Config;
  db: Db;
  temporal: Client;
  temporalConnection: Connection;
  checks: ReadinessCheck[];
  close(): Promise<void>;
}

export function createRuntime(config: Config): Runtime {
  const db = createDb({ url: config.databaseUrl, poolMax: config.databasePoolMax, ssl: config.databaseSsl });
  const { client, connection } = createTemporalClient(config);
  let closed = false;
  return {
    config,
    db,
    temporal: client,
    temporalConnection: connection,
    checks: [
      { name: 'database', check: () => pingDb(db) },
      { name: 'temporal', check: () => pingTemporal(connection) },
    ],
    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.allSettled([connection.close(), db.destroy()]);
    },
  };
}
