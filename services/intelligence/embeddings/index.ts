/**
 * Sentence embeddings: the model that turns a passage or a question into a vector, so that search can
 * rank moments by meaning. The model runs in-process from a folder with a model.json (docs/search.md);
 * nothing is downloaded at run time.
 */
import { readEmbeddingManifest } from './model-info';

export interface EmbeddingModelInfo {
  name: string;
  dims: number;
}

export interface Embedder {
  readonly info: EmbeddingModelInfo;
  /** Unit-length vectors, one per text, for stored passages. */
  embedPassages(texts: string[]): Promise<Float32Array[]>;
  /** A unit-length vector for a question (adds the model's query prefix, if any). */
  embedQuery(text: string): Promise<Float32Array>;
  close(): Promise<void>;
}

/**
 * Loads the model of the folder (checking its files' sha256) to run on `threads` CPU threads (1).
 * ONNX Runtime's native library is loaded here, on first use, not on import: a process that never
 * embeds (or only reads the model's name) does not carry it.
 */
export async function loadEmbedder(dir: string, opts?: { threads?: number }): Promise<Embedder> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (above)
  const { loadOnnxEmbedder } = require('./embedder') as typeof import('./embedder');
  return loadOnnxEmbedder(dir, opts);
}

/** The model's name and dimensions from its model.json only, without loading the weights. */
export function readEmbeddingModelInfo(dir: string): EmbeddingModelInfo {
  const m = readEmbeddingManifest(dir);
  return { name: m.name, dims: m.dims };
}
