/**
 * The language of a text (caption files uploaded without a language), by tinyld: pure JavaScript,
 * no dependencies, about 60 languages, and right on a few sentences where trigram detectors need
 * paragraphs (figures: test/bench/README.md, "Languages").
 */
import { detectAll } from 'tinyld';

/** Characters read: a meeting's first few minutes say its language as well as the whole. */
const SAMPLE_CHARS = 20_000;
/** Fewer letters than this say too little to tell a language: the meeting stays without one. */
export const MIN_LETTERS = 20;
/** A best guess less sure than this, or less than MARGIN times as sure as the next, is no answer either. */
const MIN_ACCURACY = 0.25;
const MARGIN = 2;

/** The language (an ISO 639-1 code like de) of the texts, or null when they are too short or too mixed to tell. */
export function detectTextLanguage(texts: string[]): string | null {
  let sample = '';
  for (const t of texts) {
    if (sample.length >= SAMPLE_CHARS) break;
    sample += `${t}\n`;
  }
  if ((sample.match(/\p{L}/gu)?.length ?? 0) < MIN_LETTERS) return null;
  const [best, next] = detectAll(sample.slice(0, SAMPLE_CHARS));
  if (!best || best.accuracy < MIN_ACCURACY) return null;
  return next && best.accuracy < MARGIN * next.accuracy ? null : best.lang;
}
