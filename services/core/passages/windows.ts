/**
 * Passages: what is embedded for search by meaning. A short turn ("yes, Friday") means little alone,
 * and a question's subject is often said just before or after its answer, so a passage is up to three
 * consecutive sentences, across speaker turns, each written `Speaker: text` so a question that names a
 * person finds what they said. A window of three starts at every sentence, and at the two places
 * before the first (cut at the meeting's start), so every sentence is in three passages and the first
 * and last ones are not ranked on one passage alone. A moment's score is the mean of the scores of the
 * passages that hold it (docs/search.md, "Passages").
 */

export interface WindowSentence {
  idx: number;
  speaker_name: string;
  text: string;
}

export interface Passage {
  first: number;
  last: number;
  text: string;
}

/** Sentences a passage holds at most. */
export const PASSAGE_SENTENCES = 3;
/** A passage stops growing past this many characters (the model reads a few hundred tokens at most). */
export const PASSAGE_CHARS = 1200;

const labelled = (s: WindowSentence) => `${s.speaker_name}: ${s.text}`;

/** The passage from `sentences[first]` up to `sentences[last]`, cut short at PASSAGE_CHARS. */
function windowOf(sentences: readonly WindowSentence[], first: number, last: number): Passage {
  let end = first;
  let text = labelled(sentences[first]);
  while (end < last) {
    const next = `${text} ${labelled(sentences[end + 1])}`;
    if (next.length > PASSAGE_CHARS) break;
    text = next;
    end++;
  }
  return { first: sentences[first].idx, last: sentences[end].idx, text };
}

/**
 * The passages of a meeting's sentences (in index order): for each start from -(PASSAGE_SENTENCES - 1)
 * to the last sentence, the window of PASSAGE_SENTENCES positions from it, cut to the meeting (and at
 * PASSAGE_CHARS), each distinct window once. `from`: the first start wanted (a live meeting's windows
 * that its new sentences start or complete); a window starting at a sentence always holds it, so no
 * sentence is left out.
 */
export function passagesOf(sentences: readonly WindowSentence[], from = -(PASSAGE_SENTENCES - 1)): Passage[] {
  const out: Passage[] = [];
  if (!sentences.length) return out;
  const seen = new Set<string>();
  for (let start = Math.max(from, -(PASSAGE_SENTENCES - 1)); start < sentences.length; start++) {
    const first = Math.max(0, start);
    const last = Math.min(sentences.length - 1, start + PASSAGE_SENTENCES - 1);
    const w = windowOf(sentences, first, last);
    const key = `${w.first}-${w.last}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(w);
  }
  return out;
}
