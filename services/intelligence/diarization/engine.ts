/**
 * Speaker diarization of a one-channel recording with sherpa-onnx's OfflineSpeakerDiarization: pyannote
 * segmentation-3.0 finds who speaks when within 10-second windows, 3D-Speaker CAM++ embeds each local
 * speaker, and agglomerative clustering of the embeddings joins them across the recording.
 *
 * The models load once per process (the first call) and are kept. The number of speakers is estimated
 * by the clustering threshold tuned in docs/speakers.md unless the caller knows it (`speakerCount`), and
 * an upper bound (`maxSpeakers`, e.g. the attendee count) re-clusters to that many when the estimate
 * exceeds it. `diarize` is synchronous and CPU-bound: call it from a worker thread or an activity that
 * does nothing else meanwhile.
 */
import { createRequire } from 'node:module';
import type { SpeakerTurn } from './assign';
import { diarizationModels, type DiarizationModels } from './models';

/**
 * Cosine-distance threshold of the clustering: two clusters closer than this are one speaker. Tuned on
 * espeak-ng conversations of two to four voices and checked on pyannote's sample (docs/speakers.md).
 */
export const DIARIZATION_THRESHOLD = 0.5;
/** The most speakers a caller may ask for; more is taken for a mistake, not a meeting. */
export const MAX_SPEAKERS = 50;
export const DIARIZATION_SAMPLE_RATE = 16000;

export interface Audio {
  /** Mono samples in [-1, 1]. */
  samples: Float32Array;
  sampleRate: number;
}

export interface DiarizeOptions {
  /** The exact number of speakers, when the upload says it. */
  speakerCount?: number;
  /** At most this many speakers (the attendee list), when the count is estimated. */
  maxSpeakers?: number;
  /** Overrides DIARIZATION_THRESHOLD (for tuning). */
  threshold?: number;
  models?: DiarizationModels;
}

interface SherpaDiarizer {
  process(samples: Float32Array): { start: number; end: number; speaker: number }[];
  setConfig(config: { clustering: { numClusters: number; threshold: number } }): void;
}
interface SherpaEmbedder {
  createStream(): { acceptWaveform(audio: Audio): void; inputFinished(): void };
  compute(stream: ReturnType<SherpaEmbedder['createStream']>, enableExternalBuffer?: boolean): Float32Array;
}
interface Sherpa {
  OfflineSpeakerDiarization: new (config: unknown) => SherpaDiarizer;
  SpeakerEmbeddingExtractor: new (config: unknown) => SherpaEmbedder;
  readWave(path: string): Audio;
}

let sherpa: Sherpa | null = null;
const diarizers = new Map<string, SherpaDiarizer>();
const embedders = new Map<string, SherpaEmbedder>();

function load(): Sherpa {
  sherpa ??= createRequire(__filename)('sherpa-onnx-node') as Sherpa;
  return sherpa;
}

/** sherpa-onnx's OfflineSpeakerDiarization configuration for `models` (also used by the worker thread). */
export function diarizerConfig(models: DiarizationModels) {
  return {
    // One thread each: on a small machine, parallel recordings use the cores better than threads do.
    segmentation: { pyannote: { model: models.segmentation }, numThreads: 1 },
    embedding: { model: models.embedding, numThreads: 1 },
    clustering: { numClusters: -1, threshold: DIARIZATION_THRESHOLD },
    // Speech shorter than minDurationOn is dropped; gaps shorter than minDurationOff are bridged.
    minDurationOn: 0.3,
    minDurationOff: 0.5,
  };
}

function diarizer(models: DiarizationModels): SherpaDiarizer {
  const key = `${models.segmentation}\n${models.embedding}`;
  let d = diarizers.get(key);
  if (!d) {
    d = new (load().OfflineSpeakerDiarization)(diarizerConfig(models));
    diarizers.set(key, d);
  }
  return d;
}

export function checkCount(field: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isInteger(value) && value >= 1 && value <= MAX_SPEAKERS)) {
    throw new Error(`${field}: must be an integer from 1 to ${MAX_SPEAKERS}, got ${value}`);
  }
}

/** Turns sorted by start, speakers renumbered 0, 1, … in order of first appearance. */
export function normalise(raw: { start: number; end: number; speaker: number }[]): SpeakerTurn[] {
  const sorted = [...raw].sort((a, b) => a.start - b.start || a.end - b.end);
  const ids = new Map<number, number>();
  return sorted.map((t) => {
    if (!ids.has(t.speaker)) ids.set(t.speaker, ids.size);
    return { start: t.start, end: t.end, speaker: ids.get(t.speaker)! };
  });
}

