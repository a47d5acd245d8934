/**
 * Greedy decoding (Whisper's, in sherpa-onnx) can fall into a loop and write one phrase again and
 * again until its token limit. A run of the same words said three or more times in a row (a single
 * word: four or more) is kept once: people repeat themselves, but rarely three times running.
 */
const MAX_PHRASE_WORDS = 8;

export function collapseRepeats(text: string): string {
  const words = text.split(' ');
  if (words.length < 3) return text;
  const out: string[] = [];
  let i = 0;
  while (i < words.length) {
    let skipped = false;
    for (let n = 1; n <= MAX_PHRASE_WORDS && i + 3 * n <= words.length; n++) {
      const phrase = words
        .slice(i, i + n)
        .join(' ')
        .toLowerCase();
      let times = 1;
      while (
        i + (times + 1) * n <= words.length &&
        words
          .slice(i + times * n, i + (times + 1) * n)
          .join(' ')
          .toLowerCase() === phrase
      )
        times++;
      if (times >= (n === 1 ? 4 : 3)) {
        out.push(...words.slice(i, i + n));
        i += times * n;
        skipped = true;
        break;
      }
    }
    if (!skipped) out.push(words[i++]);
  }
  return out.join(' ');
}
