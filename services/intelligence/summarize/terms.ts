import type { Sentence } from '../types';
import { STOPWORDS } from './stopwords';

/**
 * The content words of a meeting, read once and shared by keywords, topics, the outline and the
 * overview. A term is a content word or two adjacent content words ("pricing page"). Words are folded to
 * a key (lower case, no possessive, simple plural) so "Invoices" and "invoice" count together, and
 * shown in their most common spelling ("API", "Northwind" keep their capitals).
 */

const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

export interface PreparedSentence {
  sentence: Sentence;
  /** Keys of the sentence's content words, in order. */
  unigrams: string[];
  /** Keys of adjacent content-word pairs ("pricing page"). */
  bigrams: string[];
  wordCount: number;
}

export interface Prepared {
  sentences: PreparedSentence[];
  /** Display form of a unigram or bigram key. */
  display(key: string): string;
}

function keyOf(lower: string): string {
  let w = lower.replace(/['’]s$/, '');
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith('s') && !/(?:ss|us|is|ics)$/.test(w)) w = w.slice(0, -1);
  return w;
}

function isContent(surface: string, lower: string, stop: ReadonlySet<string>, extraStop: ReadonlySet<string>): boolean {
  if (stop.has(lower) || extraStop.has(lower)) return false;
  if (/^\d+(?:[.,]\d+)?$/.test(lower)) return false;
  if (lower.length >= 3) return true;
  // Two-letter acronyms ("UI", "QA") and letter-digit codes ("Q4", "v2") are content; "do", "it" are not.
  return /^[A-Z]{2}$/.test(surface) || (/\d/.test(lower) && /\p{L}/u.test(lower));
}

/**
 * @param extraStop lower-case words to ignore besides the stop words, such as the speakers' names
 * @param stop the stop words of the meeting's language (stopwordsFor); English by default
 */
export function prepare(
  sentences: readonly Sentence[],
  extraStop: ReadonlySet<string> = new Set(),
  stop: ReadonlySet<string> = STOPWORDS,
): Prepared {
  // surface spelling counts per key: proper nouns and acronyms keep their case when that is how they are written
  const forms = new Map<string, Map<string, number>>();
  const prepared: PreparedSentence[] = sentences.map((sentence) => {
    const unigrams: string[] = [];
    const bigrams: string[] = [];
    let previous: string | null = null;
    let position = 0;
    for (const m of sentence.text.matchAll(WORD)) {
      const surface = m[0].replace(/’/g, "'");
      const lower = surface.toLowerCase();
      const content = isContent(surface, lower, stop, extraStop) && !stop.has(keyOf(lower));
      if (content) {
        const key = keyOf(lower);
        unigrams.push(key);
        if (previous) bigrams.push(`${previous} ${key}`);
        // The first word of a sentence is capitalised by grammar, so it counts for little: a word seen
        // only there keeps its capital ("Northwind"), one also seen mid-sentence takes that spelling.
        const weight = position === 0 && !/^[\p{Lu}\d]+$/u.test(surface) ? 0.25 : 1;
        let byForm = forms.get(key);
        if (!byForm) forms.set(key, (byForm = new Map()));
        byForm.set(surface, (byForm.get(surface) ?? 0) + weight);
        previous = key;
      } else {
        previous = null;
      }
      position++;
    }
    return { sentence, unigrams, bigrams, wordCount: position };
  });

  const shown = new Map<string, string>();
  const displayWord = (key: string): string => {
    let d = shown.get(key);
    if (d === undefined) {
      let best = key;
      let bestCount = -1;
      for (const [form, count] of forms.get(key) ?? []) {
        // Lower case wins ties: "Pricing" after a comma-less clause break is still "pricing".
        const weight = form === form.toLowerCase() ? count + 0.1 : count;
        if (weight > bestCount || (weight === bestCount && form < best)) {
          best = form;
          bestCount = weight;
        }
      }
      d = best;
      shown.set(key, d);
    }
    return d;
  };
  return {
    sentences: prepared,
    display: (key) => key.split(' ').map(displayWord).join(' '),
  };
}

export interface ScoredTerm {
  key: string;
  count: number;
  score: number;
}

/** In how many of the parts each term occurs (the "document frequency" of TF-IDF). */
export function documentFrequencies(prepared: Prepared, parts: readonly [number, number][]): Map<string, number> {
  const df = new Map<string, number>();
  for (const [from, to] of parts) {
    const inPart = new Set<string>();
    for (let i = from; i < to; i++) {
      const p = prepared.sentences[i];
      for (const k of p.unigrams) inPart.add(k);
      for (const k of p.bigrams) inPart.add(k);
    }
    for (const k of inPart) df.set(k, (df.get(k) ?? 0) + 1);
  }
  return df;
}

/**
 * TF-IDF where the "documents" are parts of the same meeting: a term said often scores high, and more
 * so when it is concentrated in some parts (a topic) than spread evenly (small talk that escaped the
 * stopword list). Pairs need to occur twice to count and weigh double: they name things precisely.
 *
 * @param df document frequencies over `partCount` parts (documentFrequencies)
 * @param focus the range [from, to) of sentences whose terms are scored (the meeting, or one section)
 */
export function scoreTerms(
  prepared: Prepared,
  df: ReadonlyMap<string, number>,
  partCount: number,
  focus: [number, number],
): ScoredTerm[] {
  const tf = new Map<string, number>();
  for (let i = focus[0]; i < focus[1]; i++) {
    const p = prepared.sentences[i];
    for (const k of p.unigrams) tf.set(k, (tf.get(k) ?? 0) + 1);
    for (const k of p.bigrams) tf.set(k, (tf.get(k) ?? 0) + 1);
  }
  const scored: ScoredTerm[] = [];
  for (const [key, count] of tf) {
    const pair = key.includes(' ');
    if (pair && count < 2) continue;
    const idf = 1 + Math.log(partCount / (df.get(key) ?? 1));
    scored.push({ key, count, score: count * idf * (pair ? 2 : 1) });
  }
  return scored.sort((a, b) => b.score - a.score || b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * The best `limit` terms without repeating themselves: a word is skipped when a chosen pair contains
 * it, and a pair when one of its words was already chosen on its own and the pair adds little.
 */
export function pickTerms(scored: readonly ScoredTerm[], limit: number): ScoredTerm[] {
  const chosen: ScoredTerm[] = [];
  const words = new Set<string>();
  const counts = new Map(scored.map((t) => [t.key, t.count]));
  for (const term of scored) {
    if (chosen.length >= limit) break;
    const parts = term.key.split(' ');
    if (parts.length === 1) {
      if (words.has(term.key)) continue;
      words.add(term.key);
    } else {
      // "pricing page" after "pricing": keep the pair only when it is most of what "pricing" was said for.
      if (parts.some((w) => words.has(w) && term.count * 2 < (counts.get(w) ?? 0))) continue;
      parts.forEach((w) => words.add(w));
      for (let i = chosen.length - 1; i >= 0; i--) if (parts.includes(chosen[i].key)) chosen.splice(i, 1);
    }
    chosen.push(term);
  }
  return chosen;
}

/** Split [0, n) into `k` ranges of near-equal size. */
export function equalParts(n: number, k: number): [number, number][] {
  const parts: [number, number][] = [];
  const count = Math.max(1, Math.min(k, n));
  for (let i = 0; i < count; i++) parts.push([Math.floor((i * n) / count), Math.floor(((i + 1) * n) / count)]);
  return parts;
}
