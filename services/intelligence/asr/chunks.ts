/**
 * A long recording is transcribed in chunks that each fit the speech server's limits (OpenAI refuses
 * files over 25 MB): planChunks cuts the timeline, at a silence where there is one, each chunk after the
 * first starting a little before the previous cut (the overlap) so a word cut in half is heard whole
 * once; stitchChunks puts the chunks' segments back on the recording's timeline, keeps each segment in
 * the chunk that owns its middle, and drops the words the overlap repeats. Pure functions.
 */
import type { Sentence } from '../types';
import type { AsrSegment } from './openai-compatible';
import { speakerName } from './openai-compatible';

export interface ChunkLimits {
  /** ASR_CHUNK_MAX_SECONDS */
  maxSeconds: number;
  /** ASR_CHUNK_MAX_BYTES, with the bytes a second of the audio sent (16 kHz 16-bit mono WAV: 32,000). */
  maxBytes: number;
  bytesPerSecond: number;
  headerBytes: number;
  /** Seconds each chunk after the first starts before the previous cut. */
  overlapSeconds: number;
}

export interface AudioChunk {
  index: number;
  /** What is sent: seconds [start, end) of the channel's audio. */
  start: number;
  end: number;
  /** What this chunk owns: a segment whose middle falls in [ownStart, ownEnd) is kept from this chunk. */
  ownStart: number;
  ownEnd: number;
}

const r3 = (n: number) => Math.round(n * 1000) / 1000;

/** The longest chunk the limits allow, in seconds. */
export function maxChunkSeconds(limits: ChunkLimits): number {
  const bySize = Math.floor(((limits.maxBytes - limits.headerBytes) / limits.bytesPerSecond) * 1000) / 1000;
  return Math.max(1, Math.min(limits.maxSeconds, bySize));
}

export function planChunks(
  durationSeconds: number,
  silences: { start: number; end: number }[],
  limits: ChunkLimits,
): AudioChunk[] {
  const maxLen = maxChunkSeconds(limits);
  const overlap = Math.min(limits.overlapSeconds, maxLen / 4);
  const chunks: AudioChunk[] = [];
  let ownStart = 0;
  for (;;) {
    const start = chunks.length === 0 ? 0 : Math.max(0, ownStart - overlap);
    if (durationSeconds - start <= maxLen) {
      chunks.push({
        index: chunks.length,
        start: r3(start),
        end: r3(durationSeconds),
        ownStart: r3(ownStart),
        ownEnd: r3(Math.max(durationSeconds, ownStart)),
      });
      return chunks;
    }
    const latest = start + maxLen;
    const earliest = ownStart + (latest - ownStart) / 2;
    // The latest silence whose middle lies in the second half of the allowed span.
    let cut = latest;
    for (const s of silences) {
      const mid = (s.start + Math.min(s.end, durationSeconds)) / 2;
      if (mid >= earliest && mid <= latest && (cut === latest || mid > cut)) cut = mid;
    }
    cut = Math.floor(cut * 1000) / 1000;
    chunks.push({ index: chunks.length, start: r3(start), end: r3(cut), ownStart: r3(ownStart), ownEnd: r3(cut) });
    ownStart = cut;
  }
}

export interface ChunkTranscript {
  chunk: AudioChunk;
  segments: AsrSegment[];
}

const words = (text: string) => text.replace(/\s+/g, ' ').trim().split(' ').filter(Boolean);
const norm = (w: string) => w.toLowerCase().replace(/[^\p{L}\p{N}']/gu, '');

/**
 * How many leading words of `next` repeat the trailing words of `prev` (the longest such run); the last
 * word of `prev` may be the start of its counterpart (a word the cut went through: "Fri" of "Friday").
 */
function repeatedWords(prev: string[], next: string[]): { k: number; partial: boolean } {
  const max = Math.min(prev.length, next.length, 40);
  for (let k = max; k > 0; k--) {
    let same = true;
    let partial = false;
    for (let i = 0; i < k && same; i++) {
      const a = norm(prev[prev.length - k + i]);
      const b = norm(next[i]);
      if (a === b && b !== '') continue;
      if (i === k - 1 && a !== '' && b.startsWith(a)) partial = true;
      else same = false;
    }
    if (same) return { k, partial };
  }
  return { k: 0, partial: false };
}

export interface StitchOptions {
  /** A fixed speaker for every segment (a channel transcribed on its own, labelled by its channel). */
  speaker?: string;
  /** Speaker labels of a chunk are its own (the server could not be told who it heard before): prefix them. */
  labelPrefix?: (chunk: AudioChunk) => string;
}

interface Timed {
  start: number;
  end: number;
  text: string;
  speaker: string;
}

/** The segments of one channel's chunks, in order, on the recording's timeline. */
export function stitchChunks(parts: ChunkTranscript[], options: StitchOptions = {}): Timed[] {
  const out: Timed[] = [];
  const ordered = [...parts].sort((a, b) => a.chunk.index - b.chunk.index);
  for (let p = 0; p < ordered.length; p++) {
    const { chunk, segments } = ordered[p];
    const last = p === ordered.length - 1;
    let first = true;
    for (const seg of segments) {
      const start = r3(chunk.start + seg.start);
      const end = r3(chunk.start + Math.max(seg.end, seg.start));
      const mid = (start + end) / 2;
      if (mid < chunk.ownStart && p > 0) continue;
      if (mid >= chunk.ownEnd && !last) continue;
      let text = seg.text.replace(/\s+/g, ' ').trim();
      if (!text) continue;
      // The first segment kept after a cut may repeat the words the previous chunk ended with.
      if (first && p > 0 && out.length > 0 && start < chunk.ownStart + 1) {
        const prev = out[out.length - 1];
        const prevWords = words(prev.text);
        const nextWords = words(text);
        const { k, partial } = repeatedWords(prevWords, nextWords);
        if (partial) {
          // The previous chunk heard half of the word: keep the whole word it ends with, as the next chunk heard it.
          prevWords[prevWords.length - 1] = nextWords[k - 1];
          prev.text = prevWords.join(' ');
        }
        if (k > 0) text = nextWords.slice(k).join(' ');
      }
      first = false;
      if (!text) continue;
      const label = options.speaker ?? speakerName(seg.speaker);
      const speaker = options.speaker || !options.labelPrefix ? label : `${options.labelPrefix(chunk)}${label}`;
      out.push({ start, end, text, speaker });
    }
  }
  return out;
}

/** Timed segments of one or more channels as sentences, interleaved by time, speakers numbered in order of appearance. */
export function toSentences(channels: Timed[][]): Sentence[] {
  const all = channels.flat().sort((a, b) => a.start - b.start || a.end - b.end);
  const ids = new Map<string, number>();
  return all.map((t, index) => {
    let id = ids.get(t.speaker);
    if (id === undefined) ids.set(t.speaker, (id = ids.size));
    return {
      index,
      speaker_name: t.speaker,
      speaker_id: id,
      text: t.text,
      raw_text: t.text,
      start_time: t.start,
      end_time: t.end,
    };
  });
}
