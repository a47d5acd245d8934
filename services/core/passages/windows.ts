/**
 * Passages: what is embedded for search by meaning. A short turn ("yes, Friday") means little alone,
 * so a passage is a few consecutive sentences; neighbouring passages overlap by a sentence so an
 * answer that spans two is whole in one of them. Each sentence is embedded alone as well, so a passage
 * that answers can cite the one sentence inside it that answers best (docs/search.md, "Passages").
 */

export interface WindowSentence {
  idx: number;
  text: string;
}

export interface Passage {
  first: number;
  last: number;
  text: string;
}

/** Sentences a passage holds at most. */
export const PASSAGE_SENTENCES = 3;
/** Sentences from one passage's start to the next's (PASSAGE_SENTENCES - PASSAGE_STRIDE overlap). */
export const PASSAGE_STRIDE = 2;
/** A passage stops growing past this many characters (a model reads a few hundred tokens at most). */
export const PASSAGE_CHARS = 1200;

/**
 * The passages of a meeting's sentences (in index order): windows of PASSAGE_SENTENCES starting every
 * PASSAGE_STRIDE sentences, cut short at PASSAGE_CHARS (the next then starts right after it); the
 * last window ends at the last sentence.
 * `from`: the first sentence a window may start at (a live meeting's sentences not yet embedded).
 */
export function passagesOf(sentences: readonly WindowSentence[], from = 0): Passage[] {
  const out: Passage[] = [];
  for (let start = from; start < sentences.length;) {
    let end = start;
    let text = sentences[start].text;
    while (end + 1 < sentences.length && end + 1 - start < PASSAGE_SENTENCES) {
      const next = `${text} ${sentences[end + 1].text}`;
      if (next.length > PASSAGE_CHARS) break;
      text = next;
      end++;
    }
    out.push({ first: sentences[start].idx, last: sentences[end].idx, text });
    if (end === sentences.length - 1) break;
    // A window cut short at PASSAGE_CHARS is followed from the sentence after it: none is left out.
    start = Math.min(start + PASSAGE_STRIDE, end + 1);
  }
  return out;
}
