import type { Sentence } from '../types';
import type { Citation } from './types';

/**
 * The stored sentence a moment falls in: the last one starting at or before `time` (the first when
 * `time` is before them all). Sentences are in time order, so a binary search finds it.
 */
export function citationAt(sentences: readonly Sentence[], time: number): Citation {
  if (sentences.length === 0) return { index: 0, start_time: Math.max(0, time) };
  let lo = 0;
  let hi = sentences.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sentences[mid].start_time <= time + 1e-6) lo = mid;
    else hi = mid - 1;
  }
  return { index: sentences[lo].index, start_time: sentences[lo].start_time };
}
