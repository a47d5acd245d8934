import { flushReads } from '../../services/core/audit';
import knexFactory from 'knex';
import { randomBytes } from 'node:crypto';
import { createDb, Db } from '../../services/platform/db';
import { withDatabase } from './globalSetup';

export interface TestDatabase {
  db: Db;
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * A database of this test file's own, cloned from the migrated template, so test files run in
 * parallel without seeing each other's rows.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.MI_TEST_ADMIN_URL!;
  const template = process.env.MI_TEST_TEMPLATE_DB!;
  const name = `mi_t_${process.env.MI_TEST_RUN_ID}_${randomBytes(4).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  try {
    // Two clones of one template at the same instant can collide ("being accessed by other users").
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.raw(`create database ${name} template ${template}`);
        break;
      } catch (e) {
        if (attempt >= 20 || !/being accessed by other users/.test(String(e))) throw e;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.destroy();
  }
  const url = withDatabase(adminUrl, name);
  const db = createDb({ url, poolMax: 5 });
  return {
    db,
    url,
    name,
    drop: async () => {
      // Reads the test's harnesses recorded are written (or dropped) while the pool is open.
      await flushReads(db);
      await db.destroy();
      const a = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
      await a.raw(`drop database if exists ${name} with (force)`);
      await a.destroy();
    },
  };
}

/** A task queue of this test file's own, so workers of parallel files never take each other's tasks. */
export function testTaskQueue(label: string): string {
  return `test-${label}-${randomBytes(4).toString('hex')}`;
}
