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
export const DIARIZATION_THRESHOLD = 0.36;
/**
 * How far the 10-second segmentation window moves each step, as a fraction of the window. Every window
 * embeds each of its local speakers with CAM++, so the embedding work (most of diarization's CPU) grows
 * as the inverse of the shift; clustering the embeddings, not overlapping windows, joins a voice across
 * windows (docs/speakers.md).
 */
export const DIARIZATION_WINDOW_SHIFT = 1;
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
  /** Overrides DIARIZATION_WINDOW_SHIFT (for tuning). */
  windowShift?: number;
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
export function diarizerConfig(models: DiarizationModels, windowShift = DIARIZATION_WINDOW_SHIFT) {
  return {
    // One thread each: on a small machine, parallel recordings use the cores better than threads do.
    segmentation: { pyannote: { model: models.segmentation, windowShiftRatio: windowShift }, numThreads: 1 },
    embedding: { model: models.windowEmbedding, numThreads: 1 },
    clustering: { numClusters: -1, threshold: DIARIZATION_THRESHOLD },
    // Speech shorter than minDurationOn is dropped; gaps shorter than minDurationOff are bridged.
    minDurationOn: 0.3,
    minDurationOff: 0.5,
  };
}

function diarizer(models: DiarizationModels, windowShift = DIARIZATION_WINDOW_SHIFT): SherpaDiarizer {
  const key = `${models.segmentation}\n${models.windowEmbedding}\n${windowShift}`;
  let d = diarizers.get(key);
  if (!d) {
    d = new (load().OfflineSpeakerDiarization)(diarizerConfig(models, windowShift));
    diarizers.set(key, d);
  }
  return d;
}

export function checkCount(field: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isInteger(value) && value >= 1 && value <= MAX_SPEAKERS)) {
    throw new Error(`${field}: must be an integer from 1 to ${MAX_SPEAKERS}, got ${value}`);
  }
}

/**
 * Turns sorted by start, speakers renumbered 0, 1, … in order of first appearance; one speaker's turns
 * that touch or overlap become one turn.
 */
export function normalise(raw: readonly { start: number; end: number; speaker: number }[]): SpeakerTurn[] {
  const bySpeaker = [...raw].sort((a, b) => a.speaker - b.speaker || a.start - b.start);
  const joined: SpeakerTurn[] = [];
  for (const t of bySpeaker) {
    const last = joined[joined.length - 1];
    if (last && last.speaker === t.speaker && t.start <= last.end) last.end = Math.max(last.end, t.end);
    else joined.push({ start: t.start, end: t.end, speaker: t.speaker });
  }
  joined.sort((a, b) => a.start - b.start || a.end - b.end);
  const ids = new Map<number, number>();
  return joined.map((t) => {
    if (!ids.has(t.speaker)) ids.set(t.speaker, ids.size);
    return { start: t.start, end: t.end, speaker: ids.get(t.speaker)! };
  });
}

/** The segmentation model's window (segmentation-3.0's metadata: 160,000 samples at 16 kHz). */
export const SEGMENTATION_WINDOW_SECONDS = 10;
/** A turn this short, cut off by a window's edge, is taken for the rest of the turn across the edge. */
const EDGE_FRAGMENT_SECONDS = 1;
/** How near a window's edge (the model's frames and their offset) a cut counts as the edge. */
const EDGE_TOLERANCE_SECONDS = 0.1;

/**
 * With windows side by side (a shift of one window), a turn that crosses a window's edge is embedded
 * in two pieces, and a short piece gives an unsure embedding that may be clustered to another speaker
 * or to one of its own. So a turn of at most EDGE_FRAGMENT_SECONDS that begins (ends) at an edge,
 * right where another speaker's turn ends (begins), is given that speaker. With overlapping windows every frame is seen in several windows and this
 * does not apply. Speakers left with no turn are dropped and the rest renumbered as `normalise` does.
 */
export function mendWindowEdges(turns: readonly SpeakerTurn[], windowShift: number): SpeakerTurn[] {
  if (windowShift < 1) return [...turns];
  const step = SEGMENTATION_WINDOW_SECONDS * windowShift;
  const atEdge = (t: number) => {
    const edge = Math.round(t / step) * step;
    return edge > 0 && Math.abs(t - edge) <= EDGE_TOLERANCE_SECONDS;
  };
  const touching = (a: number, b: number) => Math.abs(a - b) <= 2 * EDGE_TOLERANCE_SECONDS;
  const out = turns.map((t) => ({ ...t }));
  for (const t of out) {
    if (t.end - t.start > EDGE_FRAGMENT_SECONDS) continue;
    const continued = atEdge(t.start)
      ? out.find((p) => p.speaker !== t.speaker && atEdge(p.end) && touching(p.end, t.start))
      : atEdge(t.end)
        ? out.find((n) => n.speaker !== t.speaker && atEdge(n.start) && touching(t.end, n.start))
        : undefined;
    if (continued) t.speaker = continued.speaker;
  }
  return normalise(out);
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
  const shift = options.windowShift;
  if (shift !== undefined && !(shift > 0 && shift <= 1))
    throw new Error(`windowShift: must be a fraction of the window above 0 and at most 1, got ${shift}`);
  return threshold;
}

