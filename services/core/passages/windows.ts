/**
 * Passages: what is embedded for search by meaning. A short turn ("yes, Friday") means little alone,
 * and a question's subject is often said just before or after its answer, so a passage is three
 * consecutive sentences, one starting at every sentence (an inner sentence is in three), across
 * speaker turns, each written `Speaker: text` so a question that names a person finds what they said.
 * A moment's score is the mean of the scores of the passages that hold it (docs/search.md, "Passages").
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

/** The passage that starts at `sentences[start]`: up to PASSAGE_SENTENCES, cut short at PASSAGE_CHARS. */
function windowAt(sentences: readonly WindowSentence[], start: number): Passage & { end: number } {
  let end = start;
  let text = labelled(sentences[start]);
  while (end + 1 < sentences.length && end + 1 - start < PASSAGE_SENTENCES) {
    const next = `${text} ${labelled(sentences[end + 1])}`;
    if (next.length > PASSAGE_CHARS) break;
    text = next;
    end++;
  }
  return { first: sentences[start].idx, last: sentences[end].idx, text, end };
}

/**
 * The passages of a meeting's sentences (in index order): one starting at each sentence that has
 * PASSAGE_SENTENCES - 1 after it (a meeting shorter than that is one passage), so every sentence is in
 * at least one. `from`: the position in `sentences` of the first start wanted (a live meeting's new
 * windows).
 */
export function passagesOf(sentences: readonly WindowSentence[], from = 0): Passage[] {
  const lastStart = Math.max(0, sentences.length - PASSAGE_SENTENCES);
  const out: Passage[] = [];
  let covered = Math.max(0, from) - 1;
  for (let start = Math.max(0, from); start < sentences.length; start++) {
    // Past the last full window's start, a window only for a sentence no passage holds yet (one cut short).
    if (start > lastStart && start <= covered) continue;
    const { end, ...w } = windowAt(sentences, start);
    out.push(w);
    covered = end;
  }
  return out;
}
