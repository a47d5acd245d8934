/**
 * Voiceprint matching, enrolment and merging (services/intelligence/voiceprints/match.ts), on vectors
 * whose cosine similarities are known exactly.
 */
import {
  VOICEPRINT_THRESHOLD,
  cosineSimilarity,
  enrolVoice,
  matchVoices,
  mergeProfiles,
  type MeetingVoice,
  type VoiceProfile,
} from '../../../../services/intelligence/voiceprints';

/** A unit vector in the plane of the first two axes, `cos` away from the first axis (in 3 dimensions). */
const at = (cos: number) => [cos, Math.sqrt(1 - cos * cos), 0];
/** The least double above x. */
const nextUp = (x: number) => {
  const b = new Float64Array([x]);
  const i = new BigInt64Array(b.buffer);
  i[0] += x >= 0 ? 1n : -1n;
  return b[0];
};

describe('cosineSimilarity', () => {
  it('is the cosine of the angle, whatever the lengths of the vectors', () => {
    expect(cosineSimilarity([1, 0], [4, 3])).toBe(0.8);
    expect(cosineSimilarity([2, 0], [4, 3])).toBe(0.8);
    expect(cosineSimilarity([1, 0, 0], [0, 5, 0])).toBe(0);
    expect(cosineSimilarity([1, 1], [-3, -3])).toBeCloseTo(-1, 12);
  });
});

describe('matchVoices', () => {
  it('names each speaker after its most similar profile, one to one, most similar pairs first', () => {
    const profiles: VoiceProfile[] = [
      { id: 'priya', embedding: [1, 0, 0] },
      { id: 'sam', embedding: [0, 1, 0] },
    ];
    const voices: MeetingVoice[] = [
      // Speaker 1 is nearer Priya than Speaker 2 is, so Speaker 2 goes to Sam, its second choice.
      { speaker: 'Speaker 1', embedding: [0.95, 0.05, 0.05] },
      { speaker: 'Speaker 2', embedding: [0.9, 0.8, 0] },
      // Nobody's voice: below the threshold for every profile.
      { speaker: 'Speaker 3', embedding: [0, 0, 1] },
    ];
    const matches = matchVoices(voices, profiles, 0.6);
    expect(matches.map((m) => [m.speaker, m.profileId])).toEqual([
      ['Speaker 1', 'priya'],
      ['Speaker 2', 'sam'],
    ]);
    // The confidence is the cosine similarity rounded to two decimals.
    expect(matches[0].confidence).toBe(Math.round(cosineSimilarity(voices[0].embedding, [1, 0, 0]) * 100) / 100);
    expect(matches[0].confidence).toBe(1);
    expect(matches[1].confidence).toBe(0.66);
  });

  it('gives one profile to one speaker only, and one speaker one profile only', () => {
    const one = matchVoices(
      [
        { speaker: 'A', embedding: [1, 0.1] },
        { speaker: 'B', embedding: [1, 0.2] },
      ],
      [{ id: 'p', embedding: [1, 0] }],
      0.5,
    );
    expect(one.map((m) => m.speaker)).toEqual(['A']);
    const other = matchVoices(
      [{ speaker: 'A', embedding: [1, 0] }],
      [
        { id: 'p', embedding: [1, 0.2] },
        { id: 'q', embedding: [1, 0.1] },
      ],
      0.5,
    );
    expect(other.map((m) => m.profileId)).toEqual(['q']);
  });

  it('answers the same whatever the order of the voices and profiles', () => {
    const voices: MeetingVoice[] = [
      { speaker: 'Speaker 1', embedding: [0.9, 0.3, 0.1] },
      { speaker: 'Speaker 2', embedding: [0.2, 0.9, 0.3] },
      { speaker: 'Speaker 3', embedding: [0.1, 0.3, 0.9] },
      { speaker: 'Speaker 4', embedding: [0.7, 0.7, 0.1] },
    ];
    const profiles: VoiceProfile[] = [
      { id: 'a', embedding: [1, 0.2, 0] },
      { id: 'b', embedding: [0.1, 1, 0.2] },
      { id: 'c', embedding: [0.6, 0.6, 0.3] },
    ];
    const expected = matchVoices(voices, profiles, 0.7);
    expect(expected.map((m) => [m.speaker, m.profileId])).toEqual([
      ['Speaker 1', 'a'],
      ['Speaker 2', 'b'],
      // Speaker 4 is nearer c than a anyway; Speaker 3 is below the threshold for all.
      ['Speaker 4', 'c'],
    ]);
    expect(matchVoices([...voices].reverse(), [...profiles].reverse(), 0.7)).toEqual(expected);
    expect(
      matchVoices([voices[2], voices[0], voices[3], voices[1]], [profiles[1], profiles[2], profiles[0]], 0.7),
    ).toEqual(expected);
  });

  it('breaks ties by the lower speaker label, then the lower profile id, in either input order', () => {
    const same = [0, 1, 0];
    const voices: MeetingVoice[] = [
      { speaker: 'Speaker 2', embedding: same },
      { speaker: 'Speaker 10', embedding: same },
    ];
    const profiles: VoiceProfile[] = [
      { id: 'zoe', embedding: same },
      { id: 'ann', embedding: same },
    ];
    const expected = [
      // 'Speaker 10' sorts before 'Speaker 2' by code unit: the order is the strings', not the locale's.
      { speaker: 'Speaker 10', profileId: 'ann', confidence: 1 },
      { speaker: 'Speaker 2', profileId: 'zoe', confidence: 1 },
    ];
    expect(matchVoices(voices, profiles)).toEqual(expected);
    expect(matchVoices([...voices].reverse(), [...profiles].reverse())).toEqual(expected);
    expect(matchVoices([voices[0]], profiles)).toEqual([{ speaker: 'Speaker 2', profileId: 'ann', confidence: 1 }]);
  });

  it('matches a voice exactly at the threshold and not one just below it', () => {
    const profiles: VoiceProfile[] = [{ id: 'p', embedding: [1, 0] }];
    const voices: MeetingVoice[] = [{ speaker: 'S', embedding: [4, 3] }];
    // The similarity is exactly 0.8.
    expect(matchVoices(voices, profiles, 0.8)).toEqual([{ speaker: 'S', profileId: 'p', confidence: 0.8 }]);
    expect(matchVoices(voices, profiles, nextUp(0.8))).toEqual([]);
  });

  it('uses VOICEPRINT_THRESHOLD by default: a voice a hair above it is named, a hair below is not', () => {
    const profiles: VoiceProfile[] = [{ id: 'p', embedding: [1, 0, 0] }];
    const above = at(VOICEPRINT_THRESHOLD + 1e-9);
    const below = at(VOICEPRINT_THRESHOLD - 1e-9);
    expect(cosineSimilarity(above, [1, 0, 0])).toBeGreaterThan(VOICEPRINT_THRESHOLD);
    expect(cosineSimilarity(below, [1, 0, 0])).toBeLessThan(VOICEPRINT_THRESHOLD);
    expect(matchVoices([{ speaker: 'S', embedding: above }], profiles)).toEqual([
      { speaker: 'S', profileId: 'p', confidence: Math.round(VOICEPRINT_THRESHOLD * 100) / 100 },
    ]);
    expect(matchVoices([{ speaker: 'S', embedding: below }], profiles)).toEqual([]);
  });

  it('answers nothing when there are no voices or no profiles', () => {
    expect(matchVoices([], [{ id: 'p', embedding: [1] }])).toEqual([]);
    expect(matchVoices([{ speaker: 'S', embedding: [1] }], [])).toEqual([]);
  });

  it('rejects bad input with the field and the rule', () => {
    const p: VoiceProfile[] = [{ id: 'p', embedding: [1, 0] }];
    const v: MeetingVoice[] = [{ speaker: 'S', embedding: [1, 0] }];
    for (const threshold of [Number.NaN, 1.01, -1, -2, Infinity])
      expect(() => matchVoices(v, p, threshold)).toThrow(
        `threshold: must be a cosine similarity above -1 and at most 1, got ${threshold}`,
      );
    expect(matchVoices(v, p, 1)).toHaveLength(1);
    expect(() => matchVoices([{ speaker: 'S', embedding: [0, 0] }], p)).toThrow(
      'voices[0].embedding: must be a non-zero vector',
    );
    expect(() => matchVoices(v, [...p, { id: 'q', embedding: [1, Number.NaN] }])).toThrow(
      'profiles[1].embedding: must hold finite numbers only',
    );
    expect(() => matchVoices(v, [{ id: 'p', embedding: [1, 0, 0] }])).toThrow(
      'voices[0].embedding and profiles[0].embedding: lengths differ (2 and 3)',
    );
    expect(() => matchVoices([...v, { speaker: 'S', embedding: [0, 1] }], p)).toThrow(
      'voices[1].speaker: "S" appears twice',
    );
    expect(() => matchVoices(v, [...p, { id: 'p', embedding: [0, 1] }])).toThrow('profiles[1].id: "p" appears twice');
    expect(() => matchVoices([{ speaker: '', embedding: [1, 0] }], p)).toThrow(
      'voices[0].speaker: must be a non-empty string',
    );
  });
});

