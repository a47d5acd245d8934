/**
 * Token estimates: how many tokens an answer costs a model, so a page stays within its budget (MCP
 * clients refuse answers past a size). Every budgeted answer (transcript pages, lists with moments,
 * the automation log) estimates with these, so their budgets mean the same thing.
 *
 * Cheap and deliberately a little pessimistic: no tokenizer is run, bytes are counted. An estimate a
 * little high costs a page a few rows; one too low makes a client refuse the whole answer.
 */

/** UTF-8 bytes per token of prose: English runs near 4; counting bytes, not characters, keeps CJK text from being undercounted. */
const PROSE_BYTES_PER_TOKEN = 3.6;
/** UTF-8 bytes per token of ids, emails, URLs, dates and JSON punctuation, which tokenize denser than prose. */
const DENSE_BYTES_PER_TOKEN = 2.5;
/** What an estimate of a JSON value adds for the braces and separators around it, unless told otherwise. */
export const JSON_FRAMING_TOKENS = 10;

/** Tokens of prose text. */
export function estimateTextTokens(s: string): number {
  return Math.ceil(Buffer.byteLength(s, 'utf8') / PROSE_BYTES_PER_TOKEN);
}

/** Tokens of `bytes` bytes of ids, links, names and JSON punctuation (the dense rate). */
export function estimateDenseTokens(bytes: number): number {
  return Math.ceil(bytes / DENSE_BYTES_PER_TOKEN);
}

/** Tokens of a value's JSON, all of it at the dense rate (erring high for prose), plus `framing`. */
export function estimateJsonTokens(v: unknown, framing = JSON_FRAMING_TOKENS): number {
  return estimateDenseTokens(Buffer.byteLength(JSON.stringify(v), 'utf8')) + framing;
}

/** Tokenizers split digits in groups of up to three and the decimal point on its own: counted on the number's text. */
export function numberTokensOfText(n: number): number {
  const s = String(n);
  const dot = s.indexOf('.');
  if (dot < 0) return Math.ceil(s.length / 3);
  const frac = s.length - dot - 1;
  return Math.ceil(dot / 3) + (frac > 0 ? 1 + Math.ceil(frac / 3) : 0);
}

/**
 * numberTokensOfText without making the text, for what sentence rows hold (indices, speaker ids, and
 * times in seconds with at most three decimals): a page estimates four numbers a row, and turning
 * them into strings was a visible part of a transcript call's CPU. Anything else is counted on its text.
 */
export function estimateNumberTokens(n: number): number {
  if (n >= 0 && n < 1e15) {
    const whole = Math.floor(n);
    let digits = 1;
    for (let x = whole; x >= 10; x = Math.floor(x / 10)) digits++;
    if (whole === n) return Math.ceil(digits / 3);
    // n is the double nearest k/1000, so its shortest text has 1 to 3 decimals: a point and one group.
    if (Math.round(n * 1000) / 1000 === n) return Math.ceil(digits / 3) + 2;
  }
  return numberTokensOfText(n);
}
