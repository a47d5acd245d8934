/**
 * Which speaker said each sentence: the one whose turns overlap the sentence's time the most. A sentence
 * no turn overlaps (the diarizer heard no speech there, or the recognizer's times drift) takes the
 * speaker of the nearest turn if one ends or starts within `maxGap` seconds, and no speaker otherwise.
 * Ties go to the smaller speaker number, so the answer never depends on the order of the turns.
 */

export interface SpeakerTurn {
  /** Seconds from the start of the recording. */
  start: number;
  end: number;
  /** Small integer per distinct voice, from 0, in order of first appearance. */
  speaker: number;
}

export interface TimedSpan {
  start_time: number;
  end_time: number;
}

export interface AssignOptions {
  /** Seconds a sentence may lie from the nearest turn and still take its speaker (default 1). */
  maxGap?: number;
}

export function assignSpeakers(
  sentences: readonly TimedSpan[],
  turns: readonly SpeakerTurn[],
  options: AssignOptions = {},
): (number | null)[] {
  const maxGap = options.maxGap ?? 1;
  if (!(maxGap >= 0)) throw new Error(`maxGap: must be a number of seconds >= 0, got ${maxGap}`);
  return sentences.map((s, i) => {
    if (!(s.end_time >= s.start_time)) throw new Error(`sentences[${i}]: end_time must not be before start_time`);
    const overlap = new Map<number, number>();
    let nearest: { gap: number; speaker: number } | null = null;
    for (const t of turns) {
      const shared = Math.min(s.end_time, t.end) - Math.max(s.start_time, t.start);
      if (shared > 0) overlap.set(t.speaker, (overlap.get(t.speaker) ?? 0) + shared);
      const gap = Math.max(t.start - s.end_time, s.start_time - t.end, 0);
      if (!nearest || gap < nearest.gap || (gap === nearest.gap && t.speaker < nearest.speaker))
        nearest = { gap, speaker: t.speaker };
    }
    let best: number | null = null;
    for (const [speaker, shared] of overlap) {
      if (best === null || shared > overlap.get(best)! || (shared === overlap.get(best)! && speaker < best))
        best = speaker;
    }
    if (best !== null) return best;
    return nearest && nearest.gap <= maxGap ? nearest.speaker : null;
  });
}
