import type { Knex } from 'knex';

/**
 * Live ingest upserts sentences by (meeting, chunk_id): a recorder that sends a chunk again replaces
 * its sentence. The unique index makes "one row per chunk" a property of the schema rather than only
 * of the code that writes it (services/core/live/store.ts). Uploaded transcripts have no chunk ids
 * (NULL), which the partial index leaves out. It replaces the plain index of the initial schema.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'create unique index sentences_chunk_unique on sentences (meeting_id, chunk_id) where chunk_id is not null',
  );
  await knex.raw('drop index if exists sentences_chunk_idx');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'create index if not exists sentences_chunk_idx on sentences (meeting_id, chunk_id) where chunk_id is not null',
  );
  await knex.raw('drop index if exists sentences_chunk_unique');
}
