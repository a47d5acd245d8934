/**
 * What the transcription steps share about sentences and the speech server: the digest that ties
 * analytics and summary to the sentences they came from, the TranscriptRef that describes them, the
 * language hint and a fetch that the activity's cancellation aborts.
 */
import type { Sentence } from '../../services/intelligence/types';
import { sha256 } from './stage';
import type { MediaRef, TranscriptRef } from './types';

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** fetch with the activity's cancellation: a worker shutting down aborts the call to the ASR server. */
export function cancellableFetch(signal: AbortSignal | undefined): typeof fetch {
  if (!signal) return fetch;
  return (input, init) =>
    fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
}

/** ISO 639-1 for the ASR server: "pt-BR" → "pt". */
export const asrLanguage = (custom: string | null) => custom?.split('-')[0] || undefined;

export const digestOf = (sentences: Sentence[]) => sha256(JSON.stringify(sentences)).slice(0, 32);

export function describe(sentences: Sentence[], media: MediaRef): TranscriptRef {
  const lastEnd = sentences.reduce((m, s) => Math.max(m, s.end_time), 0);
  return {
    digest: digestOf(sentences),
    sentences: sentences.length,
    speakers: new Set(sentences.map((s) => s.speaker_id)).size,
    durationSeconds: round3(Math.max(media.durationSeconds ?? 0, lastEnd)),
  };
}
