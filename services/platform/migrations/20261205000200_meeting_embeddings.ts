import type { Knex } from 'knex';

/**
 * Search by meaning (services/core/passages): `meeting_embeddings` on every server, and pgvector with
 * the vector tables where the server offers the extension (where it does not, or the migrating role
 * may not create it, the service searches by keyword, and a role's start makes them once it can).
 * The DDL is passages/schema.ts's as it stood for this migration, written out here so the migration
 * never changes.
 *
 * Expand only, so release 0.1.0 runs on it: new tables 0.1.0 never reads or writes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table meeting_embeddings (
      meeting_id text primary key references meetings(id) on delete cascade,
      model text not null,
      sentences integer not null default 0,
      embedded_at timestamptz not null default now(),
      failures integer not null default 0,
      last_error text
    )`);
  const { rows } = await knex.raw<{ rows: unknown[] }>("select 1 from pg_available_extensions where name = 'vector'");
  if (!rows.length) return;
  // A savepoint, so a role that may not create extensions leaves the rest of the migration standing.
  await knex.raw('savepoint vector_extension');
  try {
    await knex.raw('create extension if not exists vector');
    await knex.raw('release savepoint vector_extension');
  } catch {
    await knex.raw('rollback to savepoint vector_extension');
    return;
  }
  await knex.raw(`
    create table passage_vectors (
      meeting_id text not null references meeting_embeddings(meeting_id) on delete cascade,
      model text not null,
      first_idx integer not null,
      last_idx integer not null,
      embedding halfvec not null,
      primary key (meeting_id, first_idx, last_idx)
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists passage_vectors');
  await knex.raw('drop table meeting_embeddings');
}
