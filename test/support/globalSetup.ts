import knexFactory from 'knex';
import { randomBytes } from 'node:crypto';
import { migrationSource } from '../../services/platform/migrations';
import { provisionPostgres, provisionTemporal } from './stack';
import { reportTiming } from './timings';

/**
 * Runs once per `jest` run: provisions PostgreSQL and Temporal, migrates a template database that
 * every test file clones (fast), and hands the addresses to the test workers through the environment.
 */
export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const [pg, temporal] = await Promise.all([provisionPostgres(), provisionTemporal()]);
  const runId = randomBytes(4).toString('hex');
  const template = `mi_tpl_${runId}`;

  const admin = knexFactory({ client: 'pg', connection: pg.url, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${template}`);
  await admin.destroy();

  const tplUrl = withDatabase(pg.url, template);
  const tpl = knexFactory({
    client: 'pg',
    connection: tplUrl,
    pool: { min: 0, max: 1 },
    migrations: { migrationSource },
  });
  await tpl.migrate.latest();
  await tpl.destroy();

  process.env.MI_TEST_ADMIN_URL = pg.url;
  process.env.MI_TEST_TEMPLATE_DB = template;
  process.env.MI_TEST_RUN_ID = runId;
  process.env.TEMPORAL_ADDRESS = temporal.url;
  (globalThis as Record<string, unknown>).__MI_STACK__ = { pg, temporal, template, runId };
  reportTiming(
    `\n[test stack] postgres (${pg.source}) and temporal (${temporal.source}) at ${temporal.url} ready in ${Date.now() - started} ms`,
  );
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
