import knexFactory, { Knex } from 'knex';
import { migrationSource } from './migrations';
import { dbPoolConnections } from './metrics';

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
    migrations: { migrationSource, tableName: 'knex_migrations' },
  });
  trackPool(db);
  return db;
}

/** Sample the pool into the db_pool_connections gauge when /metrics is scraped. */
function trackPool(db: Db): void {
  const pool = (db.client as { pool?: { numUsed(): number; numFree(): number; numPendingAcquires(): number } }).pool;
  if (!pool) return;
  const collect = () => {
    dbPoolConnections.set({ state: 'used' }, pool.numUsed());
    dbPoolConnections.set({ state: 'free' }, pool.numFree());
    dbPoolConnections.set({ state: 'pending' }, pool.numPendingAcquires());
  };
  collect();
  db.client.on('acquire', collect);
  db.client.on('release', collect);
}

export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = await db.migrate.latest();
  return applied as string[];
}

export async function pingDb(db: Db, timeoutMs = 2000): Promise<void> {
  await db.raw('select 1').timeout(timeoutMs, { cancel: true });
}
