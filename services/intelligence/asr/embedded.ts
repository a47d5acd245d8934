/**
 * The embedded speech engine (ASR_ENGINE=embedded, the default when ASR_URL is empty): sherpa-onnx in
 * this process, no server. Within the audio it is given (one chunk of a recording), Silero VAD finds
 * the speech; each stretch of speech is cut into pieces no longer than the model decodes well
 * (Moonshine answers empty text for pieces of about nine seconds or more), and every piece is decoded
 * off the event loop (decodeAsync) by one of a pool of recognizers, one thread each: on a small CPU
 * several single-threaded recognizers decoding different pieces beat one recognizer with several
 * threads. The pool is loaded once per process and shared by every chunk the worker runs.
 * Sentence times are the pieces' times (Moonshine gives no word times).
 *
 * Several models can be configured at once (routing.ts): each piece goes to the model that serves the
 * meeting's language, a Whisper model decodes in that language, and a Whisper model also detects the
 * language of a recording uploaded without one (detectLanguage).
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { OfflineRecognizer, SpokenLanguageIdentification, Vad } from 'sherpa-onnx-node';
import type { AsrSegment } from './openai-compatible';
import { loadVadModel, resolveFiles, verifyModelFiles, type SpeechModel, type VadModel } from './models';
import { collapseRepeats } from './repeats';
import { detectorOf, modelFor, readModels, unservedLanguage, type RoutedModel } from './routing';

export const SAMPLE_RATE = 16_000;
/** Silero VAD reads 512-sample windows at 16 kHz. */
const VAD_WINDOW = 512;
/** Audio fed to the VAD between two turns of the event loop (its work is synchronous). */
const VAD_SLICE_SAMPLES = 30 * SAMPLE_RATE;
/** A cut inside long speech goes at the quietest 20 ms of the last two seconds before the limit. */
const CUT_FRAME = SAMPLE_RATE / 50;
const CUT_SEARCH = 2 * SAMPLE_RATE;
/** Speech is decoded with a little of the audio around it: the VAD starts late on soft onsets. */
const PAD_SAMPLES = Math.round(0.15 * SAMPLE_RATE);

export interface EmbeddedSettings {
  /** SPEECH_MODELS_DIR */
  modelsDir: string;
  /** SPEECH_MODEL: the folder of the default model under modelsDir. */
  model: string;
  /** SPEECH_MODELS: more model folders, each optionally `=` its languages (routing.ts). */
  models?: string[];
  /** SPEECH_RECOGNIZERS: recognizers in each model's pool; 0 picks one per CPU the process may use. */
  recognizers: number;
}

export interface EmbeddedEngine {
  /** The default model (SPEECH_MODEL). */
  model: SpeechModel;
  /** Every configured model, the default first, in the order they are asked for a language. */
  models: RoutedModel[];
  vad: VadModel;
  recognizers: number;
  /** "embedded", the name of the model that serves the language and sherpa-onnx's version. */
  describe(language?: string): { engine: 'embedded'; model: string; runtime: string };
  /** The model that decodes this language (undefined: the default); throws when none serves it. */
  modelFor(language?: string): RoutedModel;
  /**
   * The speech of 16 kHz mono samples as timed segments (seconds from the first sample), decoded by
   * the model that serves `language` (undefined: the default model), in that language.
   */
  transcribe(samples: Float32Array, signal?: AbortSignal, language?: string): Promise<AsrSegment[]>;
  /**
   * The language of the first speech in the samples (up to DETECT_SECONDS of it), by the Whisper model
   * among the configured ones; undefined when none can detect or there is no speech.
   */
  detectLanguage(samples: Float32Array, signal?: AbortSignal): Promise<string | undefined>;
  /**
   * Run `work` (read a chunk's samples and transcribe them) when one of as many slots as there are
   * recognizers is free: more chunks at once would not decode faster, only hold more audio in memory.
   */
  withSlot<T>(work: () => Promise<T>): Promise<T>;
}

/** Speech heard before the language is decided: Whisper reads 30 s at most, and short clips detect poorly. */
export const DETECT_SECONDS = 28;
/** A Whisper piece with its appended silence stays under the 30 s sherpa-onnx reads. */
const WHISPER_MAX_SECONDS = 29.5;

/** Pieces of at most `max` samples: long speech is cut at its quietest frame before each limit. */
export function cutSpeech(
  samples: Float32Array,
  start: number,
  max: number,
): { start: number; samples: Float32Array }[] {
  const out: { start: number; samples: Float32Array }[] = [];
  let from = 0;
  while (samples.length - from > max) {
    let cut = from + max;
    let quietest = Infinity;
    for (let f = Math.max(from + max - CUT_SEARCH, from + CUT_FRAME); f + CUT_FRAME <= from + max; f += CUT_FRAME / 2) {
      let energy = 0;
      for (let i = f; i < f + CUT_FRAME; i++) energy += samples[i] * samples[i];
      if (energy < quietest) {
        quietest = energy;
        cut = f + CUT_FRAME / 2;
      }
    }
    out.push({ start: start + from, samples: samples.subarray(from, cut) });
    from = cut;
  }
  if (samples.length > from) out.push({ start: start + from, samples: samples.subarray(from) });
  return out;
}

