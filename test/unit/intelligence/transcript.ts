import type { Sentence } from '../../../services/intelligence/types';

/** A transcript from [speaker, start, end, text] rows, speaker ids in order of first appearance. */
export function transcript(rows: [string, number, number, string][]): Sentence[] {
  const ids = new Map<string, number>();
  return rows.map(([speaker, start, end, text], index) => {
    if (!ids.has(speaker)) ids.set(speaker, ids.size);
    return {
      index,
      speaker_name: speaker,
      speaker_id: ids.get(speaker)!,
      text,
      raw_text: text,
      start_time: start,
      end_time: end,
    };
  });
}
