/**
 * Voiceprints: a team's speaker profiles (one voice embedding per named person) and the voices of a
 * meeting's speakers, compared by cosine similarity of their CAM++ embeddings (the diarization's own
 * embedding model). Pure: storing, permissions and naming are core's.
 *
 * A profile's embedding is the mean direction of the voices enrolled in it (the sum of their unit
 * vectors, with the count), so enrolling one more meeting moves it a little and never forgets the rest.
 */

/**
 * The least cosine similarity at which a meeting speaker is named after a profile: midway between the
 * closest two different voices and the least alike two recordings of one voice in the test set of real
 * and espeak-ng voices (figures in docs/speakers.md, "Voiceprint threshold").
 */
export const VOICEPRINT_THRESHOLD = 0.72;

export interface VoiceProfile {
  id: string;
  /** Sum of the unit embeddings enrolled (its direction is the profile's voice). */
  embedding: readonly number[];
}

export interface MeetingVoice {
  /** The speaker's label in the meeting ("Speaker 2"). */
  speaker: string;
  embedding: readonly number[];
}

export interface VoiceMatch {
  speaker: string;
  profileId: string;
  /** Cosine similarity of the voice and the profile, rounded to two decimals; at least the threshold. */
  confidence: number;
}

export function unitVector(field: string, v: ArrayLike<number>): number[] {
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    if (!Number.isFinite(v[i])) throw new Error(`${field}: must hold finite numbers only`);
    n += v[i] * v[i];
  }
  n = Math.sqrt(n);
  if (!(n > 0)) throw new Error(`${field}: must be a non-zero vector`);
  return Array.from(v, (x) => x / n);
}

export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return similarity(unitVector('embedding', a), unitVector('embedding', b));
}

/** Dot product of two unit vectors of one length. */
function similarity(ua: readonly number[], ub: readonly number[], field = 'embedding'): number {
  if (ua.length !== ub.length) throw new Error(`${field}: lengths differ (${ua.length} and ${ub.length})`);
  let dot = 0;
  for (let i = 0; i < ua.length; i++) dot += ua[i] * ub[i];
  return dot;
}

/** Strings compared by code unit, so the order does not depend on the machine's locale. */
const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function checkNames(field: string, names: readonly string[]): void {
  const seen = new Set<string>();
  for (const [i, name] of names.entries()) {
    if (typeof name !== 'string' || name === '')
      throw new Error(`${field.replace('*', String(i))}: must be a non-empty string`);
    if (seen.has(name)) throw new Error(`${field.replace('*', String(i))}: ${JSON.stringify(name)} appears twice`);
    seen.add(name);
  }
}

/**
 * Which meeting speakers are which profiles: every pair at or above `threshold`, most similar first,
 * one to one (two speakers of a meeting are never the same person, and one person is one speaker).
 * Ties go to the lower speaker label, then the lower profile id, so the answer does not depend on order.
 */
export function matchVoices(
  voices: readonly MeetingVoice[],
  profiles: readonly VoiceProfile[],
  threshold = VOICEPRINT_THRESHOLD,
): VoiceMatch[] {
  if (!(threshold > -1 && threshold <= 1))
    throw new Error(`threshold: must be a cosine similarity above -1 and at most 1, got ${threshold}`);
  checkNames(
    'voices[*].speaker',
    voices.map((v) => v.speaker),
  );
  checkNames(
    'profiles[*].id',
    profiles.map((p) => p.id),
  );
  const vs = voices.map((v, i) => ({ speaker: v.speaker, unit: unitVector(`voices[${i}].embedding`, v.embedding) }));
  const ps = profiles.map((p, i) => ({ id: p.id, unit: unitVector(`profiles[${i}].embedding`, p.embedding) }));
  const pairs: { speaker: string; profileId: string; similarity: number }[] = [];
  for (const [i, v] of vs.entries()) {
    for (const [j, p] of ps.entries()) {
      const s = similarity(v.unit, p.unit, `voices[${i}].embedding and profiles[${j}].embedding`);
      if (s >= threshold) pairs.push({ speaker: v.speaker, profileId: p.id, similarity: s });
    }
  }
  pairs.sort((a, b) => b.similarity - a.similarity || byCode(a.speaker, b.speaker) || byCode(a.profileId, b.profileId));
  const speakers = new Set<string>();
  const taken = new Set<string>();
  const out: VoiceMatch[] = [];
  for (const p of pairs) {
    if (speakers.has(p.speaker) || taken.has(p.profileId)) continue;
    speakers.add(p.speaker);
    taken.add(p.profileId);
    out.push({ speaker: p.speaker, profileId: p.profileId, confidence: Math.round(p.similarity * 100) / 100 });
  }
  return out;
}

/** Checks a profile's stored sum: finite numbers, not all zero. */
function checkSum(field: string, v: readonly number[]): void {
  unitVector(field, v);
}

/** A profile's embedding with one more voice enrolled: the sum of unit vectors grows by the voice's. */
export function enrolVoice(profile: readonly number[] | null, voice: readonly number[]): number[] {
  const v = unitVector('voice', voice);
  if (!profile) return v;
  checkSum('profile', profile);
  if (profile.length !== v.length)
    throw new Error(`voice: length ${v.length} differs from the profile's ${profile.length}`);
  return profile.map((x, i) => x + v[i]);
}

/** Two profiles merged: their sums added, so the result is the mean of every voice either enrolled. */
export function mergeProfiles(into: readonly number[], from: readonly number[]): number[] {
  checkSum('into', into);
  checkSum('from', from);
  if (into.length !== from.length) throw new Error(`from: length ${from.length} differs from into's ${into.length}`);
  return into.map((x, i) => x + from[i]);
}
