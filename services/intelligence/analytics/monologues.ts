import type { Sentence } from '../types';

/** Speech shorter than this is a turn, not a monologue. */
export const MONOLOGUE_MIN_SECONDS = 60;

export interface Monologues {
  count: number;
  /** Seconds of the longest monologue; 0 when the speaker never spoke 60 s without interruption. */
  longest: number;
}

/**
 * A monologue is one speaker's uninterrupted run of consecutive sentences (no other speaker's sentence
 * in between), measured from the run's first start to its last end, when that lasts 60 s or more.
 * Pauses inside the run count as part of it: nobody else took the floor.
 */
export function monologuesBySpeaker(sentences: readonly Sentence[]): Map<number, Monologues> {
  const result = new Map<number, Monologues>();
  let runSpeaker = -1;
  let runStart = 0;
  let runEnd = 0;
  const close = () => {
    if (runSpeaker < 0) return;
    const length = runEnd - runStart;
    const m = result.get(runSpeaker) ?? { count: 0, longest: 0 };
    if (length >= MONOLOGUE_MIN_SECONDS) {
      m.count++;
      m.longest = Math.max(m.longest, length);
    }
    result.set(runSpeaker, m);
  };
  for (const s of sentences) {
    if (s.speaker_id !== runSpeaker) {
      close();
      runSpeaker = s.speaker_id;
      runStart = s.start_time;
      runEnd = s.end_time;
    } else {
      runEnd = Math.max(runEnd, s.end_time);
    }
  }
  close();
  return result;
}
