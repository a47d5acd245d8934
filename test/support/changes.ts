/**
 * For tests of the change log (services/core/changes): a page reads only changes of transactions older
 * than the oldest one still running in the PostgreSQL cluster, other test files' included.
 */
import type { Knex } from 'knex';

/** Wait until every transaction begun before this call has ended, so a page reads every change written before it. */
export async function settled(db: Knex): Promise<void> {
  const { rows } = await db.raw('select pg_current_xact_id()::text as x');
  for (;;) {
    const { rows: h } = await db.raw('select pg_snapshot_xmin(pg_current_snapshot())::text as x');
    if (BigInt(h[0].x) > BigInt(rows[0].x)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}
