/**
 * Chunk-local speakers linked to the recording's speakers by voice (services/intelligence/diarization/link.ts).
 */
import { linkSpeakers, type KnownVoice } from '../../../../services/intelligence/diarization';

const known: KnownVoice[] = [
  { speaker: 0, sum: [1, 0, 0], count: 1 },
  { speaker: 1, sum: [0, 2, 0], count: 2 },
];

describe('linkSpeakers', () => {
  it('maps each local speaker to the most similar known voice, one to one, and numbers new voices after the known', () => {
    const local = new Map([
      [0, [0.1, 0.9, 0]],
      [1, [0.9, 0.2, 0]],
      [2, [0, 0, 1]],
    ]);
    const r = linkSpeakers(known, local, 0.5);
    expect([...r.mapping].sort()).toEqual([
      [0, 1],
      [1, 0],
      [2, 2],
    ]);
    expect(r.known.map((k) => [k.speaker, k.count])).toEqual([
      [0, 2],
      [1, 3],
      [2, 1],
    ]);
    // The input is not changed.
    expect(known[1]).toEqual({ speaker: 1, sum: [0, 2, 0], count: 2 });
  });

  it('gives an unmatched voice to the most similar known one once maxSpeakers are known, and makes it new one below', () => {
    const local = new Map([[0, [0.2, 0.1, 1]]]);
    // Two known, at most two: the voice goes to speaker 0 (closer than speaker 1), though beyond the threshold.
    const capped = linkSpeakers(known, local, 0.5, 2);
    expect([...capped.mapping]).toEqual([[0, 0]]);
    expect(capped.known.map((k) => [k.speaker, k.count])).toEqual([
      [0, 2],
      [1, 2],
    ]);
    // One more allowed: it is a new speaker.
    expect([...linkSpeakers(known, local, 0.5, 3).mapping]).toEqual([[0, 2]]);
  });

  it('gives a contested known voice to the closer local speaker; the other becomes new', () => {
    const r = linkSpeakers(
      known,
      new Map([
        [0, [1, 0.3, 0]],
        [1, [1, 0.05, 0]],
      ]),
      0.5,
    );
    expect(r.mapping.get(1)).toBe(0);
    expect(r.mapping.get(0)).toBe(2);
  });

  it('links at a cosine distance equal to the threshold (up to rounding) and not beyond it', () => {
    // cos 60° = 0.5: distance 0.5.
    const v = [0.5, Math.sqrt(3) / 2, 0];
    const at = linkSpeakers([{ speaker: 0, sum: [1, 0, 0], count: 1 }], new Map([[0, v]]), 0.5 + 1e-12);
    expect(at.mapping.get(0)).toBe(0);
    const beyond = linkSpeakers([{ speaker: 0, sum: [1, 0, 0], count: 1 }], new Map([[0, v]]), 0.5 - 1e-9);
    expect(beyond.mapping.get(0)).toBe(1);
  });

  it('starts from no known voices, numbering local speakers in order', () => {
    const r = linkSpeakers(
      [],
      new Map([
        [3, [0, 1]],
        [1, [1, 0]],
      ]),
      0.5,
    );
    expect([...r.mapping].sort()).toEqual([
      [1, 0],
      [3, 1],
    ]);
  });

  it('rejects a zero vector, mixed lengths and a threshold out of range, naming the field', () => {
    expect(() => linkSpeakers(known, new Map([[0, [0, 0, 0]]]), 0.5)).toThrow('embedding: must be a non-zero vector');
    expect(() => linkSpeakers(known, new Map([[0, [1, 0]]]), 0.5)).toThrow(
      'embedding: all vectors must have the same length, got 3, 2',
    );
    expect(() => linkSpeakers(known, new Map(), 0)).toThrow(
      'threshold: must be a cosine distance between 0 and 2, got 0',
    );
  });
});
