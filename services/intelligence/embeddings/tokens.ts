/**
 * Text to token ids with the model's own tokenizer.json (pure JS, no network), cut to the model's
 * longest input, and a batch of them padded into the tensors the ONNX graph takes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import type { EmbeddingManifest } from './model-info';

export interface TokenBatch {
  /** Row-major [rows, width]. */
  ids: BigInt64Array;
  mask: BigInt64Array;
  rows: number;
  width: number;
}

/** Characters of a text read per token the model takes (see encode). */
const CHARS_PER_TOKEN = 32;

export interface TextTokenizer {
  /** The ids of one text with the model's special tokens, at most maxTokens of them. */
  encode(text: string): number[];
}

export function loadTokenizer(m: EmbeddingManifest): TextTokenizer {
  const json = JSON.parse(readFileSync(join(m.dir, m.files.tokenizer), 'utf8')) as Record<string, unknown>;
  const config = m.files.tokenizerConfig
    ? (JSON.parse(readFileSync(join(m.dir, m.files.tokenizerConfig), 'utf8')) as Record<string, unknown>)
    : {};
  // Truncation and padding are done here, for every model alike, not by the file's own settings.
  const tokenizer = new Tokenizer({ ...json, truncation: null, padding: null }, config);
  const max = m.maxTokens;
  return {
    encode(text) {
      // Only the head is read: a word piece or an unknown word rarely spans more than a few dozen
      // characters, so the first maxTokens tokens lie well within this, and a huge text costs no more
      // to tokenize than a long one.
      const head = text.length > max * CHARS_PER_TOKEN ? text.slice(0, max * CHARS_PER_TOKEN) : text;
      const ids = tokenizer.encode(head).ids;
      if (ids.length <= max) return ids;
      // Keep the head and the closing special token ([SEP]) the model expects last.
      return [...ids.slice(0, max - 1), ids[ids.length - 1]];
    },
  };
}

/** Pads with id 0 and mask 0 to the longest row. */
export function padBatch(rows: number[][]): TokenBatch {
  const width = Math.max(...rows.map((r) => r.length));
  const ids = new BigInt64Array(rows.length * width);
  const mask = new BigInt64Array(rows.length * width);
  rows.forEach((row, r) => {
    row.forEach((id, i) => {
      ids[r * width + i] = BigInt(id);
      mask[r * width + i] = 1n;
    });
  });
  return { ids, mask, rows: rows.length, width };
}
