import type { Config } from '../platform/config';
import { configOrExit } from '../platform/role';
import { createDb, Db } from '../platform/db';
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
      this.pool = createDb({ url: c.databaseUrl, poolMax: 4, ssl: c.databaseSsl });
    }
    return this.pool;
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
  }
}
