import { cosine as bagCosine } from './outline';
import { documentFrequencies, pickTerms, type Prepared } from './terms';

/**
 * Topics are what stretches of the conversation are about. The sentences that are not small talk are
 * cut where what is said changes most (TextTiling: how alike the few sentences before a gap are to the
 * few after it, and how deep that dip is against the peaks on either side), and each stretch is named
 * by the terms it says most and the rest of the meeting says least. Likeness is the cosine of the
 * windows' mean sentence vectors when an embedding model is at hand (it sees "quote" and "pricing" as
 * one subject), else of their content words. A stretch whose best term is said only in passing, or
 * is a word too vague to name anything, names no topic.
 */

const WINDOW = 4;
/** Content sentences a stretch holds at least. */
const MIN_STRETCH = 3;
/** About one stretch per this many content sentences, however deep the dips. */
const SENTENCES_PER_STRETCH = 6;
const MAX_STRETCHES = 14;
export const MAX_TOPICS = 8;

/** Words that name no subject on their own, though a meeting may say them often. */
const VAGUE = new Set(
  (
    'number numbers people person team thing part way question questions hour hours minute minutes week weeks day ' +
    'days month months year years time call calls meeting point idea lot side case version customer customers ' +
    'problem problems work start end plan option options update couple percent today tomorrow yesterday decide ' +
    'note notes thing first second third deal account sound read name blocked screen'
  ).split(' '),
);

export interface TopicStretch {
  /** Positions in the prepared sentences, [from, to). */
  from: number;
  to: number;
  /** The name, or null when nothing is said enough to name it. */
  title: string | null;
  /** Keys of the terms that name it. */
  terms: string[];
}

function addBag(bag: Map<string, number>, keys: readonly string[]): void {
  for (const k of keys) bag.set(k, (bag.get(k) ?? 0) + 1);
}

function meanCosine(vectors: readonly Float32Array[]): (a: number[], b: number[]) => number {
  const mean = (ids: number[]) => {
    const out = new Float32Array(vectors[ids[0]].length);
    for (const i of ids) for (let d = 0; d < out.length; d++) out[d] += vectors[i][d];
    let norm = 0;
    for (const x of out) norm += x * x;
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < out.length; d++) out[d] /= norm;
    return out;
  };
  return (a, b) => {
    const x = mean(a);
    const y = mean(b);
    let dot = 0;
    for (let d = 0; d < x.length; d++) dot += x[d] * y[d];
    return dot;
  };
}

/** Gap positions (in `content`) that start a new stretch. */
function cuts(similarity: number[], count: number): number[] {
  const depth = similarity.map((s, g) => {
    let left = s;
    for (let i = g; i >= 0 && similarity[i] >= left; i--) left = similarity[i];
    let right = s;
    for (let i = g; i < similarity.length && similarity[i] >= right; i++) right = similarity[i];
    return left - s + (right - s);
  });
  const mean = depth.reduce((t, d) => t + d, 0) / (depth.length || 1);
  const sd = Math.sqrt(depth.reduce((t, d) => t + (d - mean) ** 2, 0) / (depth.length || 1));
  const ranked = depth
    .map((d, g) => ({ g, d }))
    .filter((x) => x.d > 0 && x.d >= mean - sd / 2)
    .sort((a, b) => b.d - a.d || a.g - b.g);
  const chosen: number[] = [];
  for (const { g } of ranked) {
    if (chosen.length >= count) break;
    // gap g lies before content sentence g + 1
    const at = g + 1;
    if (at < MIN_STRETCH || similarity.length + 1 - at < MIN_STRETCH) continue;
    if (chosen.every((c) => Math.abs(c - at) >= MIN_STRETCH)) chosen.push(at);
  }
  return chosen.sort((a, b) => a - b);
}

/**
 * The meeting's stretches by content, in order, over the sentences that are not small talk.
 * @param smallTalk by position: sentences left out of every stretch
 * @param vectors unit sentence vectors by position, or null to compare words
 */
