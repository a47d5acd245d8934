/**
 * What a role that needs only PostgreSQL holds for its lifetime: the pool and its readiness check.
 * The mcp role is one: none of its tools starts a workflow, so it loads no Temporal client (tens of MB
 * of protobuf definitions per process) and stays ready while Temporal is down. It imports nothing
 * from Temporal, so requiring it never loads the SDK.
 */
import type { Config } from './config';
import { createDb, Db, pingDb } from './db';
import type { ReadinessCheck } from './http';
import { requireSchema } from './schema';

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
    checks: [
      { name: 'database', check: () => pingDb(db) },
      // Not ready on a schema this release does not run on: a pod of a rolled-back release whose
      // database moved ahead by a migration it cannot run on stops taking traffic (schema.ts).
      { name: 'schema', check: () => withinReadiness(requireSchema(db)) },
    ],
    close: async () => {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}

/** At a role's start: refuse a schema this release does not run on, closing the runtime if the role owns it. */
export async function requireRuntimeSchema(rt: DatabaseRuntime, owned: boolean): Promise<void> {
  try {
    await requireSchema(rt.db);
  } catch (e) {
    if (owned) await rt.close();
    throw e;
  }
}

/** A readiness probe answers in bounded time even when PostgreSQL hangs. */
async function withinReadiness(work: Promise<unknown>, timeoutMs = 2000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
