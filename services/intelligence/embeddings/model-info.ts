/**
 * The embedding model's description: a model.json beside its weights, written by `make models`
 * (models/manifest.json) or by an operator who brings another model. Reading it loads no weights, so
 * the service can learn a model's name and dimensions (what its stored vectors record) cheaply.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { FETCH_COMMAND, ModelFileError } from '../asr/models';

const embeddingManifest = z.object({
  name: z.string().min(1),
  kind: z.literal('sentence-embedding'),
  dims: z.number().int().positive(),
  /** How token states become one vector: the attention-masked mean, or the first ([CLS]) token. */
  pooling: z.enum(['mean', 'cls']),
  /** Longer texts are cut to this many tokens, the special tokens included. */
  maxTokens: z.number().int().min(8).max(8192),
  /** Put before a question (e.g. an instruction some models were trained with) and before a passage. */
  queryPrefix: z.string().default(''),
  passagePrefix: z.string().default(''),
  files: z.object({
    /** ONNX graph taking input_ids and attention_mask (and token_type_ids if it declares them). */
    model: z.string().min(1),
    /** The Hugging Face tokenizer.json, and optionally its tokenizer_config.json. */
    tokenizer: z.string().min(1),
    tokenizerConfig: z.string().min(1).optional(),
  }),
  /** The graph's output of token states ([batch, tokens, dims]) or sentence vectors ([batch, dims]). */
  output: z.string().min(1),
  sha256: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)).default({}),
});

export type EmbeddingManifest = z.infer<typeof embeddingManifest> & { dir: string };

/** EMBEDDING_MODEL_DIR: relative paths from the working directory. */
export const modelDir = (dir: string) => (isAbsolute(dir) ? dir : resolve(process.cwd(), dir));

export function readEmbeddingManifest(dir: string): EmbeddingManifest {
  const root = modelDir(dir);
  const file = join(root, 'model.json');
  if (!existsSync(file))
    throw new ModelFileError(
      `embedding model (EMBEDDING_MODEL_DIR): ${file} is missing; run \`${FETCH_COMMAND}\` (or put the model's folder with its model.json there, see docs/search.md)`,
    );
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ModelFileError(`embedding model: ${file} is not JSON (${(e as Error).message})`);
  }
  const parsed = embeddingManifest.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ModelFileError(`embedding model: ${file}: ${issue.path.join('.') || 'manifest'}: ${issue.message}`);
  }
  return { ...parsed.data, dir: root };
}
