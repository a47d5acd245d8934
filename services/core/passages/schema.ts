/**
 * The tables that hold what a meeting means, and how they come to exist.
 *
 * `meeting_embeddings` (a migration makes it, on every PostgreSQL) says which meetings are embedded,
 * by which model and how far: the backfill reads it to find what is left, and deleting a meeting's
 * row forgets its vectors. The vectors themselves need pgvector, which a team's PostgreSQL may lack:
 * `passage_vectors`, three consecutive sentences each (windows.ts), searched through an HNSW index.
 * They hang off `meeting_embeddings` with ON DELETE CASCADE, so whatever forgets a meeting's row
 * (deletion, retention, a new transcript) forgets its vectors in the same statement.
 *
 * The vector tables are made when the extension can be had: by the migration, and again at a role's
 * start (ensureVectorStore), so an operator who adds pgvector later gets search by meaning without a
 * new migration. Vectors are `halfvec` without a dimension, since the model decides it; each model's
 * HNSW index is a partial index over the cast to its dimension (vectorIndexDdl), made when a role
 * first uses the model.
 */
import type { Knex } from 'knex';

const VECTOR_TABLES_DDL = [
  `create table if not exists passage_vectors (
    meeting_id text not null references meeting_embeddings(meeting_id) on delete cascade,
    -- The model again (meeting_embeddings has it too), so each model's index can be a partial one.
    model text not null,
    first_idx integer not null,
    last_idx integer not null,
    embedding halfvec not null,
    primary key (meeting_id, first_idx, last_idx)
  )`,
];

export type VectorSupport = 'ready' | 'no-extension' | 'not-permitted';

/** A model name as part of an index name: letters, digits and underscores, at most 40 characters. */
const slug = (model: string) =>
  model
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 40);

export const vectorIndexName = (model: string) => `passage_vectors_hnsw_${slug(model)}`;

/**
 * The HNSW index of one model's passages: cosine distance over the vectors cast to the model's
 * dimension, for that model's rows only (a model change builds a new index beside the old one).
 */
export function vectorIndexDdl(model: string, dims: number, opts: { concurrently?: boolean } = {}): string {
  if (!Number.isInteger(dims) || dims < 1 || dims > 4000)
    throw new Error(`a model's dimension must be 1 to 4000, not ${dims}`);
  return (
    `create index ${opts.concurrently ? 'concurrently ' : ''}if not exists ${vectorIndexName(model)} on passage_vectors` +
    ` using hnsw ((embedding::halfvec(${dims})) halfvec_cosine_ops)` +
    ` where model = ${literal(model)}`
  );
}

/** The model as a literal: an index's predicate cannot take a binding. */
const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * pgvector and the vector tables, where they can be had: the extension is created when the server
 * offers it (which needs the right to create it: a superuser, or an operator who created it first),
 * then the tables. Never fails for want of the extension: says what is missing instead.
 */
export async function ensureVectorStore(db: Knex): Promise<VectorSupport> {
  const { rows } = await db.raw<{ rows: { available: boolean; installed: boolean }[] }>(
    "select count(*) > 0 as available, bool_or(installed_version is not null) as installed from pg_available_extensions where name = 'vector'",
  );
  const { available, installed } = rows[0];
  if (!available) return 'no-extension';
  try {
    await db.transaction(async (trx) => {
      if (!installed) await trx.raw('create extension if not exists vector');
      for (const ddl of VECTOR_TABLES_DDL) await trx.raw(ddl);
    });
  } catch (e) {
    if ((e as { code?: string }).code === '42501') return 'not-permitted';
    throw e;
  }
  return 'ready';
}

/** Whether the vector tables exist (the extension was there when a role or the migration looked). */
export async function vectorTablesExist(db: Knex): Promise<boolean> {
  const { rows } = await db.raw<{ rows: { t: string | null }[] }>("select to_regclass('passage_vectors')::text as t");
  return rows[0].t !== null;
}
