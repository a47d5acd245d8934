/**
 * The tree of a PostgreSQL tsquery, read from its canonical text form (what `::text` of
 * websearch_to_tsquery answers), so keyword search can ask each part of a query the cheapest
 * question: words against a meeting's lexemes, phrases against its sentences (which keep positions).
 *
 * Precedence (PostgreSQL's): ! binds tightest, then <-> and <N>, then &, then |.
 */

export type TsNode =
  | { kind: 'lex'; text: string }
  | { kind: 'not'; arg: TsNode }
  | { kind: 'and' | 'or'; left: TsNode; right: TsNode }
  | { kind: 'phrase'; op: string; left: TsNode; right: TsNode };

type Token = { t: 'lex'; text: string } | { t: 'op'; op: string };

/** Lexemes are single-quoted with '' and \\ doubled, optionally followed by :* or weights. */
function tokens(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ') {
      i++;
    } else if (c === "'") {
      const start = i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated lexeme');
        if (text[i] === '\\') i += 2;
        else if (text[i] === "'" && text[i + 1] === "'") i += 2;
        else if (text[i] === "'") break;
        else i++;
      }
      i++;
      const suffix = /^:[*A-Da-d]+/.exec(text.slice(i));
      if (suffix) i += suffix[0].length;
      out.push({ t: 'lex', text: text.slice(start, i) });
    } else if (c === '<') {
      const m = /^<(-|\d+)>/.exec(text.slice(i));
      if (!m) throw new Error(`bad operator at ${i}`);
      out.push({ t: 'op', op: m[0] });
      i += m[0].length;
    } else if ('&|!()'.includes(c)) {
      out.push({ t: 'op', op: c });
      i++;
    } else {
      throw new Error(`unexpected ${JSON.stringify(c)} at ${i}`);
    }
  }
  return out;
}

/** The tree of a tsquery's text, or null for the empty query (only stop words). Throws on anything else. */
export function parseTsquery(text: string): TsNode | null {
  const toks = tokens(text);
  if (toks.length === 0) return null;
  let pos = 0;
  const peek = () => toks[pos];
  const isOp = (op: string | RegExp) => {
    const k = peek();
    return k?.t === 'op' && (typeof op === 'string' ? k.op === op : op.test(k.op));
  };

  const unary = (): TsNode => {
    const k = toks[pos++];
    if (!k) throw new Error('unexpected end');
    if (k.t === 'lex') return { kind: 'lex', text: k.text };
    if (k.op === '!') return { kind: 'not', arg: unary() };
    if (k.op === '(') {
      const inner = or();
      if (!isOp(')')) throw new Error('missing )');
      pos++;
      return inner;
    }
    throw new Error(`unexpected ${k.op}`);
  };
  const phrase = (): TsNode => {
    let left = unary();
    while (isOp(/^<(-|\d+)>$/)) {
      const op = (toks[pos++] as { op: string }).op;
      left = { kind: 'phrase', op, left, right: unary() };
    }
    return left;
  };
  const and = (): TsNode => {
    let left = phrase();
    while (isOp('&')) {
      pos++;
      left = { kind: 'and', left, right: phrase() };
    }
    return left;
  };
  const or = (): TsNode => {
    let left = and();
    while (isOp('|')) {
      pos++;
      left = { kind: 'or', left, right: and() };
    }
    return left;
  };

  const tree = or();
  if (pos !== toks.length) throw new Error('trailing tokens');
  return tree;
}

/** Back to tsquery text, fully parenthesised (PostgreSQL reads it as the same query). */
export function serialize(n: TsNode): string {
  switch (n.kind) {
    case 'lex':
      return n.text;
    case 'not':
      return `!(${serialize(n.arg)})`;
    case 'and':
      return `(${serialize(n.left)} & ${serialize(n.right)})`;
    case 'or':
      return `(${serialize(n.left)} | ${serialize(n.right)})`;
    case 'phrase':
      return `(${serialize(n.left)} ${n.op} ${serialize(n.right)})`;
  }
}

export function hasPhrase(n: TsNode): boolean {
  switch (n.kind) {
    case 'lex':
      return false;
    case 'not':
      return hasPhrase(n.arg);
    case 'phrase':
      return true;
    default:
      return hasPhrase(n.left) || hasPhrase(n.right);
  }
}

/** A lexeme as written in a tsquery, quoted, with no prefix (:*) or weight suffix. */
const PLAIN_LEXEME = /^'(?:[^'\\]|''|\\.)*'$/;

/** The lexeme of a plain lexeme node ('it''s' → it's), or null for any other node or a prefix or weighted one. */
export function plainLexeme(n: TsNode): string | null {
  if (n.kind !== 'lex' || !PLAIN_LEXEME.test(n.text)) return null;
  return n.text.slice(1, -1).replace(/''|\\(.)/g, (_, escaped: string | undefined) => escaped ?? "'");
}

/** The words of `a <-> b <-> …` over plain lexemes (still escaped, without quotes), or null for any other shape. */
function adjacentWords(n: TsNode): string[] | null {
  if (n.kind === 'lex') return PLAIN_LEXEME.test(n.text) ? [n.text.slice(1, -1)] : null;
  if (n.kind !== 'phrase' || n.op !== '<->') return null;
  const l = adjacentWords(n.left);
  const r = adjacentWords(n.right);
  return l && r ? [...l, ...r] : null;
}

/**
 * The word pairs of a phrase of adjacent words, as tsquery lexemes ('like know'): what a meeting's
 * transcript_pairs holds for two words said next to each other in one sentence (the 20261125000000
 * migration). Null for phrases of any other shape (`<2>` around a stop word, prefixes, negations).
 */
export function phrasePairs(n: TsNode): string[] | null {
  const words = adjacentWords(n);
  if (!words || words.length < 2) return null;
  return words.slice(1).map((w, i) => `'${words[i]} ${w}'`);
}

/**
 * A position-free query that every meeting matching `n` also matches (phrases become "all their
 * words"; negations, which a superset cannot express, drop out), or null when nothing is implied.
 * It lets the GIN index over meetings' lexemes find the candidates for a phrase search.
 */
export function necessary(n: TsNode): string | null {
  switch (n.kind) {
    case 'lex':
      return n.text;
    case 'not':
      return null;
    case 'or': {
      const l = necessary(n.left);
      const r = necessary(n.right);
      return l && r ? `(${l} | ${r})` : null;
    }
    case 'and':
    case 'phrase': {
      const l = necessary(n.left);
      const r = necessary(n.right);
      return l && r ? `(${l} & ${r})` : (l ?? r);
    }
  }
}

/**
 * The words and phrases a match of `n` rests on, negations left out: what a sentence of a matching
 * meeting can hold (a phrase stays whole, as one sentence holds it). Moments and relevance look for
 * sentences matching any of them.
 */
export function positiveTerms(n: TsNode): TsNode[] {
  switch (n.kind) {
    case 'lex':
    case 'phrase':
      return [n];
    case 'not':
      return [];
    default:
      return [...positiveTerms(n.left), ...positiveTerms(n.right)];
  }
}
