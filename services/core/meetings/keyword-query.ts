/**
 * A keyword as PostgreSQL reads it: parsed with websearch_to_tsquery by each text search
 * configuration meetings are indexed with, and the sentence-level query its moments and relevance
 * read. The list statement that matches it: list-sql.ts.
 */
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import { runSql } from '../../platform/sql';
import { parseTsquery, plainLexeme, positiveTerms, serialize, type TsNode } from './tsquery';

/** A keyword as PostgreSQL parses it with one configuration: the tsquery text and its tree (null: only stop words, matches nothing). */
export interface ParsedKeyword {
  tsquery: string;
  tree: TsNode | null;
  /** The tree could not be read: match the whole query sentence by sentence. */
  opaque: boolean;
}

/**
 * A keyword as PostgreSQL reads it for the meetings it searches. Each meeting's words are indexed
 * with its language's text search configuration (the 20261212000500 migration), so the keyword is
 * parsed with each configuration meetings use, and the top-level tsquery joins the parses by OR: a
 * meeting matches when its words match any parse, and the indexes over meetings' words answer that
 * as one query, exactly (no row is tested again). `byConfig`, when the configurations in use parse
 * the keyword differently, pairs each parse with the configurations that give it (each meeting's
 * moments are read by its own); null when one parse serves every meeting, as it does wherever every
 * meeting is English: the keyword then matches exactly as it always has.
 *
 * `ownParseOnly`: a parse with a -word is tested on its own configuration's meetings only, or the
 * German parse of "pricing -hiring" ('pricing' & !'hiring') would pass an English meeting that
 * said "hiring" (indexed 'hire'). That test reads each candidate's words again, so it is kept for
 * keywords that need it. Without a -word, another language's parse can only match a meeting that
 * holds that very lexeme, which its own language's stemmer would have made of some word it said.
 */
export interface KeywordQuery extends ParsedKeyword {
  byConfig: { configs: string[]; parsed: ParsedKeyword }[] | null;
  ownParseOnly: boolean;
}

const negates = (n: TsNode): boolean =>
  n.kind === 'not' ? true : n.kind === 'lex' ? false : negates(n.left) || negates(n.right);

function parsed(tsquery: string): ParsedKeyword {
  try {
    return { tsquery, tree: parseTsquery(tsquery), opaque: false };
  } catch {
    return { tsquery, tree: null, opaque: true };
  }
}

/**
 * The keyword's query from its parse by each configuration in use: their text joined by OR (empty
 * parses, stop words only, dropped; repeats once), and, when they differ, each parse with its
 * configurations (byConfig).
 */
export function combinedKeyword(parses: { config: string; tsquery: string }[]): KeywordQuery {
  const groups = new Map<string, string[]>();
  for (const { config, tsquery } of parses) groups.set(tsquery, [...(groups.get(tsquery) ?? []), config]);
  const texts = [...groups.keys()].filter((q) => q !== '');
  const tsquery = texts.length <= 1 ? (texts[0] ?? '') : texts.map((q) => `( ${q} )`).join(' | ');
  const byConfig = groups.size <= 1 ? null : texts.map((q) => ({ configs: groups.get(q)!, parsed: parsed(q) }));
  const ownParseOnly =
    byConfig?.some((b) => b.parsed.opaque || (b.parsed.tree !== null && negates(b.parsed.tree))) ?? false;
  return { ...parsed(tsquery), byConfig, ownParseOnly };
}

const keywordCache = new LRUCache<string, KeywordQuery>({ max: 1000 });

/** The keyword parsed by every configuration in use: one statement, whatever the keyword. */
const PARSE_SQL =
  'select c.config, websearch_to_tsquery(c.config::regconfig, $1)::text as tsquery from search_configs c order by c.config';

/**
 * Parse the keyword with websearch_to_tsquery, once per configuration in use, in one statement;
 * repeated keywords (paging) are read from a small cache keyed by the configurations too, so a
 * configuration first used after a keyword was cached is not missed. The statement is prepared
 * (named), as the list and moments statements that follow it are: an unnamed one would have the
 * connection's generic-plan setting reset before it and set again after it (platform/sql), two
 * statements more on every keyword call.
 */
export async function keywordQuery(db: Knex, keyword: string): Promise<KeywordQuery> {
  const parses = await runSql<{ config: string; tsquery: string }>(
    db,
    { text: PARSE_SQL, values: [keyword] },
    'mi_keyword_parse',
  );
  const key = `${parses.map((r) => r.config).join(' ')}\u0000${keyword}`;
  const cached = keywordCache.get(key);
  if (cached) return cached;
  const kq = combinedKeyword(parses);
  keywordCache.set(key, kq);
  return kq;
}

/**
 * The sentence-level query of a keyword's moments and relevance: its words and phrases joined by OR,
 * negations dropped (a meeting matches when its words are said anywhere in it, so no one sentence need
 * hold them all; a sentence that holds more of them ranks higher). Null: nothing a sentence can match.
 */
export function momentTsquery(kq: ParsedKeyword): string | null {
  if (kq.opaque) return kq.tsquery;
  if (!kq.tree) return null;
  const terms = positiveTerms(kq.tree);
  return terms.length ? terms.map(serialize).join(' | ') : null;
}

/**
 * The one lexeme of a keyword's sentence query when it has just one (a single word, however negated
 * words around it go): its moments can then be read from best_moments (moments.ts). Null otherwise.
 */
export function momentWord(kq: ParsedKeyword): string | null {
  if (kq.opaque || !kq.tree) return null;
  const terms = positiveTerms(kq.tree);
  return terms.length === 1 ? plainLexeme(terms[0]) : null;
}

/**
 * Each meeting's one lexeme of the keyword, by its text search configuration (`configs`, in the
 * meetings' order): momentWord of its own configuration's parse, so a page of meetings in several
 * languages still reads its moments from best_moments. '' for a meeting whose configuration reads
 * only stop words in the keyword (it has no moment of it); null when some parse has more than one
 * word (the moments are searched).
 */
export function momentWords(kq: KeywordQuery, configs: string[]): string[] | null {
  if (!kq.byConfig) {
    const word = momentWord(kq);
    return word === null ? null : configs.map(() => word);
  }
  const byConfig = new Map<string, string | null>();
  for (const { configs: cs, parsed } of kq.byConfig) for (const c of cs) byConfig.set(c, momentWord(parsed));
  const words = configs.map((c) => {
    const w = byConfig.get(c);
    return w === undefined ? '' : w;
  });
  return words.every((w): w is string => w !== null) ? words : null;
}
