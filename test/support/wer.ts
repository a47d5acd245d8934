/**
 * Word error rate with one normaliser for every reference and hypothesis: lower case, digits spelt
 * as words (0 to 99), titles spelt out (Mr., Dr.), apostrophes kept inside words, every other
 * punctuation mark a space.
 */
const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

function spell(n: number): string {
  if (n < 20) return ONES[n];
  if (n < 100) return `${TENS[Math.floor(n / 10)]}${n % 10 ? ` ${ONES[n % 10]}` : ''}`;
  return String(n)
    .split('')
    .map((d) => ONES[Number(d)])
    .join(' ');
}

/** Titles written either way. */
const SPOKEN: Record<string, string> = { mr: 'mister', mrs: 'missus', dr: 'doctor', ok: 'okay' };

export function normalise(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/\d+/g, (d) => ` ${spell(Number(d))} `)
    .replace(/[^\p{L}\p{N}' ]+/gu, ' ')
    .split(/\s+/)
    .map((w) => w.replace(/^'+|'+$/g, ''))
    .map((w) => SPOKEN[w] ?? w)
    .filter(Boolean);
}

/** Edit distance of word lists. */
function distance(a: string[], b: string[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/** Errors and reference words over a set of (reference, hypothesis) pairs. */
export function wordErrorRate(pairs: { reference: string; hypothesis: string }[]): {
  wer: number;
  errors: number;
  words: number;
} {
  let errors = 0;
  let words = 0;
  for (const p of pairs) {
    const ref = normalise(p.reference);
    errors += distance(ref, normalise(p.hypothesis));
    words += ref.length;
  }
  return { wer: words ? errors / words : 0, errors, words };
}
