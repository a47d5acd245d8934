/**
 * What a keyword matches in a meeting, as SQL over `meetings m` (list-sql.ts's header says the
 * rule): its title's lexemes, the meeting's lexemes and word pairs, and its sentences only where a
 * longer phrase needs them; each meeting tested with its own language's parse of the keyword.
 */
import type { Knex } from 'knex';
import type { SqlFragment } from '../../platform/sql';
import type { ResolvedFilters } from './filters';
import type { KeywordQuery, ParsedKeyword } from './keyword-query';
import { hasPhrase, necessary, phrasePairs, serialize, TsNode } from './tsquery';

/**
 * Sentences are read per candidate meeting, by the primary key, and only then tested: `offset 0`
 * keeps PostgreSQL from hashing every matching sentence of the database first, and from ANDing the
 * meeting's rows with the sentences GIN index's posting lists, which a generic plan would choose for
 * any word (moments.ts, meetingSentences).
 */
const SENTENCE_MATCH =
  'exists (select 1 from (select s0.tsv from sentences s0 where s0.meeting_id = m.id offset 0) s where s.tsv @@ ?::tsquery)';
const LEXEME_MATCH = 'm.transcript_tsv @@ ?::tsquery';
const PAIR_MATCH = 'm.transcript_pairs @@ ?::tsquery';
/** Meetings without lexemes (live, or too many to hold): read sentence by sentence. */
const UNINDEXED = 'm.transcript_tsv is null';

interface DocumentMatch {
  sql: string;
  bindings: string[];
  /** Whether some part still reads sentences (a phrase that is not one word pair). */
  readsSentences: boolean;
}

const lexemes = (tsquery: string): DocumentMatch => ({ sql: LEXEME_MATCH, bindings: [tsquery], readsSentences: false });

/**
 * The query evaluated over the meeting as a document: words against its lexemes, a phrase of two
 * adjacent words against its word pairs, a longer one against its sentences once its pairs are all
 * there, other phrases against its sentences.
 */
function documentMatch(n: TsNode): DocumentMatch {
  if (!hasPhrase(n)) return lexemes(serialize(n));
  switch (n.kind) {
    case 'phrase': {
      const pairs = phrasePairs(n);
      if (pairs?.length === 1) return { sql: PAIR_MATCH, bindings: pairs, readsSentences: false };
      if (pairs)
        return {
          sql: `(${PAIR_MATCH} and ${SENTENCE_MATCH})`,
          bindings: [pairs.join(' & '), serialize(n)],
          readsSentences: true,
        };
      return { sql: SENTENCE_MATCH, bindings: [serialize(n)], readsSentences: true };
    }
    case 'not': {
      const a = documentMatch(n.arg);
      return { ...a, sql: `not (${a.sql})` };
    }
    case 'and':
    case 'or': {
      const l = documentMatch(n.left);
      const r = documentMatch(n.right);
      return {
        sql: `(${l.sql} ${n.kind} ${r.sql})`,
        bindings: [...l.bindings, ...r.bindings],
        readsSentences: l.readsSentences || r.readsSentences,
      };
    }
    default:
      throw new Error('unreachable');
  }
}

/**
 * Whether what was said in meeting `m` matches, or (`title` given, scope all) its title does: the
 * search's semantics, which automation rules' keyword conditions share. A meeting whose lexemes were
 * too many to hold, or that is live (transcript_tsv NULL), is read sentence by sentence, where the
 * words of a query must share a sentence; for the others NULL never arises, so NOT over a lexeme
 * test is exact.
 *
 * Written as (title or lexemes or transcript_tsv is null) and (transcript_tsv is not null or title or
 * sentences), which is (title or lexemes or (transcript_tsv is null and (title or sentences))): the
 * first part's three alternatives each have an index (the two GIN indexes and the partial index of
 * meetings without lexemes), so a bitmap of them is exact and PostgreSQL does not test it again row
 * by row; the second part costs a non-null row a null test. Written the plain way, the sentence
 * branch made the whole OR a row filter: counting a total from the bitmap then read every candidate's
 * lexemes again out of line (TOAST) (README.md, "An exact bitmap").
 */
function documentOrTitleMatchSql(kq: ParsedKeyword, title: SqlFragment | null): SqlFragment {
  const titles = title ? [title] : [];
  const sentences: SqlFragment = { sql: SENTENCE_MATCH, bindings: [kq.tsquery] };
  if (kq.opaque) return anyOf(...titles, sentences);
  const tree = kq.tree!;
  const exact = documentMatch(tree);
  // A search that still reads sentences starts from the meetings whose lexeme sets could match.
  const candidates = exact.readsSentences ? necessary(tree) : null;
  const lexemes: SqlFragment = candidates
    ? { sql: `(${LEXEME_MATCH} and ${exact.sql})`, bindings: [candidates, ...exact.bindings] }
    : { sql: `(${exact.sql})`, bindings: exact.bindings };
  const indexed = anyOf(...titles, lexemes, { sql: UNINDEXED, bindings: [] });
  const unindexedRead = anyOf({ sql: `not ${UNINDEXED}`, bindings: [] }, ...titles, sentences);
  return {
    sql: `(${indexed.sql} and ${unindexedRead.sql})`,
    bindings: [...indexed.bindings, ...unindexedRead.bindings],
  };
}

/** `(a or b or …)`, the fragments' bindings in their order. */
function anyOf(...alternatives: SqlFragment[]): SqlFragment {
  return { sql: `(${alternatives.map((a) => a.sql).join(' or ')})`, bindings: alternatives.flatMap((a) => a.bindings) };
}

/**
 * `match` of the keyword: of all its parses at once (KeywordQuery), or, where a parse must be tested
 * on its own configuration's meetings only (ownParseOnly), of each configuration's parse on its
 * meetings. The configuration test is a row's column; the parses' own tests keep their indexes.
 */
function byOwnConfig(kq: KeywordQuery, match: (parse: ParsedKeyword) => SqlFragment): SqlFragment {
  if (!kq.byConfig || !kq.ownParseOnly) return match(kq);
  if (!kq.byConfig.length) return { sql: 'false', bindings: [] };
  return anyOf(
    ...kq.byConfig.map(({ configs, parsed }) => {
      const m = match(parsed);
      return { sql: `(m.search_config = any(?::text[]) and ${m.sql})`, bindings: [configs, ...m.bindings] };
    }),
  );
}

/** transcriptMatch as a knex fragment over `meetings m`, for statements built with knex (rule conditions). */
export function transcriptMatch(db: Knex, kq: KeywordQuery): Knex.Raw {
  const m = byOwnConfig(kq, (parse) => documentOrTitleMatchSql(parse, null));
  return db.raw(m.sql, m.bindings);
}

export function keywordMatch(f: ResolvedFilters, kq: KeywordQuery): SqlFragment {
  if (!kq.tree && !kq.opaque) return { sql: 'false', bindings: [] };
  return byOwnConfig(kq, (parse) => {
    const title: SqlFragment = { sql: 'm.title_tsv @@ ?::tsquery', bindings: [parse.tsquery] };
    if (f.scope === 'title') return title;
    return documentOrTitleMatchSql(parse, f.scope === 'sentences' ? null : title);
  });
}
