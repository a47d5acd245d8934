import type { OutlineSection } from './types';
import { documentFrequencies, pickTerms, scoreTerms, type Prepared, type PreparedSentence } from './terms';

/**
 * About one section per four minutes, at most ten, never fewer than six sentences each; a meeting of
 * two dozen sentences or more gets at least two, so short meetings still have an outline to skim.
 */
const MINUTES_PER_SECTION = 4;
const SENTENCES_FOR_TWO_SECTIONS = 24;
const MAX_SECTIONS = 10;
const MIN_SENTENCES_PER_SECTION = 6;
const WINDOW = 6;

function add(bag: Map<string, number>, keys: readonly string[], delta: 1 | -1): void {
  for (const k of keys) {
    const v = (bag.get(k) ?? 0) + delta;
    if (v === 0) bag.delete(k);
    else bag.set(k, v);
  }
}

/** Cosine of two bags of words. */
export function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [k, v] of a) {
    na += v * v;
    const w = b.get(k);
    if (w) dot += v * w;
  }
  for (const v of b.values()) nb += v * v;
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/**
 * Section boundaries where the vocabulary changes most (TextTiling, simplified): for every gap between
 * sentences, compare the words of the few sentences before it with the few after (two windows that
 * slide along, so the work stays linear); the least similar gaps, kept apart from each other, start new
 * sections. Ties go to longer pauses.
 */
function boundaries(prepared: Prepared, sections: number): number[] {
  const s = prepared.sentences;
  const n = s.length;
  const minGap = Math.max(3, Math.floor(n / (2 * sections)));
  const candidates: { at: number; similarity: number; pause: number }[] = [];
  const left = new Map<string, number>();
  const right = new Map<string, number>();
  // windows for the gap before sentence `minGap`: left [minGap - WINDOW, minGap), right [minGap, minGap + WINDOW)
  for (let i = Math.max(0, minGap - WINDOW); i < minGap; i++) add(left, s[i].unigrams, 1);
  for (let i = minGap; i < Math.min(n, minGap + WINDOW); i++) add(right, s[i].unigrams, 1);
  for (let at = minGap; at <= n - minGap; at++) {
    candidates.push({
      at,
      similarity: cosine(left, right),
      pause: s[at].sentence.start_time - s[at - 1].sentence.end_time,
    });
    // slide both windows one sentence on
    add(left, s[at].unigrams, 1);
    if (at - WINDOW >= 0) add(left, s[at - WINDOW].unigrams, -1);
    add(right, s[at].unigrams, -1);
    if (at + WINDOW < n) add(right, s[at + WINDOW].unigrams, 1);
  }
  candidates.sort((a, b) => a.similarity - b.similarity || b.pause - a.pause || a.at - b.at);
  const chosen: number[] = [];
  for (const c of candidates) {
    if (chosen.length >= sections - 1) break;
    if (chosen.every((at) => Math.abs(at - c.at) >= minGap)) chosen.push(c.at);
  }
  return chosen.sort((a, b) => a - b);
}

function capitalize(s: string): string {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

/** The sentence densest in the section's own terms; statements before questions, long enough to say something. */
function representative(sentences: PreparedSentence[], weight: Map<string, number>): PreparedSentence {
  let best = sentences[0];
  let bestScore = -1;
  for (const p of sentences) {
    const unique = new Set(p.unigrams);
    let score = 0;
    for (const k of unique) score += weight.get(k) ?? 0;
    score /= Math.sqrt(p.wordCount + 1);
    if (p.wordCount < 6 || p.sentence.text.trim().endsWith('?')) score *= 0.25;
    if (score > bestScore) {
      best = p;
      bestScore = score;
    }
  }
  return best;
}

export interface OutlineResult {
  sections: OutlineSection[];
  /** The top terms of each section, for topics_discussed. */
  sectionTerms: string[][];
}

export function buildOutline(prepared: Prepared): OutlineResult {
  const all = prepared.sentences;
  const n = all.length;
  if (n === 0) return { sections: [], sectionTerms: [] };
  const minutes = (all[n - 1].sentence.end_time - all[0].sentence.start_time) / 60;
  const floor = n >= SENTENCES_FOR_TWO_SECTIONS ? 2 : 1;
  const wanted = Math.min(
    MAX_SECTIONS,
    Math.max(floor, Math.round(minutes / MINUTES_PER_SECTION)),
    Math.max(1, Math.floor(n / MIN_SENTENCES_PER_SECTION)),
  );
  const cuts = wanted > 1 ? boundaries(prepared, wanted) : [];
  const ranges: [number, number][] = [0, ...cuts].map((from, i) => [from, cuts[i] ?? n]);

  const sections: OutlineSection[] = [];
  const sectionTerms: string[][] = [];
  const df = documentFrequencies(prepared, ranges);
  for (const [from, to] of ranges) {
    const scored = scoreTerms(prepared, df, ranges.length, [from, to]);
    const top = pickTerms(scored, 2).map((t) => prepared.display(t.key));
    const weight = new Map(scored.map((t) => [t.key, t.score]));
    const members = all.slice(from, to);
    const lead = representative(members, weight);
    const title = top.length ? capitalize(top.join(' and ')) : capitalize(firstWords(lead.sentence.text, 6));
    sections.push({
      title,
      start_time: members[0].sentence.start_time,
      end_time: members.reduce((t, p) => Math.max(t, p.sentence.end_time), 0),
      summary: lead.sentence.text,
      index: lead.sentence.index,
    });
    sectionTerms.push(top);
  }
  return { sections, sectionTerms };
}

function firstWords(text: string, count: number): string {
  const words = text.split(/\s+/);
  return words.length > count ? `${words.slice(0, count).join(' ')}…` : text;
}
