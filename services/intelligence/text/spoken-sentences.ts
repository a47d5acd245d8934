import type { Sentence } from '../types';

/**
 * Caption cues and ASR segments cut speech where the screen or the decoder needed a break, often in
 * the middle of a sentence ("I'll let the board know about the" | "mobile app at next week's update.").
 * Questions, sentiment, action items and key points need real sentences, so this rejoins each speaker's
 * consecutive pieces and splits them again at sentence ends. Times are interpolated by character
 * position inside the piece a sentence starts or ends in. Linear in the length of the transcript.
 */

// A sentence ends at . ? ! or … (closing quotes and brackets included) followed by space and a capital,
// digit or opening quote: "3.5 days" and "e.g. this" stay whole.
const BOUNDARY = /[.?!…]+["'”’)\]]*\s+(?=["'“‘([]?[\p{Lu}\d])/gu;

interface Piece {
  from: number; // character offset in the joined text
  to: number;
  start: number;
  end: number;
  /** The source sentence's index. */
  source: number;
}

function timeAt(pieces: Piece[], offset: number, hint: { i: number }): number {
  while (hint.i < pieces.length - 1 && offset >= pieces[hint.i].to) hint.i++;
  const p = pieces[hint.i];
  const span = Math.max(1, p.to - p.from);
  const within = Math.min(Math.max(0, offset - p.from), span) / span;
  return Math.round((p.start + (p.end - p.start) * within) * 1000) / 1000;
}

export function spokenSentences(sentences: readonly Sentence[]): Sentence[] {
  return spokenSentencesWithSources(sentences).sentences;
}

/**
 * The same, with the source sentence each spoken sentence starts in (`sources[i]` is that sentence's
 * `index`), so what is said about a spoken sentence can cite the stored transcript.
 */
export function spokenSentencesWithSources(sentences: readonly Sentence[]): {
  sentences: Sentence[];
  sources: number[];
} {
  const out: Sentence[] = [];
  const sources: number[] = [];
  let i = 0;
  while (i < sentences.length) {
    const speaker = sentences[i].speaker_id;
    const pieces: Piece[] = [];
    let text = '';
    for (; i < sentences.length && sentences[i].speaker_id === speaker; i++) {
      const s = sentences[i];
      if (text) text += ' ';
      pieces.push({
        from: text.length,
        to: text.length + s.text.length,
        start: s.start_time,
        end: s.end_time,
        source: s.index,
      });
      text += s.text;
    }
    const first = sentences[i - 1];
    const hint = { i: 0 };
    let from = 0;
    const cut = (to: number, next: number) => {
      const piece = text.slice(from, to).trim();
      if (piece) {
        const startOffset = from + (text.slice(from, to).length - text.slice(from, to).trimStart().length);
        const start_time = timeAt(pieces, startOffset, hint);
        sources.push(pieces[hint.i].source);
        out.push({
          index: out.length,
          speaker_name: first.speaker_name,
          speaker_id: speaker,
          text: piece,
          raw_text: piece,
          start_time,
          end_time: timeAt(pieces, to, hint),
        });
      }
      from = next;
    };
    BOUNDARY.lastIndex = 0;
    for (let m = BOUNDARY.exec(text); m; m = BOUNDARY.exec(text)) {
      const end = m.index + m[0].trimEnd().length;
      cut(end, m.index + m[0].length);
    }
    cut(text.length, text.length);
  }
  return { sentences: out, sources };
}
