/**
 * One definition of a "word" for analytics, keywords and the benchmark baseline, so word counts agree
 * everywhere. Contractions ("I'll", "don't") and hyphenated compounds ("follow-up") are one word.
 */
const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

export function words(text: string): string[] {
  return text.match(WORD) ?? [];
}

export function countWords(text: string): number {
  WORD.lastIndex = 0;
  let n = 0;
  while (WORD.exec(text) !== null) n++;
  return n;
}

/** Lower case with the typographic apostrophe folded to ASCII, so "I’ll" and "I'll" match one pattern. */
export function normalizeWord(word: string): string {
  return word.toLowerCase().replace(/’/g, "'");
}
