import type { Config } from '../platform/config';
import { configOrExit } from '../platform/role';
import knexFactory from 'knex';
import type { Db } from '../platform/db';
import { migrationSource } from '../platform/migrations';
import { CONNECT_DEADLINE_MS } from './failures';
import type { Output } from './output';

/** What a command needs; the database is opened only by commands that use it. */
export class CommandContext {
  private pool?: Db;
  private cfg?: Config;
  constructor(readonly out: Output) {}

  config(): Config {
    return (this.cfg ??= configOrExit('cli'));
  }

  db(): Db {
    if (!this.pool) {
      const c = this.config();
      // As platform/db's createDb, plus a connect deadline (a silent host must not hold the CLI) and
      // a quiet logger: knex's migration warnings print the failing SQL, which the CLI never shows.
      const quiet = () => {};
      this.pool = knexFactory({
        client: 'pg',
        connection: {
          connectionString: c.databaseUrl,
          ssl: c.databaseSsl ? { rejectUnauthorized: true } : undefined,
          connectionTimeoutMillis: CONNECT_DEADLINE_MS,
        },
        pool: { min: 0, max: 4 },
        acquireConnectionTimeout: CONNECT_DEADLINE_MS + 2000,
        migrations: { migrationSource, tableName: 'knex_migrations' },
        log: { warn: quiet, error: quiet, deprecate: quiet, debug: quiet },
      });
    }
    return this.pool;
  }

  /** Where the database and Temporal are, for error messages (without loading the config again). */
  where(): { databaseUrl?: string; temporalAddress: string } {
    return {
      databaseUrl: this.cfg?.databaseUrl ?? process.env.DATABASE_URL,
      temporalAddress: this.cfg?.temporal.address ?? process.env.TEMPORAL_ADDRESS ?? 'localhost:7233',
    };
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
  }
}
