import fc from 'fast-check';
import {
  hasPhrase,
  necessary,
  parseTsquery,
  phrasePairs,
  plainLexeme,
  serialize,
  TsNode,
} from '../../../../services/core/meetings/tsquery';
import { combinedKeyword, momentWord, momentWords } from '../../../../services/core/meetings/keyword-query';

describe('tsquery text', () => {
  it('reads PostgreSQL precedence: ! over <-> over & over |', () => {
    // websearch_to_tsquery('english', 'budget "pricing the page" -forecast or hiring')
    const tree = parseTsquery("'budget' & 'price' <2> 'page' & !'forecast' | 'hire'");
    expect(serialize(tree!)).toBe("((('budget' & ('price' <2> 'page')) & !('forecast')) | 'hire')");
  });

  it('reads parentheses, escaped quotes and backslashes inside lexemes, and suffixes', () => {
    const tree = parseTsquery("!( 'a' <-> 'it''s' ) & ( 'c\\\\d' | 'e':* )");
    expect(tree).toEqual({
      kind: 'and',
      left: {
        kind: 'not',
        arg: { kind: 'phrase', op: '<->', left: { kind: 'lex', text: "'a'" }, right: { kind: 'lex', text: "'it''s'" } },
      },
      right: { kind: 'or', left: { kind: 'lex', text: "'c\\\\d'" }, right: { kind: 'lex', text: "'e':*" } },
    });
  });

  it('answers null for the empty query (only stop words) and throws on text it cannot read', () => {
    expect(parseTsquery('')).toBeNull();
    for (const bad of ["'a", "'a' &", "'a' 'b'", "('a'", "'a' <x> 'b'", 'a', "'a' )"])
      expect(() => parseTsquery(bad)).toThrow();
  });

  it('finds phrases anywhere in the tree', () => {
    expect(hasPhrase(parseTsquery("'a' & 'b' | !'c'")!)).toBe(false);
    expect(hasPhrase(parseTsquery("'a' & !( 'b' <-> 'c' )")!)).toBe(true);
  });

  it('derives a position-free query implied by the original', () => {
    const nec = (q: string) => necessary(parseTsquery(q)!);
    expect(nec("'a' <-> 'b'")).toBe("('a' & 'b')");
    expect(nec("'a' & !'b'")).toBe("'a'");
    expect(nec("!'b'")).toBeNull();
    expect(nec("'a' | !'b'")).toBeNull();
    expect(nec("'a' <-> 'b' | 'c'")).toBe("(('a' & 'b') | 'c')");
    expect(nec("'x' & ( 'a' <2> !'b' )")).toBe("('x' & 'a')");
  });

  it('names the word pairs of a phrase of adjacent plain words, and nothing for any other phrase', () => {
    const pairs = (q: string) => phrasePairs(parseTsquery(q)!);
    expect(pairs("'a' <-> 'b'")).toEqual(["'a b'"]);
    expect(pairs("'a' <-> 'b' <-> 'c'")).toEqual(["'a b'", "'b c'"]);
    expect(pairs("'a' <-> ( 'b' <-> 'c' )")).toEqual(["'a b'", "'b c'"]);
    expect(pairs("'it''s' <-> 'c\\\\d'")).toEqual(["'it''s c\\\\d'"]);
    for (const other of ["'a' <2> 'b'", "'a':* <-> 'b'", "'a' <-> !'b'", "'a' <-> ( 'b' | 'c' )", "'a'"])
      expect(pairs(other)).toBeNull();
  });

  /** A tiny evaluator over a set of words, positions ignored: what necessary() must over-approximate. */
  function matches(n: TsNode, words: Set<string>, phraseHolds: boolean): boolean {
    switch (n.kind) {
      case 'lex':
        return words.has(n.text);
      case 'not':
        return !matches(n.arg, words, phraseHolds);
      case 'and':
        return matches(n.left, words, phraseHolds) && matches(n.right, words, phraseHolds);
      case 'or':
        return matches(n.left, words, phraseHolds) || matches(n.right, words, phraseHolds);
      case 'phrase':
        return phraseHolds && matches(n.left, words, phraseHolds) && matches(n.right, words, phraseHolds);
    }
  }

  const tree: fc.Arbitrary<TsNode> = fc.letrec<{ node: TsNode }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom("'a'", "'b'", "'c'", "'d'").map((text): TsNode => ({ kind: 'lex', text })),
      tie('node').map((arg): TsNode => ({ kind: 'not', arg })),
      fc
        .tuple(fc.constantFrom('and' as const, 'or' as const), tie('node'), tie('node'))
        .map(([kind, left, right]): TsNode => ({ kind, left, right })),
      fc
        .tuple(fc.constantFrom('<->', '<2>'), tie('node'), tie('node'))
        .map(([op, left, right]): TsNode => ({ kind: 'phrase', op, left, right })),
    ),
  })).node;

  it('reads a plain lexeme back to the word, quotes and backslashes undoubled; prefixes, weights and operators are none', () => {
    const lex = (text: string) => plainLexeme(parseTsquery(text)!);
    expect(lex("'budget'")).toBe('budget');
    expect(lex("'it''s'")).toBe("it's");
    expect(lex("'c\\\\d'")).toBe('c\\d');
    expect(lex("'''\\\\'''")).toBe("'\\'");
    for (const other of ["'e':*", "'e':A", "'a' & 'b'", "!'a'", "'a' <-> 'b'"]) expect(lex(other)).toBeNull();
  });

  it('names the one word of a keyword whose moments can be read from best_moments, and none for several or a phrase', () => {
    const word = (tsquery: string) => momentWord({ tsquery, tree: parseTsquery(tsquery), opaque: false });
    expect(word("'budget'")).toBe('budget');
    expect(word("'budget' & !'forecast'")).toBe('budget');
    expect(word("!'forecast' & 'budget'")).toBe('budget');
    expect(word("'budget' & 'databas'")).toBeNull();
    expect(word("'budget' | 'budget'")).toBeNull();
    expect(word("'like' <-> 'know'")).toBeNull();
    expect(word("'budg':*")).toBeNull();
    expect(word('')).toBeNull();
    expect(momentWord({ tsquery: "'a' ?? 'b'", tree: null, opaque: true })).toBeNull();
  });

  it('joins the parses of the configurations in use, and pairs each with its configurations only where they differ', () => {
    // Every meeting English (or every configuration parsing alike): the one parse, as it always was.
    expect(combinedKeyword([{ config: 'english', tsquery: "'budget'" }])).toEqual({
      tsquery: "'budget'",
      tree: parseTsquery("'budget'"),
      opaque: false,
      byConfig: null,
      ownParseOnly: false,
    });
    expect(
      combinedKeyword([
        { config: 'english', tsquery: "'zephyr'" },
        { config: 'german', tsquery: "'zephyr'" },
      ]).byConfig,
    ).toBeNull();
    const mixed = combinedKeyword([
      { config: 'english', tsquery: "'hous'" },
      { config: 'french', tsquery: "'hous'" },
      { config: 'german', tsquery: "'haus'" },
      { config: 'simple', tsquery: '' },
    ]);
    expect(mixed.tsquery).toBe("( 'hous' ) | ( 'haus' )");
    expect(mixed.byConfig!.map((b) => [b.configs, b.parsed.tsquery])).toEqual([
      [['english', 'french'], "'hous'"],
      [['german'], "'haus'"],
    ]);
    // Words alone: all parses at once. A -word: each parse on its own configuration's meetings.
    expect(mixed.ownParseOnly).toBe(false);
    const negated = combinedKeyword([
      { config: 'english', tsquery: "'price' & !'hire'" },
      { config: 'german', tsquery: "'pricing' & !'hiring'" },
    ]);
    expect(negated.ownParseOnly).toBe(true);
    // Stop words in every language: nothing to match, for any configuration.
    const none = combinedKeyword([
      { config: 'english', tsquery: '' },
      { config: 'german', tsquery: '' },
    ]);
    expect([none.tsquery, none.tree, none.byConfig]).toEqual(['', null, null]);
  });

  it("names each meeting's own word of a keyword by its configuration, for moments read from best_moments", () => {
    const english = combinedKeyword([{ config: 'english', tsquery: "'budget'" }]);
    expect(momentWords(english, ['english', 'english'])).toEqual(['budget', 'budget']);
    const mixed = combinedKeyword([
      { config: 'english', tsquery: "'hous'" },
      { config: 'german', tsquery: "'haus'" },
      { config: 'simple', tsquery: '' },
    ]);
    expect(momentWords(mixed, ['german', 'english', 'simple'])).toEqual(['haus', 'hous', '']);
    // A parse of several words in any configuration: the moments are searched.
    const phrase = combinedKeyword([
      { config: 'english', tsquery: "'like' <-> 'know'" },
      { config: 'german', tsquery: "'lik' <-> 'know'" },
    ]);
    expect(momentWords(phrase, ['english'])).toBeNull();
  });

  it('serialises any tree so that it reads back as the same tree', () => {
    fc.assert(
      fc.property(tree, (t) => expect(parseTsquery(serialize(t))).toEqual(t)),
      { numRuns: 500 },
    );
  });

  it('necessary() holds for every set of words the full query matches', () => {
    fc.assert(
      fc.property(tree, fc.subarray(["'a'", "'b'", "'c'", "'d'"]), fc.boolean(), (t, words, phraseHolds) => {
        const set = new Set(words);
        const nec = necessary(t);
        if (matches(t, set, phraseHolds) && nec !== null)
          expect(matches(parseTsquery(nec)!, set, phraseHolds)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
