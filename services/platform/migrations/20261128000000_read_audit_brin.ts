import type { Knex } from 'knex';

/**
 * The read audit's time index as BRIN instead of a B-tree.
 *
 * read_audit is append-only and read_at grows with the row order, which is what BRIN is for: one
 * summary per 128 pages instead of one entry per row. Every keyword list with moments writes a row
 * per meeting of its page (10 a call by default), so each index the table has is paid on the read
 * path; the only user of this one is the daily prune (`read_at < cutoff`, oldest first), which a
 * block-range scan serves as well.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists read_audit_read_at_idx');
  await knex.raw('create index read_audit_read_at_brin on read_audit using brin (read_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists read_audit_read_at_brin');
  await knex.raw('create index read_audit_read_at_idx on read_audit (read_at)');
}