/** Checks the audio and options of a diarization; returns the clustering threshold to use. */
export function checkDiarizeInput(audio: Audio, options: DiarizeOptions): number {
  // By tag, not instanceof: arrays made by the native addon or another realm (a test runner's) qualify.
  if (Object.prototype.toString.call(audio.samples) !== '[object Float32Array]')
    throw new Error('samples: must be a Float32Array of mono samples');
  if (audio.sampleRate !== DIARIZATION_SAMPLE_RATE)
    throw new Error(`sampleRate: must be ${DIARIZATION_SAMPLE_RATE} (resample first), got ${audio.sampleRate}`);
  checkCount('speakerCount', options.speakerCount);
  checkCount('maxSpeakers', options.maxSpeakers);
  const threshold = options.threshold ?? DIARIZATION_THRESHOLD;
  if (!(threshold > 0 && threshold < 2))
    throw new Error(`threshold: must be a cosine distance between 0 and 2, got ${threshold}`);
  return threshold;
}

export function diarize(audio: Audio, options: DiarizeOptions = {}): SpeakerTurn[] {
  const threshold = checkDiarizeInput(audio, options);
  if (audio.samples.length === 0) return [];
  const d = diarizer(options.models ?? diarizationModels());
  const run = (numClusters: number) => {
    d.setConfig({ clustering: { numClusters, threshold } });
    return normalise(d.process(audio.samples));
  };
  if (options.speakerCount !== undefined) return run(options.speakerCount);
  const turns = run(-1);
  const found = new Set(turns.map((t) => t.speaker)).size;
  if (options.maxSpeakers !== undefined && found > options.maxSpeakers) return run(options.maxSpeakers);
  return turns;
}

/** Voice embeddings use at most this much of a speaker's speech, longest turns first. */
const EMBEDDING_SECONDS = 30;

/**
 * One voice embedding per speaker of `turns` (CAM++, the diarization's own embedding model), from that
 * speaker's longest turns up to EMBEDDING_SECONDS, for linkSpeakers across chunks. Speakers with no
 * sound in `audio` are left out.
 */
/**
 * The audio each speaker of `turns` is embedded from: its longest turns, up to EMBEDDING_SECONDS.
 * Speakers with no sound in `audio` are left out.
 */
export function embeddingPieces(audio: Audio, turns: readonly SpeakerTurn[]): Map<number, Float32Array[]> {
  if (audio.sampleRate !== DIARIZATION_SAMPLE_RATE)
    throw new Error(`sampleRate: must be ${DIARIZATION_SAMPLE_RATE} (resample first), got ${audio.sampleRate}`);
  const out = new Map<number, Float32Array[]>();
  for (const speaker of [...new Set(turns.map((t) => t.speaker))].sort((a, b) => a - b)) {
    const own = turns.filter((t) => t.speaker === speaker).sort((a, b) => b.end - b.start - (a.end - a.start));
    const pieces: Float32Array[] = [];
    let left = EMBEDDING_SECONDS * audio.sampleRate;
    for (const t of own) {
      const from = Math.max(0, Math.round(t.start * audio.sampleRate));
      const to = Math.min(audio.samples.length, Math.round(t.end * audio.sampleRate), from + left);
      if (to <= from) continue;
      pieces.push(audio.samples.slice(from, to));
      left -= to - from;
      if (left <= 0) break;
    }
    if (pieces.length > 0) out.set(speaker, pieces);
  }
  return out;
}

/**
 * One voice embedding per speaker of `turns` (CAM++, the diarization's own embedding model), from that
 * speaker's longest turns up to EMBEDDING_SECONDS, for linkSpeakers across chunks. Speakers with no
 * sound in `audio` are left out.
 */
export function speakerEmbeddings(
  audio: Audio,
  turns: readonly SpeakerTurn[],
  models: DiarizationModels = diarizationModels(),
): Map<number, Float32Array> {
  let embedder = embedders.get(models.embedding);
  if (!embedder) {
    embedder = new (load().SpeakerEmbeddingExtractor)({ model: models.embedding, numThreads: 1 });
    embedders.set(models.embedding, embedder);
  }
  const out = new Map<number, Float32Array>();
  for (const [speaker, pieces] of embeddingPieces(audio, turns)) {
    const stream = embedder.createStream();
    for (const samples of pieces) stream.acceptWaveform({ samples, sampleRate: audio.sampleRate });
    stream.inputFinished();
    out.set(speaker, Float32Array.from(embedder.compute(stream, false)));
  }
  return out;
}

/** Reads a WAV file (any PCM rate sherpa-onnx reads) as mono float samples. */
export function readWave(path: string): Audio {
  return load().readWave(path);
}
