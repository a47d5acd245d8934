/**
 * The sentence-embedding model run in-process by ONNX Runtime on the CPU: each text is tokenized, run
 * through the model on its own, pooled and scaled to unit length, one run at a time on the threads
 * given. One text a run, not padded batches: an int8 model quantises its activations with one scale
 * per run, so in a batch a text's vector would depend on the texts beside it; alone, a text always gets
 * the same vector, and with no padding to compute a run costs about what its share of a batch would
 * (docs/search.md).
 */
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { verifyModelFiles } from '../asr/models';
import { readEmbeddingManifest, type EmbeddingManifest } from './model-info';
import { pool, rowsOf } from './pool';
import { loadTokenizer, padBatch, type TextTokenizer } from './tokens';
import type { Embedder } from './index';

class OnnxEmbedder implements Embedder {
  readonly info: { name: string; dims: number };
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly m: EmbeddingManifest,
    private readonly session: ort.InferenceSession,
    private readonly tokenizer: TextTokenizer,
  ) {
    this.info = { name: m.name, dims: m.dims };
  }

  async embedPassages(texts: string[]): Promise<Float32Array[]> {
    return this.embed(texts.map((t) => this.m.passagePrefix + t));
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const [v] = await this.embed([this.m.queryPrefix + text]);
    return v;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.catch(() => undefined);
    await this.session.release();
  }

  private async embed(texts: string[]): Promise<Float32Array[]> {
    if (this.closed) throw new Error(`embedding model ${this.m.name} is closed`);
    const out: Float32Array[] = [];
    for (const text of texts) {
      const ids = this.tokenizer.encode(text);
      out.push(...(await this.serially(() => this.run([ids]))));
    }
    return out;
  }

  /** One model run at a time, so a process uses only the threads it was given. */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async run(rows: number[][]): Promise<Float32Array[]> {
    const batch = padBatch(rows);
    const shape = [batch.rows, batch.width];
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', batch.ids, shape),
      attention_mask: new ort.Tensor('int64', batch.mask, shape),
    };
    if (this.session.inputNames.includes('token_type_ids'))
      feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(batch.ids.length), shape);
    const result = await this.session.run(feeds, [this.m.output]);
    const output = result[this.m.output];
    const data = output.data as Float32Array;
    const dims = output.dims[output.dims.length - 1];
    if (dims !== this.m.dims)
      throw new Error(
        `embedding model ${this.m.name} gave vectors of ${dims} dimensions, model.json says ${this.m.dims}`,
      );
    const vectors =
      output.dims.length === 3
        ? pool(data, batch.mask, batch.rows, batch.width, dims, this.m.pooling)
        : rowsOf(data, batch.rows, dims);
    for (const t of Object.values(result)) t.dispose();
    return vectors;
  }
}

export async function loadOnnxEmbedder(dir: string, opts: { threads?: number } = {}): Promise<Embedder> {
  const m = readEmbeddingManifest(dir);
  await verifyModelFiles(m.dir, m.sha256);
  const threads = opts.threads ?? 1;
  const session = await ort.InferenceSession.create(join(m.dir, m.files.model), {
    executionProviders: ['cpu'],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  return new OnnxEmbedder(m, session, loadTokenizer(m));
}