/**
 * The stretches of speech Silero VAD finds in the samples, in order: views of `samples` (no copies),
 * with their starts in samples.
 */
export async function speechStretches(
  vad: Vad,
  samples: Float32Array,
  signal?: AbortSignal,
): Promise<{ start: number; samples: Float32Array }[]> {
  vad.reset();
  const found: { start: number; samples: Float32Array }[] = [];
  const drain = () => {
    while (!vad.isEmpty()) {
      const seg = vad.front();
      found.push({ start: seg.start, samples: samples.subarray(seg.start, seg.start + seg.samples.length) });
      vad.pop();
    }
  };
  for (let at = 0; at < samples.length; at += VAD_SLICE_SAMPLES) {
    signal?.throwIfAborted();
    const end = Math.min(samples.length, at + VAD_SLICE_SAMPLES);
    for (let w = at; w < end; w += VAD_WINDOW) vad.acceptWaveform(samples.subarray(w, Math.min(end, w + VAD_WINDOW)));
    drain();
    await new Promise((r) => setImmediate(r));
  }
  vad.flush();
  drain();
  return found;
}

/** A fixed set of items lent out one at a time; callers wait in order for a free one. */
class Pool<T> {
  private waiting: ((item: T) => void)[] = [];
  constructor(private free: T[]) {}
  async use<R>(work: (item: T) => Promise<R>): Promise<R> {
    const item = this.free.pop() ?? (await new Promise<T>((r) => this.waiting.push(r)));
    try {
      return await work(item);
    } finally {
      const next = this.waiting.shift();
      if (next) next(item);
      else this.free.push(item);
    }
  }
}

function recognizerConfig(model: SpeechModel, language?: string): Record<string, unknown> {
  const files = resolveFiles(model.modelConfig, model.dir) as Record<string, unknown>;
  const whisper = files.whisper as Record<string, unknown> | undefined;
  const modelConfig = whisper && language !== undefined ? { ...files, whisper: { ...whisper, language } } : files;
  return {
    featConfig: { sampleRate: SAMPLE_RATE, featureDim: model.featureDim },
    modelConfig: { ...modelConfig, numThreads: 1, provider: 'cpu', debug: 0 },
  };
}

const r3 = (n: number) => Math.round(n * 1000) / 1000;

/** A piece with silence appended (trailingSilence of the model.json), within Whisper's 30 s. */
function withSilence(samples: Float32Array, model: SpeechModel): Float32Array {
  if (!model.trailingSilence) return samples;
  const total = Math.min(
    Math.floor(WHISPER_MAX_SECONDS * SAMPLE_RATE),
    Math.round(samples.length * (1 + model.trailingSilence)),
  );
  if (total <= samples.length) return samples;
  const out = new Float32Array(total);
  out.set(samples);
  return out;
}

