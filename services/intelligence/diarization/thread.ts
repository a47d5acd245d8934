/**
 * Diarization off the event loop: sherpa-onnx's diarizer and embedder are synchronous and CPU-bound, so
 * a worker process runs them in a worker thread of its own (one per process, started on first use,
 * models loaded once) while its event loop keeps heartbeating, polling and decoding speech. The thread
 * only makes the native calls; choosing the speaker count, renumbering turns and picking the audio of
 * each voice stay here (engine.ts), the same code as the synchronous `diarize`. The samples reach the
 * thread through a buffer they share (see DiarizationThread's `shared`).
 *
 * The thread's code is a short script given inline, so it runs the same from the sources (jest, tsx) and
 * from the compiled tree; it requires sherpa-onnx-node by the path resolved here.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { SpeakerTurn } from './assign';
import {
  checkDiarizeInput,
  DIARIZATION_WINDOW_SHIFT,
  diarizerConfig,
  mendWindowEdges,
  embeddingPieces,
  meanVoice,
  normalise,
  type Audio,
  type DiarizeOptions,
} from './engine';
import { diarizationModels, type DiarizationModels } from './models';

const SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const sherpa = require(workerData.sherpa);
const diarizer = new sherpa.OfflineSpeakerDiarization(workerData.config);
const embedder = new sherpa.SpeakerEmbeddingExtractor({ model: workerData.voiceModel, numThreads: 1 });
let shared = new Float32Array(0);
const view = ([offset, length]) => shared.subarray(offset, offset + length);
parentPort.on('message', (m) => {
  try {
    if (m.op === 'buffer') {
      shared = new Float32Array(m.buffer);
    } else if (m.op === 'process') {
      diarizer.setConfig({ clustering: { numClusters: m.numClusters, threshold: m.threshold } });
      parentPort.postMessage({ id: m.id, result: diarizer.process(view(m.samples)) });
    } else {
      const out = m.speakers.map((pieces) =>
        pieces.map((piece) => {
          const stream = embedder.createStream();
          stream.acceptWaveform({ samples: view(piece), sampleRate: m.sampleRate });
          stream.inputFinished();
          return embedder.compute(stream, false);
        }),
      );
      parentPort.postMessage({ id: m.id, result: out });
    }
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: String((e && e.message) || e) });
  }
});
`;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** Where samples lie in the thread's shared buffer: [offset, length]. */
type Span = [number, number];

class DiarizationThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private next = 0;
  /**
   * The samples the thread reads, shared with it and kept for its life: a chunk is copied in rather
   * than posted, because each posted array would stay in the thread's heap, which seldom collects
   * garbage as it allocates little, and a worker diarizing an hour would hold every chunk it had seen.
   */
  private shared = new Float32Array(new SharedArrayBuffer(0));
  private turn: Promise<unknown> = Promise.resolve();
  dead = false;

  constructor(models: DiarizationModels) {
    const sherpa = createRequire(__filename).resolve('sherpa-onnx-node');
    this.worker = new Worker(SCRIPT, {
      eval: true,
      workerData: { sherpa, config: diarizerConfig(models), voiceModel: models.embedding },
    });
    // An idle thread must not keep the process alive.
    this.worker.unref();
    this.worker.on('message', (m: { id: number; result?: unknown; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error !== undefined) p.reject(new Error(`diarization: ${m.error}`));
      else p.resolve(m.result);
    });
    const fail = (e: Error) => {
      this.dead = true;
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    this.worker.on('error', (e) => fail(e instanceof Error ? e : new Error(String(e))));
    this.worker.on('exit', (code) => fail(new Error(`diarization: the worker thread exited (${code})`)));
  }

  /** Runs `work` when the thread's earlier work is done: the shared buffer has one user at a time. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.turn.then(work, work);
    this.turn = run.catch(() => undefined);
    return run;
  }

  /** Copies `parts` one after the other into the shared buffer (grown when too small); their spans. */
  load(parts: readonly Float32Array[]): Span[] {
    const total = parts.reduce((n, p) => n + p.length, 0);
    if (total > this.shared.length) {
      this.shared = new Float32Array(new SharedArrayBuffer(total * Float32Array.BYTES_PER_ELEMENT));
      this.worker.postMessage({ op: 'buffer', buffer: this.shared.buffer });
    }
    let offset = 0;
    return parts.map((p) => {
      this.shared.set(p, offset);
      offset += p.length;
      return [offset - p.length, p.length];
    });
  }

  call<T>(message: Record<string, unknown>): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      // Referenced while it works, so the process waits for the answer.
      if (this.pending.size === 1) this.worker.ref();
      this.worker.postMessage({ ...message, id });
    }).finally(() => {
      if (this.pending.size === 0 && !this.dead) this.worker.unref();
    });
  }
}

const threads = new Map<string, DiarizationThread>();

function threadFor(models: DiarizationModels): DiarizationThread {
  const key = `${models.segmentation}\n${models.windowEmbedding}\n${models.embedding}`;
  let t = threads.get(key);
  if (!t || t.dead) {
    t = new DiarizationThread(models);
    threads.set(key, t);
  }
  return t;
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * Runs `work` when the diarizations before it have finished: one at a time per process, as the
 * thread works. A caller reads a chunk's samples inside `work`, so chunks waiting their turn hold no
 * audio (a speech worker takes many chunk activities at once, and each chunk's samples would
 * otherwise wait in memory together).
 */
export function withDiarizationSlot<T>(work: () => Promise<T>): Promise<T> {
  const run = queue.then(work, work);
  queue = run.catch(() => undefined);
  return run;
}

export interface DiarizedAudio {
  turns: SpeakerTurn[];
  /** One voice embedding per speaker of `turns` (CAM++), for linkSpeakers across chunks. */
  voices: Map<number, number[]>;
}

/** `diarize` then `speakerEmbeddings`, in the worker thread: the event loop stays free meanwhile. */
export async function diarizeInThread(audio: Audio, options: DiarizeOptions = {}): Promise<DiarizedAudio> {
  const threshold = checkDiarizeInput(audio, options);
  if (audio.samples.length === 0) return { turns: [], voices: new Map() };
  const thread = threadFor(options.models ?? diarizationModels());
  return thread.exclusive(async () => {
    const [samples] = thread.load([audio.samples]);
    const run = async (numClusters: number) =>
      mendWindowEdges(
        normalise(
          await thread.call<{ start: number; end: number; speaker: number }[]>({
            op: 'process',
            samples,
            numClusters,
            threshold,
          }),
        ),
        DIARIZATION_WINDOW_SHIFT,
      );
    let turns = await run(options.speakerCount ?? -1);
    if (
      options.speakerCount === undefined &&
      options.maxSpeakers !== undefined &&
      new Set(turns.map((t) => t.speaker)).size > options.maxSpeakers
    ) {
      turns = await run(options.maxSpeakers);
    }
    const pieces = embeddingPieces(audio, turns);
    const speakers = [...pieces.keys()];
    const spans = thread.load(speakers.flatMap((s) => pieces.get(s)!));
    let next = 0;
    const embeddings = await thread.call<Float32Array[][]>({
      op: 'embed',
      sampleRate: audio.sampleRate,
      speakers: speakers.map((s) => pieces.get(s)!.map(() => spans[next++])),
    });
    return { turns, voices: new Map(speakers.map((s, i) => [s, Array.from(meanVoice(embeddings[i]))])) };
  });
}
