import knexFactory, { Knex } from 'knex';
import { migrationSource } from './migrations';
import { trackDbPool } from './metrics';

export type Db = Knex;

export interface DbOptions {
  url: string;
  poolMax?: number;
  ssl?: boolean;
}

/**
 * Statements the service prepares (named in platform/sql's runSql: the API-key lookup, meeting lists,
 * moments) run their generic plan from the first call. Left to choose, PostgreSQL plans each call for
 * its values whenever the generic plan's estimate looks dearer than theirs, which for a walked meeting
 * list it always does (its estimate cannot know how soon the walk stops): 0.4-0.5 ms of planning on
 * every call. Each of those statements is written so that its generic plan is the plan its values
 * would get (core/meetings/find.ts). Statements run without a name (everything through knex) are
 * planned for their values as before.
 */
export const SESSION_SETTINGS = 'set plan_cache_mode = force_generic_plan';

type PgConnection = { query(sql: string, done: (err: Error | null) => void): void };

export function createDb(opts: DbOptions): Db {
  const db = knexFactory({
    client: 'pg',
    connection: { connectionString: opts.url, ssl: opts.ssl ? { rejectUnauthorized: true } : undefined },
    pool: {
      min: 0,
      max: opts.poolMax ?? 10,
      afterCreate: (conn: PgConnection, done: (err: Error | null, conn: PgConnection) => void) => conn.query(SESSION_SETTINGS, (err) => done(err, conn)),
    },
    migrations: { migrationSource, tableName: 'knex_migrations' },
  });
  trackPool(db);
  return db;
}

/**
 * Sample the pool into the db_pool_connections gauge when /metrics is scraped, not on every query.
 * knex drops its pool on destroy: a destroyed database stops being sampled.
 */
function trackPool(db: Db): void {
  type Pool = { numUsed(): number; numFree(): number; numPendingAcquires(): number };
  trackDbPool(() => {
    const pool = (db.client as { pool?: Pool }).pool;
    return pool ? { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires() } : null;
  });
}

export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = await db.migrate.latest();
  return applied as string[];
}

export async function pingDb(db: Db, timeoutMs = 2000): Promise<void> {
  await db.raw('select 1').timeout(timeoutMs, { cancel: true });
}
