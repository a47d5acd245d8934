/**
 * The embedded speech engine (ASR_ENGINE=embedded, the default when ASR_URL is empty): sherpa-onnx in
 * this process, no server. Within the audio it is given (one chunk of a recording), Silero VAD finds
 * the speech; each stretch of speech is cut into pieces no longer than the model decodes well
 * (Moonshine answers empty text for pieces of about nine seconds or more), and every piece is decoded
 * off the event loop (decodeAsync) by one of a pool of recognizers, one thread each: on a small CPU
 * several single-threaded recognizers decoding different pieces beat one recognizer with several
 * threads. The pool is loaded once per process and shared by every chunk the worker runs.
 * Sentence times are the pieces' times (Moonshine gives no word times).
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { OfflineRecognizer, Vad, version as sherpaVersion } from 'sherpa-onnx-node';
import type { AsrSegment } from './openai-compatible';
import { loadSpeechModel, loadVadModel, resolveFiles, type SpeechModel, type VadModel } from './models';

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
  /** SPEECH_MODEL: the folder of the model under modelsDir. */
  model: string;
  /** SPEECH_RECOGNIZERS: recognizers in the pool; 0 picks one per CPU the process may use. */
  recognizers: number;
}

export interface EmbeddedEngine {
  model: SpeechModel;
  vad: VadModel;
  recognizers: number;
  /** "embedded", the model's name and sherpa-onnx's version, for meeting_info and the logs. */
  describe(): { engine: 'embedded'; model: string; runtime: string };
  /** The speech of 16 kHz mono samples as timed segments (seconds from the first sample). */
  transcribe(samples: Float32Array, signal?: AbortSignal): Promise<AsrSegment[]>;
  /**
   * Run `work` (read a chunk's samples and transcribe them) when one of as many slots as there are
   * recognizers is free: more chunks at once would not decode faster, only hold more audio in memory.
   */
  withSlot<T>(work: () => Promise<T>): Promise<T>;
}

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

function recognizerConfig(model: SpeechModel): Record<string, unknown> {
  const files = resolveFiles(model.modelConfig, model.dir);
  return {
    featConfig: { sampleRate: SAMPLE_RATE, featureDim: model.featureDim },
    modelConfig: { ...files, numThreads: 1, provider: 'cpu', debug: 0 },
  };
}

const r3 = (n: number) => Math.round(n * 1000) / 1000;

async function load(settings: EmbeddedSettings): Promise<EmbeddedEngine> {
  const [model, vadModel] = await Promise.all([
    loadSpeechModel(settings.modelsDir, settings.model),
    loadVadModel(settings.modelsDir),
  ]);
  const count = settings.recognizers > 0 ? settings.recognizers : Math.max(1, availableParallelism());
  const config = recognizerConfig(model);
  const recognizers = await Promise.all(Array.from({ length: count }, () => OfflineRecognizer.createAsync(config)));
  const pool = new Pool(recognizers);
  const vadConfig = {
    sileroVad: {
      model: join(vadModel.dir, vadModel.model),
      threshold: 0.5,
      minSilenceDuration: 0.3,
      minSpeechDuration: 0.25,
      maxSpeechDuration: model.maxSegmentSeconds,
      windowSize: VAD_WINDOW,
    },
    sampleRate: SAMPLE_RATE,
    numThreads: 1,
    provider: 'cpu',
    debug: 0,
  };
  const vads = new Pool(Array.from({ length: count }, () => new Vad(vadConfig, 60)));
  const slots = new Pool(Array.from({ length: count }, (_, i) => i));
  const maxPiece = Math.floor(model.maxSegmentSeconds * SAMPLE_RATE);

  return {
    model,
    vad: vadModel,
    recognizers: count,
    describe: () => ({ engine: 'embedded', model: model.name, runtime: `sherpa-onnx ${sherpaVersion}` }),
    withSlot: (work) => slots.use(work),
    async transcribe(samples, signal) {
      const stretches = await vads.use((vad) => speechStretches(vad, samples, signal));
      const pieces = stretches.flatMap((s) => {
        const from = Math.max(0, s.start - PAD_SAMPLES);
        const to = Math.min(samples.length, s.start + s.samples.length + PAD_SAMPLES);
        return cutSpeech(samples.subarray(from, to), from, maxPiece);
      });
      const texts = await Promise.all(
        pieces.map((p) =>
          pool.use(async (rec) => {
            signal?.throwIfAborted();
            const stream = rec.createStream();
            stream.acceptWaveform({ sampleRate: SAMPLE_RATE, samples: p.samples });
            return (await rec.decodeAsync(stream)).text;
          }),
        ),
      );
      const out: AsrSegment[] = [];
      pieces.forEach((p, i) => {
        const text = texts[i].replace(/\s+/g, ' ').trim();
        if (text)
          out.push({ start: r3(p.start / SAMPLE_RATE), end: r3((p.start + p.samples.length) / SAMPLE_RATE), text });
      });
      return out;
    },
  };
}

const engines = new Map<string, Promise<EmbeddedEngine>>();

/** The process's engine for these settings: loaded (and its files checked) once, then shared. */
export function embeddedEngine(settings: EmbeddedSettings): Promise<EmbeddedEngine> {
  const key = JSON.stringify(settings);
  let engine = engines.get(key);
  if (!engine) {
    engine = load(settings);
    engines.set(key, engine);
    // A failed load (a missing file) is tried again by the next caller, after `make models`.
    engine.catch(() => engines.delete(key));
  }
  return engine;
}
