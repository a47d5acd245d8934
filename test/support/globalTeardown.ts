import knexFactory from 'knex';
import type { Provisioned } from './stack';

export default async function globalTeardown(): Promise<void> {
  const stack = (globalThis as Record<string, unknown>).__MI_STACK__ as
    { pg: Provisioned; temporal: Provisioned; template: string; runId: string } | undefined;
  if (!stack) return;
  if (stack.pg.source === 'environment') {
    // A shared server outlives the run: drop what this run created.
    const admin = knexFactory({ client: 'pg', connection: stack.pg.url, pool: { min: 0, max: 1 } });
    const rows = await admin('pg_database').select('datname').where('datname', 'like', `mi_%${stack.runId}%`);
    for (const { datname } of rows) await admin.raw(`drop database if exists ${datname} with (force)`);
    await admin.destroy();
  }
  await Promise.all([stack.pg.stop(), stack.temporal.stop()]);
}