describe('enrolVoice and mergeProfiles', () => {
  it("starts a profile at the voice's unit vector and adds each later voice's unit vector", () => {
    const first = enrolVoice(null, [3, 4]);
    expect(first).toEqual([0.6, 0.8]);
    const second = enrolVoice(first, [0, 10]);
    expect(second[0]).toBeCloseTo(0.6, 12);
    expect(second[1]).toBeCloseTo(1.8, 12);
    // The profile's direction is the mean of the voices': a voice enrolled once more pulls it only part way.
    expect(cosineSimilarity(second, [0.3, 0.9])).toBeCloseTo(1, 12);
    // The input is not changed.
    expect(first).toEqual([0.6, 0.8]);
  });

  it('adds the sums of two profiles, so the result is the mean of every voice either had', () => {
    const a = enrolVoice(enrolVoice(null, [1, 0, 0]), [0, 2, 0]);
    const b = enrolVoice(null, [0, 0, 5]);
    const merged = mergeProfiles(a, b);
    expect(merged).toEqual([1, 1, 1]);
    // The same as enrolling the three voices in one profile, in any order.
    expect(merged).toEqual(enrolVoice(enrolVoice(enrolVoice(null, [0, 0, 5]), [1, 0, 0]), [0, 2, 0]));
    expect(a).toEqual([1, 1, 0]);
  });

  it('rejects bad input with the field and the rule', () => {
    expect(() => enrolVoice(null, [0, 0])).toThrow('voice: must be a non-zero vector');
    expect(() => enrolVoice(null, [Number.NaN, 1])).toThrow('voice: must hold finite numbers only');
    expect(() => enrolVoice([1, 0, 0], [1, 0])).toThrow("voice: length 2 differs from the profile's 3");
    expect(() => enrolVoice([Infinity, 0], [1, 0])).toThrow('profile: must hold finite numbers only');
    expect(() => mergeProfiles([1, 0], [1, 0, 0])).toThrow("from: length 3 differs from into's 2");
    expect(() => mergeProfiles([0, 0], [1, 0])).toThrow('into: must be a non-zero vector');
    expect(() => mergeProfiles([1, 0], [1, Number.NaN])).toThrow('from: must hold finite numbers only');
  });
});