export function diarize(audio: Audio, options: DiarizeOptions = {}): SpeakerTurn[] {
  const threshold = checkDiarizeInput(audio, options);
  if (audio.samples.length === 0) return [];
  const models = options.models ?? diarizationModels();
  const d = diarizer(models, options.windowShift);
  const shift = options.windowShift ?? DIARIZATION_WINDOW_SHIFT;
  const run = (numClusters: number) => {
    d.setConfig({ clustering: { numClusters, threshold } });
    return mendWindowEdges(normalise(d.process(audio.samples)), shift);
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
 * A voice is embedded in pieces of at most this much speech, the segmentation window's length: the
 * embedding model's working memory grows with its input, and a mean of window-long pieces is as steady
 * a voice as one long input (docs/speakers.md).
 */
export const VOICE_PIECE_SECONDS = SEGMENTATION_WINDOW_SECONDS;

/**
 * The audio each speaker of `turns` is embedded from: its longest turns, up to EMBEDDING_SECONDS,
 * joined and cut in equal pieces of at most VOICE_PIECE_SECONDS. Speakers with no sound in `audio` are
 * left out.
 */
export function embeddingPieces(audio: Audio, turns: readonly SpeakerTurn[]): Map<number, Float32Array[]> {
  if (audio.sampleRate !== DIARIZATION_SAMPLE_RATE)
    throw new Error(`sampleRate: must be ${DIARIZATION_SAMPLE_RATE} (resample first), got ${audio.sampleRate}`);
  const out = new Map<number, Float32Array[]>();
  for (const speaker of [...new Set(turns.map((t) => t.speaker))].sort((a, b) => a - b)) {
    const own = turns.filter((t) => t.speaker === speaker).sort((a, b) => b.end - b.start - (a.end - a.start));
    const spans: [number, number][] = [];
    let left = EMBEDDING_SECONDS * audio.sampleRate;
    for (const t of own) {
      const from = Math.max(0, Math.round(t.start * audio.sampleRate));
      const to = Math.min(audio.samples.length, Math.round(t.end * audio.sampleRate), from + left);
      if (to <= from) continue;
      spans.push([from, to]);
      left -= to - from;
      if (left <= 0) break;
    }
    if (spans.length === 0) continue;
    const speech = new Float32Array(spans.reduce((n, [from, to]) => n + to - from, 0));
    let at = 0;
    for (const [from, to] of spans) {
      speech.set(audio.samples.subarray(from, to), at);
      at += to - from;
    }
    const count = Math.ceil(speech.length / (VOICE_PIECE_SECONDS * audio.sampleRate));
    const pieces: Float32Array[] = [];
    for (let i = 0; i < count; i++)
      pieces.push(speech.slice(Math.round((i * speech.length) / count), Math.round(((i + 1) * speech.length) / count)));
    out.set(speaker, pieces);
  }
  return out;
}

/** A speaker's voice from the embeddings of its pieces: the direction of their unit vectors' mean. */
export function meanVoice(embeddings: readonly ArrayLike<number>[]): Float32Array {
  if (embeddings.length === 0) throw new Error('embeddings: at least one is needed');
  const sum = new Float32Array(embeddings[0].length);
  for (const e of embeddings) {
    if (e.length !== sum.length) throw new Error(`embeddings: all must have ${sum.length} values, got ${e.length}`);
    let n = 0;
    for (let i = 0; i < e.length; i++) n += e[i] * e[i];
    n = Math.sqrt(n);
    if (!(n > 0)) throw new Error('embeddings: each must be a non-zero vector');
    for (let i = 0; i < e.length; i++) sum[i] += e[i] / n;
  }
  let n = 0;
  for (const x of sum) n += x * x;
  n = Math.sqrt(n);
  return sum.map((x) => x / n);
}

/**
 * One voice embedding per speaker of `turns` (CAM++), from that speaker's longest turns up to
 * EMBEDDING_SECONDS, embedded piece by piece (embeddingPieces) and averaged (meanVoice), for linkSpeakers
 * across chunks and for voiceprints. Speakers with no sound in `audio` are left out.
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
    const embeddings = pieces.map((samples) => {
      const stream = embedder.createStream();
      stream.acceptWaveform({ samples, sampleRate: audio.sampleRate });
      stream.inputFinished();
      return embedder.compute(stream, false);
    });
    out.set(speaker, meanVoice(embeddings));
  }
  return out;
}

/** Reads a WAV file (any PCM rate sherpa-onnx reads) as mono float samples. */
export function readWave(path: string): Audio {
  return load().readWave(path);
}
