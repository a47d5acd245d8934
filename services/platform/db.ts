import knexFactory, { Knex } from 'knex';
import { migrationSource } from './migrations';
import { logger } from './logger';
import { trackDbPool } from './metrics';
import { migrateUp } from './schema';

export type Db = Knex;

export interface DbOptions {
  url: string;
  poolMax?: number;
  ssl?: boolean;
}

export function createDb(opts: DbOptions): Db {
  const db = knexFactory({
    client: 'pg',
    connection: { connectionString: opts.url, ssl: opts.ssl ? { rejectUnauthorized: true } : undefined },
    pool: { min: 0, max: opts.poolMax ?? 10 },
    // The schema guard (schema.ts) judges migrations this release does not know, not knex.
    migrations: { migrationSource, tableName: 'knex_migrations', disableMigrationsListValidation: true },
    log: KNEX_LOG,
  });
  trackPool(db);
  return db;
}

/** knex's own warnings (a connection lost, an acquire failed) as lines of our log, not console.log. */
const KNEX_LOG: Knex.Logger = {
  warn: (message: unknown) => logger.warn({ component: 'knex' }, String(message)),
  error: (message: unknown) => logger.error({ component: 'knex' }, String(message)),
  debug: (message: unknown) => logger.debug({ component: 'knex' }, String(message)),
  deprecate: (method: string, alternative: string) =>
    logger.warn({ component: 'knex' }, `${method} is deprecated: use ${alternative}`),
};

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
  return (await migrateUp(db)).applied;
}

export async function pingDb(db: Db, timeoutMs = 2000): Promise<void> {
  await db.raw('select 1').timeout(timeoutMs, { cancel: true });
}
