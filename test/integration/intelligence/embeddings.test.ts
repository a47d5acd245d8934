/**
 * The shipped sentence-embedding model (make models) against the upstream float model: the same
 * sentences embedded by a numpy forward pass of all-MiniLM-L6-v2's fp32 weights
 * (scripts/models/reference-embeddings.sh wrote test/fixtures/embeddings/reference.json). Then what
 * search relies on: unit length, a paraphrase nearer than an unrelated sentence, the same vector
 * however texts are grouped, and any text embedded (empty, or far past the model's longest input).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEmbedder, readEmbeddingModelInfo, type Embedder } from '../../../services/intelligence/embeddings';

const MODEL_DIR = join(__dirname, '..', '..', '..', '.models', 'all-minilm-l6-v2');
const REFERENCE = join(__dirname, '..', '..', 'fixtures', 'embeddings', 'reference.json');

/** The int8 model's smallest cosine to the float reference over the fixture (the empty text's). */
const EACH_AT_LEAST = 0.975;
/** And over all the fixture's sentences on average. */
const MEAN_AT_LEAST = 0.99;

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

if (!existsSync(join(MODEL_DIR, 'model.json'))) throw new Error(`${MODEL_DIR} is missing: run \`make models\``);

describe('the shipped embedding model', () => {
  let embedder: Embedder;
  const reference = JSON.parse(readFileSync(REFERENCE, 'utf8')) as {
    sentences: { text: string; vector: number[] }[];
  };

  beforeAll(async () => {
    embedder = await loadEmbedder(MODEL_DIR, { threads: 1 });
  });
  afterAll(() => embedder.close());

  it('names its model and dimensions from model.json alone', () => {
    expect(readEmbeddingModelInfo(MODEL_DIR)).toEqual({ name: 'all-minilm-l6-v2-int8', dims: 384 });
    expect(embedder.info).toEqual(readEmbeddingModelInfo(MODEL_DIR));
  });

  it('matches the upstream float model on every reference sentence', async () => {
    const vectors = await embedder.embedPassages(reference.sentences.map((s) => s.text));
    const cosines = vectors.map((v, i) => dot(v, reference.sentences[i].vector));
    const below = cosines.flatMap((cosine, i) =>
      cosine < EACH_AT_LEAST ? [{ text: reference.sentences[i].text.slice(0, 60), cosine }] : [],
    );
    expect(below).toEqual([]);
    expect(cosines.length).toBe(reference.sentences.length);
    expect(cosines.reduce((s, c) => s + c, 0) / cosines.length).toBeGreaterThanOrEqual(MEAN_AT_LEAST);
  });

  it('gives unit-length vectors of the model dimensions', async () => {
    const [v] = await embedder.embedPassages(['The release branch gets cut on Thursday.']);
    expect(v).toBeInstanceOf(Float32Array);
    expect(v.length).toBe(384);
    expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 5);
  });

  it('puts a paraphrase nearer a question than an unrelated sentence', async () => {
    const q = await embedder.embedQuery('Can we ship before the cert is renewed?');
    const [answer, unrelated] = await embedder.embedPassages([
      'The deploy is blocked until the certificate renews.',
      'I had pasta for lunch.',
    ]);
    expect(dot(q, answer)).toBeGreaterThan(dot(q, unrelated) + 0.3);
  });

  it('gives a text the same vector alone as in a batch, and again', async () => {
    const texts = ['Yes, Friday.', 'We should move the certificates into the shared vault.', 'Okay.'];
    const together = await embedder.embedPassages(texts);
    for (const [i, t] of texts.entries()) {
      const [alone] = await embedder.embedPassages([t]);
      expect(Array.from(alone)).toEqual(Array.from(together[i]));
    }
    expect(Array.from(await embedder.embedQuery(texts[0]))).toEqual(Array.from(together[0]));
  });

  it('embeds an empty text and one of ten thousand words (cut to the longest input)', async () => {
    const words = Array.from({ length: 10_000 }, (_, i) => ['invoice', 'reminder', 'schedule', 'payment'][i % 4]);
    const [empty, long, head, short] = await embedder.embedPassages([
      '',
      words.join(' '),
      words.slice(0, 300).join(' '),
      words.slice(0, 100).join(' '),
    ]);
    expect(Math.sqrt(dot(empty, empty))).toBeCloseTo(1, 5);
    // Only the first tokens count: past the longest input, every text with the same head is the same.
    expect(Array.from(long)).toEqual(Array.from(head));
    expect(Array.from(short)).not.toEqual(Array.from(head));
  });

  it('embeds a text of ten megabytes as quickly as its head', async () => {
    const huge = 'Payment reminders go out on Friday. '.repeat(300_000);
    const t0 = performance.now();
    const [v, head] = await embedder.embedPassages([huge, huge.slice(0, 20_000)]);
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(Array.from(v)).toEqual(Array.from(head));
  });

  it('answers an empty list with no vectors', async () => {
    await expect(embedder.embedPassages([])).resolves.toEqual([]);
  });
});

describe('a model folder that is wrong', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mi-embedding-model-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('says which file is missing and how to fetch it', async () => {
    expect(() => readEmbeddingModelInfo(dir)).toThrow(/model\.json is missing; run `make models`/);
    await expect(loadEmbedder(dir)).rejects.toThrow(/model\.json is missing/);
  });

  it('names the field of model.json that is malformed', () => {
    writeFileSync(join(dir, 'model.json'), JSON.stringify({ name: 'x', kind: 'sentence-embedding', dims: 0 }));
    expect(() => readEmbeddingModelInfo(dir)).toThrow(/model\.json: dims: /);
  });

  it('refuses a weights file whose sha256 differs from model.json', async () => {
    cpSync(MODEL_DIR, dir, { recursive: true });
    const m = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8'));
    writeFileSync(join(dir, m.files.tokenizerConfig), '{}');
    await expect(loadEmbedder(dir)).rejects.toThrow(/tokenizer_config\.json is altered .* run `make models`/);
  });
});
