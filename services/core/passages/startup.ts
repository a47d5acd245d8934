/**
 * Search by meaning at a role's start: the configured model loaded, the vector tables made where
 * pgvector can be had, the model's HNSW index made by the worker, and one line that says whether
 * questions are answered by meaning or by their words alone, and why.
 */
import type { Knex } from 'knex';
import { loadEmbedder } from '../../intelligence/embeddings';
import type { Config } from '../../platform/config';
import type { Logger } from '../../platform/logger';
import type { TextEmbedder } from './embed';
import { ensureVectorStore, vectorIndexDdl, vectorIndexName } from './schema';

export interface MeaningSearch {
  /** The question embedder, or null where questions are answered by their words. */
  embedder: TextEmbedder | null;
  /** Why questions are answered by their words, in words an operator acts on; null when by meaning. */
  reason: string | null;
}

const REASONS = {
  'no-model': 'no embedding model is configured (EMBEDDING_MODEL_DIR=off)',
  'no-extension':
    'PostgreSQL has no pgvector extension (CloudNativePG images and managed services have it; docs/search.md)',
  'not-permitted':
    'the database role may not create the pgvector extension (create it once as a superuser: create extension vector; docs/search.md)',
};

/**
 * One embedder per model folder in a process: roles that run side by side (make dev, `serve all`)
 * share it, and it lives as long as the process (a role that stops does not close it under another).
 */
const loaded = new Map<string, Promise<TextEmbedder>>();
function processEmbedder(dir: string): Promise<TextEmbedder> {
  let e = loaded.get(dir);
  if (!e) {
    e = loadEmbedder(dir);
    // A failed load is not kept: the next start tries again.
    e.catch(() => loaded.delete(dir));
    loaded.set(dir, e);
  }
  return e;
}

/**
 * The model of EMBEDDING_MODEL_DIR loaded (a configured model that cannot be loaded stops the role,
 * as a speech model does), the vector store readied, and the outcome logged. Without pgvector the
 * model is still loaded: the worker keeps no vectors, but the tables may come later.
 */
export async function startMeaningSearch(db: Knex, config: Config, log: Logger): Promise<MeaningSearch> {
  if (!config.embeddingModelDir) {
    log.info({ reason: REASONS['no-model'] }, 'questions are answered by their words');
    return { embedder: null, reason: REASONS['no-model'] };
  }
  const embedder = await processEmbedder(config.embeddingModelDir);
  const support = await ensureVectorStore(db);
  if (support !== 'ready') {
    log.warn({ model: embedder.info.name, reason: REASONS[support] }, 'questions are answered by their words');
    return { embedder, reason: REASONS[support] };
  }
  log.info({ model: embedder.info.name, dims: embedder.info.dims }, 'questions are answered by meaning');
  return { embedder, reason: null };
}

/**
 * The model's HNSW index, built without blocking writes (CONCURRENTLY) where it is missing: at once on
 * an empty table, in the background over vectors already stored. The worker makes it; until it is
 * there, questions are answered by an exact scan, slower but right.
 */
export async function ensureModelIndex(db: Knex, info: { name: string; dims: number }): Promise<'exists' | 'built'> {
  const { rows } = await db.raw<{ rows: unknown[] }>('select 1 from pg_indexes where indexname = ?', [
    vectorIndexName(info.name),
  ]);
  if (rows.length) return 'exists';
  await db.raw(vectorIndexDdl(info.name, info.dims, { concurrently: true }));
  return 'built';
}