export function topicStretches(
  prepared: Prepared,
  smallTalk: readonly boolean[],
  vectors?: readonly (Float32Array | undefined)[] | null,
): TopicStretch[] {
  const all = prepared.sentences;
  const content = all.map((_, i) => i).filter((i) => !smallTalk[i] && all[i].unigrams.length > 0);
  if (content.length === 0) return [];
  const withVectors = vectors && content.every((i) => vectors[i]) ? (vectors as Float32Array[]) : null;
  const byWords = (a: number[], b: number[]) => {
    const x = new Map<string, number>();
    const y = new Map<string, number>();
    for (const i of a) addBag(x, all[i].unigrams);
    for (const i of b) addBag(y, all[i].unigrams);
    return bagCosine(x, y);
  };
  const byMeaning = withVectors ? meanCosine(withVectors) : null;
  // Words catch a named subject coming back; meaning catches the same subject in other words.
  const compare = byMeaning ? (a: number[], b: number[]) => (byWords(a, b) + byMeaning(a, b)) / 2 : byWords;
  const similarity: number[] = [];
  for (let g = 0; g + 1 < content.length; g++) {
    const left = content.slice(Math.max(0, g + 1 - WINDOW), g + 1);
    const right = content.slice(g + 1, g + 1 + WINDOW);
    similarity.push(compare(left, right));
  }
  const count = Math.min(MAX_STRETCHES, Math.max(1, Math.round(content.length / SENTENCES_PER_STRETCH))) - 1;
  const starts = [0, ...cuts(similarity, count)];
  // Stretches span from their first content sentence to the next stretch's (small talk inside stays inside).
  const ranges: [number, number][] = starts.map((s, i) => [
    content[s],
    i + 1 < starts.length ? content[starts[i + 1]] : all.length,
  ]);
  const df = documentFrequencies(prepared, ranges);
  // How often each pair is said in the whole meeting: a pair said twice anywhere names a stretch that says it once.
  const pairCount = new Map<string, number>();
  for (const p of all) for (const k of p.bigrams) pairCount.set(k, (pairCount.get(k) ?? 0) + 1);
  const stretches: TopicStretch[] = [];
  for (const [from, to] of ranges) {
    const tf = new Map<string, number>();
    for (let i = from; i < to; i++) {
      for (const k of all[i].unigrams) tf.set(k, (tf.get(k) ?? 0) + 1);
      for (const k of all[i].bigrams) tf.set(k, (tf.get(k) ?? 0) + 1);
    }
    const scored = [...tf]
      .filter(([key, count]) => {
        const words = key.split(' ');
        if (words.some((w) => VAGUE.has(w))) return false;
        return words.length > 1 ? (pairCount.get(key) ?? 0) >= 2 : count >= 2;
      })
      .map(([key, count]) => {
        const idf = 1 + Math.log(ranges.length / (df.get(key) ?? 1));
        return { key, count, score: count * idf * (key.includes(' ') ? 2.5 : 1) };
      })
      .sort((a, b) => b.score - a.score || b.count - a.count || (a.key < b.key ? -1 : 1));
    const terms = pickTerms(scored, 2).map((t) => t.key);
    const title = terms.length ? capitalize(prepared.display(terms[0])) : null;
    const last = stretches[stretches.length - 1];
    if (last && title && last.title?.toLowerCase() === title.toLowerCase()) last.to = to;
    else stretches.push({ from, to, title, terms });
  }
  return stretches;
}

function capitalize(s: string): string {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

/** Topic names in order of first mention, each once, a name inside a longer one kept as the longer. */
export function topicNames(stretches: readonly TopicStretch[]): { title: string; stretch: TopicStretch }[] {
  const out: { title: string; stretch: TopicStretch; words: string[] }[] = [];
  for (const s of stretches) {
    if (!s.title) continue;
    const words = s.title.toLowerCase().split(/\s+/);
    const overlapping = out.find((o) => o.words.some((w) => words.includes(w)));
    if (overlapping) {
      if (words.length > overlapping.words.length) Object.assign(overlapping, { title: s.title, words });
      continue;
    }
    if (out.length < MAX_TOPICS) out.push({ title: s.title, stretch: s, words });
  }
  return out.map(({ title, stretch }) => ({ title, stretch }));
}
