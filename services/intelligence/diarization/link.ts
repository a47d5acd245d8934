/**
 * One person, one label across the chunks of a long recording: each chunk is diarized on its own, so
 * its speaker numbers are local; each local speaker's voice embedding is matched to the speakers already
 * known (cosine distance at most the clustering threshold, most similar pairs first, one to one), and a
 * local speaker that matches none becomes a new speaker. Pure: the caller keeps the known voices between
 * chunks (a known voice stays the mean of the embeddings linked to it).
 */

/**
 * Cosine distance within which a chunk's speaker is linked to a voice already known. The voices are
 * float CAM++ embeddings of up to 30 s of each speaker, steadier than the clustering's short
 * per-window embeddings (8-bit), so linking keeps its own threshold (docs/speakers.md says where
 * same and different voices lie).
 */
export const SPEAKER_LINK_THRESHOLD = 0.5;

export interface KnownVoice {
  /** The speaker's number across the recording. */
  speaker: number;
  /** Sum of the unit embeddings linked to this speaker (its direction is the mean voice). */
  sum: number[];
  count: number;
}

export interface LinkResult {
  /** Local speaker → speaker across the recording. */
  mapping: Map<number, number>;
  known: KnownVoice[];
}

function unit(v: ArrayLike<number>): number[] {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  n = Math.sqrt(n);
  if (!(n > 0)) throw new Error('embedding: must be a non-zero vector');
  return Array.from(v, (x) => x / n);
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

/**
 * `maxSpeakers` (the upload's speaker_count or attendee count): once that many speakers are known, a
 * local speaker that matches none goes to the most similar known one instead of becoming a new one.
 */
export function linkSpeakers(
  known: readonly KnownVoice[],
  local: ReadonlyMap<number, ArrayLike<number>>,
  threshold: number,
  maxSpeakers = Infinity,
): LinkResult {
  if (!(threshold > 0 && threshold < 2))
    throw new Error(`threshold: must be a cosine distance between 0 and 2, got ${threshold}`);
  const dims = new Set([...known.map((k) => k.sum.length), ...[...local.values()].map((v) => v.length)]);
  if (dims.size > 1) throw new Error(`embedding: all vectors must have the same length, got ${[...dims].join(', ')}`);
  const locals = [...local].map(([speaker, v]) => ({ speaker, v: unit(v) }));
  const pairs: { l: number; k: number; similarity: number }[] = [];
  for (const [li, l] of locals.entries()) {
    for (const [ki, k] of known.entries()) {
      const similarity = cosine(l.v, k.sum);
      if (1 - similarity <= threshold) pairs.push({ l: li, k: ki, similarity });
    }
  }
  // Most similar first; ties by local then known speaker number, so the result does not depend on order.
  pairs.sort(
    (a, b) =>
      b.similarity - a.similarity ||
      locals[a.l].speaker - locals[b.l].speaker ||
      known[a.k].speaker - known[b.k].speaker,
  );
  const next = known.map((k) => ({ speaker: k.speaker, sum: [...k.sum], count: k.count }));
  const mapping = new Map<number, number>();
  const taken = new Set<number>();
  for (const p of pairs) {
    const l = locals[p.l];
    if (mapping.has(l.speaker) || taken.has(p.k)) continue;
    taken.add(p.k);
    mapping.set(l.speaker, next[p.k].speaker);
    next[p.k].sum = next[p.k].sum.map((x, i) => x + l.v[i]);
    next[p.k].count++;
  }
  let fresh = next.reduce((m, k) => Math.max(m, k.speaker + 1), 0);
  for (const l of [...locals].sort((a, b) => a.speaker - b.speaker)) {
    if (mapping.has(l.speaker)) continue;
    if (next.length >= maxSpeakers && next.length > 0) {
      let best = next[0];
      for (const k of next) if (cosine(l.v, k.sum) > cosine(l.v, best.sum)) best = k;
      mapping.set(l.speaker, best.speaker);
      best.sum = best.sum.map((x, i) => x + l.v[i]);
      best.count++;
      continue;
    }
    mapping.set(l.speaker, fresh);
    next.push({ speaker: fresh++, sum: l.v, count: 1 });
  }
  return { mapping, known: next };
}
