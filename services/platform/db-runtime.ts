/**
 * What a role that needs only PostgreSQL holds for its lifetime: the pool and its readiness check.
 * The mcp role is one: none of its tools starts a workflow, so it loads no Temporal client (tens of MB
 * of protobuf definitions per process) and stays ready while Temporal is down. It imports nothing
 * from Temporal, so requiring it never loads the SDK.
 */
import type { Config } from './config';
import { createDb, Db, pingDb } from './db';
import type { ReadinessCheck } from './http';

export interface DatabaseRuntime {
  config: Config;
  db: Db;
  checks: ReadinessCheck[];
  close(): Promise<void>;
}

export function createDatabaseRuntime(config: Config): DatabaseRuntime {
  const db = createDb({ url: config.databaseUrl, poolMax: config.databasePoolMax, ssl: config.databaseSsl });
  let closed = false;
  return {
    config,
    db,
    checks: [{ name: 'database', check: () => pingDb(db) }],
    close: async () => {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}
