/**
 * Sentences take the speaker they overlap most (services/intelligence/diarization/assign.ts).
 */
import { assignSpeakers, type SpeakerTurn } from '../../../../services/intelligence/diarization';

const turns: SpeakerTurn[] = [
  { start: 0, end: 4, speaker: 0 },
  { start: 4, end: 6, speaker: 1 },
  { start: 5.5, end: 9, speaker: 0 },
  { start: 12, end: 15, speaker: 2 },
];
const s = (start_time: number, end_time: number) => ({ start_time, end_time });

describe('assignSpeakers', () => {
  it("gives each sentence the speaker whose turns cover most of it, summing a speaker's turns", () => {
    // 3.5–6.5: speaker 0 for 0.5 + 1.0 s, speaker 1 for 2 s. 3–7: speaker 0 for 1 + 1.5 s (two turns,
    // each shorter than speaker 1's 2 s).
    expect(assignSpeakers([s(0.2, 3.8), s(3.5, 6.5), s(3, 7), s(12.5, 14)], turns)).toEqual([0, 1, 0, 2]);
  });

  it('breaks an exact tie toward the smaller speaker number, whatever the order of the turns', () => {
    const tie = [s(3, 5)];
    expect(assignSpeakers(tie, turns)).toEqual([0]);
    expect(assignSpeakers(tie, [...turns].reverse())).toEqual([0]);
  });

  it('takes the nearest turn within maxGap when nothing overlaps, and no speaker beyond it', () => {
    expect(assignSpeakers([s(9.5, 10), s(10.2, 11.2)], turns)).toEqual([0, 2]);
    // 10.0 ends 2 s before speaker 2 starts and 1 s after speaker 0 ends: exactly at the default limit.
    expect(assignSpeakers([s(10, 10)], turns)).toEqual([0]);
    expect(assignSpeakers([s(10.01, 10.01)], turns, { maxGap: 1 })).toEqual([null]);
    expect(assignSpeakers([s(10.01, 10.01)], turns, { maxGap: 1.01 })).toEqual([0]);
    expect(assignSpeakers([s(1, 2)], [])).toEqual([null]);
  });

  it('rejects a sentence that ends before it starts and a negative maxGap, naming the field', () => {
    expect(() => assignSpeakers([s(0, 1), s(3, 2)], turns)).toThrow(
      'sentences[1]: end_time must not be before start_time',
    );
    expect(() => assignSpeakers([s(0, 1)], turns, { maxGap: -1 })).toThrow(
      'maxGap: must be a number of seconds >= 0, got -1',
    );
  });
});
