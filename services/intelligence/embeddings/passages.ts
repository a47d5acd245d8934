/**
 * What is embedded of a transcript: passages of a few consecutive sentences, so that a short turn
 * ("yes, Friday") is embedded with what it answers, and a question that names a person finds what
 * they said. Each sentence starts one passage (the meeting's last ones are inside the passage before
 * them), passages run across speaker turns, and each sentence is written "Speaker: text". The layout
 * was chosen by measurement on the project's question set (docs/search.md).
 */

/** Sentences in a passage, and how many sentences one passage starts after the previous one. */
export const PASSAGE_SENTENCES = 3;
export const PASSAGE_STEP = 1;

export interface PassageSentence {
  /** The sentence's position in its meeting (sentences.idx). */
  index: number;
  speaker_name: string;
  text: string;
}

export interface Passage {
  /** Positions of the passage's first and last sentence in the meeting, both included. */
  first: number;
  last: number;
  /** What is embedded. */
  text: string;
}

/** The passages of one meeting's sentences, given in meeting order. */
export function passagesOf(sentences: readonly PassageSentence[]): Passage[] {
  const out: Passage[] = [];
  for (let at = 0; at < sentences.length; at += PASSAGE_STEP) {
    const part = sentences.slice(at, at + PASSAGE_SENTENCES);
    out.push({
      first: part[0].index,
      last: part[part.length - 1].index,
      text: part.map((s) => (s.speaker_name ? `${s.speaker_name}: ${s.text}` : s.text)).join(' '),
    });
    if (at + PASSAGE_SENTENCES >= sentences.length) break;
  }
  return out;
}
