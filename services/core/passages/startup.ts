/**
 * Search by meaning at a role's start: the vector tables made where pgvector can be had, the model's
 * HNSW index made by the worker, and one line that says whether questions are answered by meaning or
 * by their words alone, and why.
 */
import type { Knex } from 'knex';
import type { TextEmbedder } from './embed';
import { ensureVectorStore, vectorIndexDdl, vectorIndexName } from './schema';

export interface MeaningSearchState {
  /** Questions are answered by meaning. */
  on: boolean;
  /** Why not, in words an operator acts on. */
  reason: string | null;
}

const REASONS = {
  'no-model': 'no embedding model is configured (EMBEDDING_MODEL_DIR)',
  'no-extension':
    "PostgreSQL has no pgvector extension (install it, e.g. CloudNativePG's images or a managed service's vector extension; docs/search.md)",
  'not-permitted':
    'the database role may not create the pgvector extension (run `create extension vector` as a superuser once; docs/search.md)',
};

/** Ready the vector store for `embedder`'s model, or say why questions will be answered by their words. */
export async function prepareMeaningSearch(db: Knex, embedder: TextEmbedder | null): Promise<MeaningSearchState> {
  if (!embedder) return { on: false, reason: REASONS['no-model'] };
  const support = await ensureVectorStore(db);
  if (support !== 'ready') return { on: false, reason: REASONS[support] };
  return { on: true, reason: null };
}

/**
 * The model's HNSW index, built without blocking writes (CONCURRENTLY) where it is missing: at once on
 * an empty table, in the background over vectors already stored. The worker makes it; a failure
 * leaves questions answered by an exact scan, slower but right.
 */
export async function ensureModelIndex(db: Knex, info: { name: string; dims: number }): Promise<'exists' | 'built'> {
  const { rows } = await db.raw<{ rows: unknown[] }>('select 1 from pg_indexes where indexname = ?', [
    vectorIndexName(info.name),
  ]);
  if (rows.length) return 'exists';
  await db.raw(
    vectorIndexDdl(info.name, info.dims).replace(
      'create index if not exists',
      'create index concurrently if not exists',
    ),
  );
  return 'built';
}
