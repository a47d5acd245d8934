/**
 * Diarization error rate, as pyannote.metrics and NIST md-eval define it with no collar and overlapped
 * speech scored: over the reference's speech time, (missed speech + false alarm + speaker confusion) /
 * total reference speech, where each reference speaker is mapped to at most one hypothesis speaker so
 * that the time they share is the largest possible (the optimal one-to-one mapping).
 *
 * The time line is cut at every turn boundary; within each piece the sets of active speakers are fixed,
 * so the scores are exact (no frame rounding).
 */

export interface Turn {
  start: number;
  end: number;
  speaker: string;
}

export interface DerScore {
  /** (missed + falseAlarm + confusion) / total. */
  der: number;
  missed: number;
  falseAlarm: number;
  confusion: number;
  /** Seconds of reference speech, counted once per speaker (two talking at once count twice). */
  total: number;
  /** Reference speaker → hypothesis speaker of the optimal mapping (unmapped speakers absent). */
  mapping: Map<string, string>;
}

/** Reads the SPEAKER lines of an RTTM file (the start is field 4, the duration field 5, the speaker field 8). */
export function parseRttm(text: string): Turn[] {
  const turns: Turn[] = [];
  for (const [n, line] of text.split('\n').entries()) {
    const f = line.trim().split(/\s+/);
    if (f[0] !== 'SPEAKER') continue;
    const start = Number(f[3]);
    const duration = Number(f[4]);
    if (!Number.isFinite(start) || !Number.isFinite(duration) || duration < 0 || !f[7])
      throw new Error(`rttm line ${n + 1}: expected SPEAKER <file> <chan> <start> <duration> <NA> <NA> <speaker>`);
    turns.push({ start, end: start + duration, speaker: f[7] });
  }
  return turns;
}

/** The pieces of time between consecutive boundaries, with who speaks in each. */
function pieces(reference: Turn[], hypothesis: Turn[]): { duration: number; ref: string[]; hyp: string[] }[] {
  const cuts = [...new Set([...reference, ...hypothesis].flatMap((t) => [t.start, t.end]))].sort((a, b) => a - b);
  const active = (turns: Turn[], a: number, b: number) => [
    ...new Set(turns.filter((t) => t.start <= a && t.end >= b).map((t) => t.speaker)),
  ];
  const out = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const [a, b] = [cuts[i], cuts[i + 1]];
    if (b <= a) continue;
    out.push({ duration: b - a, ref: active(reference, a, b), hyp: active(hypothesis, a, b) });
  }
  return out;
}

/**
 * The one-to-one mapping of reference to hypothesis speakers with the most shared time: exhaustive over
 * subsets of hypothesis speakers (dynamic programming on a bit mask), fine for the few speakers of a
 * meeting; refuses more than 16 hypothesis speakers rather than take minutes.
 */
function optimalMapping(refs: string[], hyps: string[], shared: (r: string, h: string) => number): Map<string, string> {
  if (hyps.length > 16) throw new Error(`hypothesis: ${hyps.length} speakers, at most 16 can be scored`);
  const full = 1 << hyps.length;
  // best[i][mask]: most shared time assigning refs[i..] with the hypothesis speakers in mask already taken.
  const best: Float64Array[] = Array.from({ length: refs.length + 1 }, () => new Float64Array(full));
  for (let i = refs.length - 1; i >= 0; i--) {
    for (let mask = 0; mask < full; mask++) {
      let v = best[i + 1][mask];
      for (let j = 0; j < hyps.length; j++) {
        if (mask & (1 << j)) continue;
        v = Math.max(v, shared(refs[i], hyps[j]) + best[i + 1][mask | (1 << j)]);
      }
      best[i][mask] = v;
    }
  }
  const mapping = new Map<string, string>();
  let mask = 0;
  for (let i = 0; i < refs.length; i++) {
    if (best[i][mask] === best[i + 1][mask]) continue;
    for (let j = 0; j < hyps.length; j++) {
      if (mask & (1 << j)) continue;
      const s = shared(refs[i], hyps[j]);
      if (s > 0 && s + best[i + 1][mask | (1 << j)] === best[i][mask]) {
        mapping.set(refs[i], hyps[j]);
        mask |= 1 << j;
        break;
      }
    }
  }
  return mapping;
}

export function diarizationErrorRate(reference: Turn[], hypothesis: Turn[]): DerScore {
  const parts = pieces(reference, hypothesis);
  const together = new Map<string, number>();
  for (const p of parts)
    for (const r of p.ref)
      for (const h of p.hyp) together.set(`${r}\u0000${h}`, (together.get(`${r}\u0000${h}`) ?? 0) + p.duration);
  const refs = [...new Set(reference.map((t) => t.speaker))];
  const hyps = [...new Set(hypothesis.map((t) => t.speaker))];
  const mapping = optimalMapping(refs, hyps, (r, h) => together.get(`${r}\u0000${h}`) ?? 0);
  let missed = 0;
  let falseAlarm = 0;
  let confusion = 0;
  let total = 0;
  for (const p of parts) {
    const nRef = p.ref.length;
    const nHyp = p.hyp.length;
    const correct = p.ref.filter((r) => mapping.has(r) && p.hyp.includes(mapping.get(r)!)).length;
    total += p.duration * nRef;
    missed += p.duration * Math.max(0, nRef - nHyp);
    falseAlarm += p.duration * Math.max(0, nHyp - nRef);
    confusion += p.duration * (Math.min(nRef, nHyp) - correct);
  }
  if (total === 0) throw new Error('reference: no speech to score against');
  return { der: (missed + falseAlarm + confusion) / total, missed, falseAlarm, confusion, total, mapping };
}