/** The speech stretches from the start, joined, up to `seconds` of speech. */
function firstSpeech(stretches: { samples: Float32Array }[], seconds: number): Float32Array {
  const max = Math.floor(seconds * SAMPLE_RATE);
  const parts: Float32Array[] = [];
  let n = 0;
  for (const s of stretches) {
    if (n >= max) break;
    const part = s.samples.subarray(0, max - n);
    parts.push(part);
    n += part.length;
  }
  const out = new Float32Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function load(settings: EmbeddedSettings): Promise<EmbeddedEngine> {
  // The native library is loaded with the engine, not with this module: the roles that never
  // transcribe (mcp, graphql) import the upload code that names the engine, and holding the library
  // from the start cost each of them resident memory for nothing.
  const sherpa = createRequire(__filename)('sherpa-onnx-node') as typeof import('sherpa-onnx-node');
  const [models, vadModel] = await Promise.all([
    Promise.all(
      readModels(settings).map(async (m) => {
        await verifyModelFiles(m.dir, m.sha256);
        return m;
      }),
    ),
    loadVadModel(settings.modelsDir),
  ]);
  const model = models[0];
  const count = settings.recognizers > 0 ? settings.recognizers : Math.max(1, availableParallelism());
  // A model's recognizers are loaded when it is first asked for: a worker that only ever hears
  // English never holds the multilingual model in memory. The default model loads at once.
  const pools = new Map<string, Promise<Pool<{ rec: OfflineRecognizer; language?: string }>>>();
  const poolOf = (m: RoutedModel) => {
    let pool = pools.get(m.folder);
    if (!pool) {
      const config = recognizerConfig(m);
      pool = Promise.all(Array.from({ length: count }, () => sherpa.OfflineRecognizer.createAsync(config))).then(
        (recs) => new Pool(recs.map((rec) => ({ rec }))),
      );
      pools.set(m.folder, pool);
      pool.catch(() => pools.delete(m.folder));
    }
    return pool;
  };
  await poolOf(model);
  const maxSegment = Math.max(...models.map((m) => m.maxSegmentSeconds));
  const vadConfig = {
    sileroVad: {
      model: join(vadModel.dir, vadModel.model),
      threshold: 0.5,
      minSilenceDuration: 0.3,
      minSpeechDuration: 0.25,
      maxSpeechDuration: maxSegment,
      windowSize: VAD_WINDOW,
    },
    sampleRate: SAMPLE_RATE,
    numThreads: 1,
    provider: 'cpu',
    debug: 0,
  };
  const vads = new Pool(Array.from({ length: count }, () => new sherpa.Vad(vadConfig, 60)));
  const slots = new Pool(Array.from({ length: count }, (_, i) => i));
  const detector = detectorOf(models);
  let identifier: SpokenLanguageIdentification | undefined;

  const modelForLanguage = (language?: string): RoutedModel => {
    if (!language) return model;
    const found = modelFor(models, language);
    if (!found) throw unservedLanguage('language', language, models);
    return found;
  };

  return {
    model,
    models,
    vad: vadModel,
    recognizers: count,
    describe: (language) => ({
      engine: 'embedded',
      model: modelForLanguage(language).name,
      runtime: `sherpa-onnx ${sherpa.version}`,
    }),
    modelFor: modelForLanguage,
    withSlot: (work) => slots.use(work),
    async detectLanguage(samples, signal) {
      if (!detector) return undefined;
      const stretches = await vads.use((vad) => speechStretches(vad, samples, signal));
      const speech = firstSpeech(stretches, DETECT_SECONDS);
      if (speech.length === 0) return undefined;
      const files = resolveFiles(detector.modelConfig, detector.dir) as { whisper: Record<string, unknown> };
      identifier ??= new sherpa.SpokenLanguageIdentification({
        whisper: { encoder: files.whisper.encoder, decoder: files.whisper.decoder },
        numThreads: 1,
        provider: 'cpu',
        debug: 0,
      });
      signal?.throwIfAborted();
      const stream = identifier.createStream();
      stream.acceptWaveform({ sampleRate: SAMPLE_RATE, samples: speech });
      return identifier.compute(stream) || undefined;
    },
    async transcribe(samples, signal, language) {
      const chosen = modelForLanguage(language);
      const pool = await poolOf(chosen);
      const whisperLanguage = chosen.modelConfig.whisper ? lowerLanguage(language) : undefined;
      const maxPiece = Math.floor(chosen.maxSegmentSeconds * SAMPLE_RATE);
      const stretches = await vads.use((vad) => speechStretches(vad, samples, signal));
      const pieces = stretches.flatMap((s) => {
        const from = Math.max(0, s.start - PAD_SAMPLES);
        const to = Math.min(samples.length, s.start + s.samples.length + PAD_SAMPLES);
        return cutSpeech(samples.subarray(from, to), from, maxPiece);
      });
      const texts = await Promise.all(
        pieces.map((p) =>
          pool.use(async (held) => {
            signal?.throwIfAborted();
            // A Whisper recognizer decodes in the meeting's language (empty: its own guess per piece).
            if (whisperLanguage !== undefined && held.language !== whisperLanguage) {
              held.rec.setConfig(recognizerConfig(chosen, whisperLanguage));
              held.language = whisperLanguage;
            }
            const stream = held.rec.createStream();
            stream.acceptWaveform({ sampleRate: SAMPLE_RATE, samples: withSilence(p.samples, chosen) });
            return (await held.rec.decodeAsync(stream)).text;
          }),
        ),
      );
      const out: AsrSegment[] = [];
      pieces.forEach((p, i) => {
        const text = collapseRepeats(texts[i].replace(/\s+/g, ' ').trim());
        if (text)
          out.push({ start: r3(p.start / SAMPLE_RATE), end: r3((p.start + p.samples.length) / SAMPLE_RATE), text });
      });
      return out;
    },
  };
}

const lowerLanguage = (language?: string) => (language ? language.toLowerCase().split('-')[0] : '');

const engines = new Map<string, Promise<EmbeddedEngine>>();

/** The process's engine for these settings: loaded (and its files checked) once, then shared. */
export function embeddedEngine(settings: EmbeddedSettings): Promise<EmbeddedEngine> {
  // No SPEECH_MODELS and an empty list are the same engine.
  const key = JSON.stringify({ ...settings, models: settings.models?.length ? settings.models : undefined });
  let engine = engines.get(key);
  if (!engine) {
    engine = load(settings);
    engines.set(key, engine);
    // A failed load (a missing file) is tried again by the next caller, after `make models`.
    engine.catch(() => engines.delete(key));
  }
  return engine;
}
