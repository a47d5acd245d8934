/**
 * The shipped embedding model, loaded once per test file (jest gives each file its own modules), from
 * the folder `make models` fills and EMBEDDING_MODEL_DIR names by default.
 */
import { loadEmbedder, type Embedder } from '../../services/intelligence/embeddings';
import { testConfig } from './config';

let loaded: Promise<Embedder> | undefined;

export function testEmbedder(): Promise<Embedder> {
  const dir = testConfig({}, 'mcp').embeddingModelDir;
  if (!dir) throw new Error('EMBEDDING_MODEL_DIR is off: the tests need the shipped embedding model (make models)');
  return (loaded ??= loadEmbedder(dir, { threads: 1 }));
}
