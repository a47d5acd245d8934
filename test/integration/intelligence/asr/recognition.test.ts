/**
 * The embedded engine on real human speech with the default model from `make models`: word error
 * rates on the LibriVox utterances and on the pyannote telephone call, silence and noise alone make
 * no words, pieces of speech stay under the model's limit, and a missing or altered model file is
 * refused naming the file and `make models`.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cutSpeech, embeddedEngine, loadSpeechModel, type EmbeddedEngine } from '../../../../services/intelligence/asr';
import { runCli } from '../../../support/cli';
import {
  librivox,
  MODELS_DIR,
  PYANNOTE_DIR,
  pyannoteReference,
  requireSpeechData,
  wavSamples,
} from '../../../support/speech';
import { wordErrorRate } from '../../../support/wer';

requireSpeechData();

let engine: EmbeddedEngine;
beforeAll(async () => {
  engine = await embeddedEngine({ modelsDir: MODELS_DIR, model: 'moonshine-tiny-en', recognizers: 0 });
}, 60_000);

const textOf = (segments: { text: string }[]) => segments.map((s) => s.text).join(' ');

describe('the embedded engine on real speech', () => {
  it('transcribes the LibriVox utterances with a word error rate of at most 10 %', async () => {
    const pairs = [];
    for (const u of librivox())
      pairs.push({ reference: u.reference, hypothesis: textOf(await engine.transcribe(wavSamples(u.path))) });
    const { wer, words } = wordErrorRate(pairs);
    expect(words).toBe(71);
    expect(wer).toBeLessThanOrEqual(0.1);
  });

  it('transcribes the two-person telephone call with a word error rate of at most 35 %, its segments in order inside the call', async () => {
    const samples = wavSamples(join(PYANNOTE_DIR, 'sample.wav'));
    const segments = await engine.transcribe(samples);
    const { wer } = wordErrorRate([{ reference: pyannoteReference(), hypothesis: textOf(segments) }]);
    expect(wer).toBeLessThanOrEqual(0.35);
    // The call's first word is said at 6.7 s: nothing is heard before the first speech.
    expect(segments[0].start).toBeGreaterThan(6);
    expect(segments[0].start).toBeLessThan(7.2);
    for (let i = 1; i < segments.length; i++) expect(segments[i].start).toBeGreaterThanOrEqual(segments[i - 1].start);
    for (const s of segments) expect(s.end - s.start).toBeLessThanOrEqual(engine.model.maxSegmentSeconds + 0.001);
    expect(segments[segments.length - 1].end).toBeLessThanOrEqual(samples.length / 16000 + 0.001);
  });

  it('hears no words in silence or in noise alone', async () => {
    const silence = new Float32Array(16000 * 12);
    expect(await engine.transcribe(silence)).toEqual([]);
    let seed = 7;
    const noise = Float32Array.from(
      { length: 16000 * 12 },
      () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5) * 0.02,
    );
    expect(await engine.transcribe(noise)).toEqual([]);
  });
});

describe('long speech is cut under the model limit', () => {
  it('cuts at the quietest frame before each limit, never longer than the limit, keeping every sample', () => {
    const rate = 16000;
    const samples = Float32Array.from({ length: rate * 20 }, (_, i) =>
      i >= rate * 7 && i < rate * 7.1 ? 0 : Math.sin(i / 5),
    );
    const pieces = cutSpeech(samples, 1000, rate * 8);
    expect(pieces.every((p) => p.samples.length <= rate * 8)).toBe(true);
    expect(pieces.reduce((n, p) => n + p.samples.length, 0)).toBe(samples.length);
    // The quiet tenth of a second at 7 s is where the first cut goes.
    expect(pieces[0].samples.length / rate).toBeGreaterThanOrEqual(7);
    expect(pieces[0].samples.length / rate).toBeLessThanOrEqual(7.1);
    expect(pieces[1].start).toBe(1000 + pieces[0].samples.length);
    // Exactly at the limit: one piece; a sample more: two.
    expect(cutSpeech(samples.subarray(0, rate * 8), 0, rate * 8)).toHaveLength(1);
    expect(cutSpeech(samples.subarray(0, rate * 8 + 1), 0, rate * 8)).toHaveLength(2);
  });
});

describe('model files', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mi-models-'));
    cpSync(join(MODELS_DIR, 'moonshine-tiny-en'), join(dir, 'moonshine-tiny-en'), { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a missing model folder, a missing file and an altered one, naming the file and make models', async () => {
    await expect(loadSpeechModel(dir, 'parakeet')).rejects.toThrow(
      /parakeet\/model\.json is missing; run `make models`/,
    );
    writeFileSync(join(dir, 'moonshine-tiny-en', 'tokens.txt'), 'x 0\n');
    await expect(loadSpeechModel(dir, 'moonshine-tiny-en')).rejects.toThrow(
      /tokens\.txt is altered .*run `make models`/,
    );
    rmSync(join(dir, 'moonshine-tiny-en', 'encoder_model.ort'));
    await expect(loadSpeechModel(dir, 'moonshine-tiny-en')).rejects.toThrow(
      /encoder_model\.ort is missing; run `make models`/,
    );
  });

  it('stops a worker at start, before it polls, naming the file and make models', async () => {
    const env = {
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      SECRETS_KEY: '0'.repeat(64),
      SPEECH_MODELS_DIR: dir,
      LOG_LEVEL: 'fatal',
    };
    const res = await runCli(['serve', 'worker'], env);
    expect(res.code).toBe(1);
    expect(`${res.stdout}${res.stderr}`).toMatch(/encoder_model\.ort is missing; run `make models`/);
  }, 60_000);
});
