/**
 * The one query that lists meetings, over PostgreSQL full-text search. svc_search,
 * svc_get_transcripts and GraphQL `transcripts` all run it, so they agree on what matches, on
 * order and on visibility.
 *
 * What a keyword matches (websearch_to_tsquery syntax, English stemming):
 *   - title: the meeting's title (meetings.title_tsv);
 *   - sentences: what was said, the meeting being the document: every word must have been said
 *     somewhere in it, a "quoted phrase" within one sentence, -word never;
 *   - all (default): either of the two.
 *
 * Shape, and why (EXPLAIN ANALYZE on 10,000 meetings × 200 sentences):
 *   - Words are looked up in meetings.transcript_tsv (a meeting's distinct lexemes, GIN; see the
 *     20261121000100 migration): one index entry per meeting. Looking words up in sentences.tsv
 *     instead reads one heap row per matching sentence, 375,000 rows (0.5 s) for a common word.
 *   - A quoted two-word phrase is one lexeme of meetings.transcript_pairs, every pair of words said
 *     next to each other in one sentence (GIN; see the 20261125000000 migration). Longer phrases, and
 *     phrases around a stop word, are checked in sentences.tsv, but only inside the meetings whose
 *     lexemes hold all their words (and whose pairs hold all their pairs).
 *   - The caller's own team and meetings shared from other teams are two arms of a UNION ALL, each
 *     ordered and limited on its own: the own-team arm walks (team_id, date desc, id desc) newest
 *     first and stops after limit + 1 rows for common words or no keyword, or takes the few rows the
 *     GIN index finds for rare words; the planner chooses from the statistics. visibleTo is applied
 *     in both arms, so the split narrows the search and never widens what a caller sees. A caller
 *     whom no share names (Principal.sharedWith false) gets the own-team arm alone.
 *   - Participants and summaries are read for the page's rows only (at most 51), after the page
 *     is cut.
 *   - sort relevance: each arm yields its RELEVANCE_POOL newest matching meetings (or more, when the
 *     page reaches past them), and only those are scored: the title's ts_rank (doubled) plus the
 *     ts_rank of at most RELEVANCE_SENTENCES of the meeting's sentences that match a word or phrase of
 *     the keyword (saturating, as BM25 does: a meeting that says "budget" 300 times is not 300 times
 *     as relevant). Scoring every match of a word said in every meeting would read every sentence
 *     (2 M rows); the pool keeps a call within the same bounds as a date-ordered one. Meetings past
 *     the pool follow, newest first: the tool descriptions say so, and a date range narrows a search
 *     whose matches are more than the pool.
 *   - Totals are counted in the same statement, over the same conditions, up to TOTAL_BOUND + 1
 *     matches per arm (countSql): an uncorrelated subquery PostgreSQL runs once, with a plan of its
 *     own (usually the keyword's GIN index: no order to keep). Counting to 1,001 cost 0.9-8.4 ms a
 *     call for common words on the bench's 2 M sentences (a third of a keyword call's database
 *     time); to 101, 0.9-1.5 ms, parsing and planning included, hence the bound of 100. Reading the
 *     total off the page's own arms instead (each arm cut at 101 rows) was slower: the date-ordered
 *     walk that suits 11 rows tests each meeting's lexemes out of line (TOAST, about 4 µs a
 *     meeting), and for a word in 1 meeting of 15 it walked 2,000 meetings (7.5 ms).
 *
 * The statement is composed as SQL text with `?` bindings, not with knex's query builder: every
 * list runs it, and building and compiling it with the builder (two arms of a dozen clauses, nested
 * raw fragments) made knex 15% of the mcp process's CPU on keyword calls, 9% without it (V8
 * profile); it now runs as text on a connection of knex's pool (platform/sql), which took knex off
 * that profile. Table aliases and constants are written in this file; every value from a caller is a
 * binding.
 */
import type { Knex } from 'knex';
import { visibleToSql } from '../access';
import { numbered, runSql, type SqlFragment, type Statement } from '../../platform/sql';
import type { Principal } from '../principal';
import { MEETING_ROW_COLUMNS, type MeetingRow } from './records';
import type { ResolvedFilters } from './filters';
import { hasPhrase, necessary, parseTsquery, phrasePairs, positiveTerms, serialize, TsNode } from './tsquery';

/** Matching meetings scored for sort relevance (per arm), newest first; older matches follow by date. */
export const RELEVANCE_POOL = 200;
/** Matching sentences of one meeting that count toward its relevance. */
export const RELEVANCE_SENTENCES = 20;
/**
 * Totals are exact up to this many meetings; past it a list says "at least" this many. What it costs
 * grows with it (the count reads up to TOTAL_BOUND + 1 matching meetings per arm): see the header.
 */
export const TOTAL_BOUND = 100;

/** Meetings a list shows: processing and failed ones have nothing to read yet. */
export const LISTED_STATUSES = ['completed', 'live'];
const LISTED = `m.status in (${LISTED_STATUSES.map((x) => `'${x}'`).join(', ')})`;

/** The meeting's columns in each arm, as SQL text: knex would quote and wrap 16 identifiers per arm per call. */
const ARM_COLUMNS = MEETING_ROW_COLUMNS.map((c) => `m.${c}`).join(', ');

export interface MeetingListRow extends MeetingRow {
  /** Meetings that match, counted up to TOTAL_BOUND + 1 per arm (the same on every row). */
  matched: number;
  short_summary: string | null;
  /** Emails, the organizer first, then alphabetical, as the one comma-separated string records carry. */
  participants: string;
}

/** A keyword as PostgreSQL reads it: the tsquery text and its tree (null: only stop words, matches nothing). */
export interface KeywordQuery {
  tsquery: string;
  tree: TsNode | null;
  /** The tree could not be read: match the whole query sentence by sentence. */
  opaque: boolean;
}

const keywordCache = new Map<string, KeywordQuery>();
const KEYWORD_CACHE_MAX = 1000;

/** Parse the keyword with websearch_to_tsquery once; repeated keywords (paging) come from a small cache. */
export async function keywordQuery(db: Knex, keyword: string): Promise<KeywordQuery> {
  const cached = keywordCache.get(keyword);
  if (cached) return cached;
  const { rows } = await db.raw("select websearch_to_tsquery('english', ?)::text as q", [keyword]);
  const tsquery = rows[0].q as string;
  let kq: KeywordQuery;
  try {
    kq = { tsquery, tree: parseTsquery(tsquery), opaque: false };
  } catch {
    kq = { tsquery, tree: null, opaque: true };
  }
  if (keywordCache.size >= KEYWORD_CACHE_MAX) keywordCache.delete(keywordCache.keys().next().value!);
  keywordCache.set(keyword, kq);
  return kq;
}

/**
 * Sentences are read per candidate meeting: `offset 0` keeps PostgreSQL from hashing every sentence
 * of the database that matches (375,000 for a common word) before it looks at the first meeting.
 */
const SENTENCE_MATCH = 'exists (select 1 from sentences s where s.meeting_id = m.id and s.tsv @@ ?::tsquery offset 0)';
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
      if (pairs) return { sql: `(${PAIR_MATCH} and ${SENTENCE_MATCH})`, bindings: [pairs.join(' & '), serialize(n)], readsSentences: true };
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
      return { sql: `(${l.sql} ${n.kind} ${r.sql})`, bindings: [...l.bindings, ...r.bindings], readsSentences: l.readsSentences || r.readsSentences };
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
 * lexemes again out of line (TOAST). On 10,000 × 200, over the bench's eight keywords: execution
 * 1.07 -> 0.87 ms a list statement (a rare word 1.14 -> 0.50), and under 16 concurrent statements
 * 2.56 -> 2.26 ms of PostgreSQL CPU each.
 */
function documentOrTitleMatchSql(kq: KeywordQuery, title: SqlFragment | null): SqlFragment {
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
  return { sql: `(${indexed.sql} and ${unindexedRead.sql})`, bindings: [...indexed.bindings, ...unindexedRead.bindings] };
}

/** `(a or b or …)`, the fragments' bindings in their order. */
function anyOf(...alternatives: SqlFragment[]): SqlFragment {
  return { sql: `(${alternatives.map((a) => a.sql).join(' or ')})`, bindings: alternatives.flatMap((a) => a.bindings) };
}

/** transcriptMatch as a knex fragment over `meetings m`, for statements built with knex (rule conditions). */
export function transcriptMatch(db: Knex, kq: KeywordQuery): Knex.Raw {
  const m = documentOrTitleMatchSql(kq, null);
  return db.raw(m.sql, m.bindings);
}

function keywordMatch(f: ResolvedFilters, kq: KeywordQuery): SqlFragment {
  if (!kq.tree && !kq.opaque) return { sql: 'false', bindings: [] };
  const title: SqlFragment = { sql: 'm.title_tsv @@ ?::tsquery', bindings: [kq.tsquery] };
  if (f.scope === 'title') return title;
  return documentOrTitleMatchSql(kq, f.scope === 'sentences' ? null : title);
}

/** The conditions every arm shares, over `meetings m`. */
function filters(p: Principal, f: ResolvedFilters, kq: KeywordQuery | null): SqlFragment[] {
  const where: SqlFragment[] = [{ sql: LISTED, bindings: [] }, visibleToSql(p, 'm')];
  if (kq) where.push(keywordMatch(f, kq));
  // Whole UTC days, both ends inclusive: [from 00:00, to + 1 day 00:00).
  if (f.fromDate) where.push({ sql: "m.date >= (?::date)::timestamp at time zone 'UTC'", bindings: [f.fromDate] });
  if (f.toDate) where.push({ sql: "m.date < (?::date + 1)::timestamp at time zone 'UTC'", bindings: [f.toDate] });
  if (f.organizers.length) where.push({ sql: 'lower(m.organizer_email) = any(?::text[])', bindings: [f.organizers] });
  if (f.participants.length) {
    where.push({
      sql: 'exists (select 1 from meeting_participants fp where fp.meeting_id = m.id and lower(fp.email) = any(?::text[]))',
      bindings: [f.participants],
    });
  }
  if (f.channelId) where.push({ sql: 'm.channel_id = ?', bindings: [f.channelId] });
  if (f.mine) {
    where.push({
      sql:
        '(m.organizer_id = ? or lower(m.organizer_email) = lower(?)' +
        ' or exists (select 1 from meeting_participants me where me.meeting_id = m.id and lower(me.email) = lower(?)))',
      bindings: [p.userId, p.email, p.email],
    });
  }
  return where;
}

/** One arm: the rows of `meetings m` that pass `where`, newest first, at most `limit`. */
function arm(where: SqlFragment[], limit: number): SqlFragment {
  return {
    sql: `select ${ARM_COLUMNS} from meetings m where ${where.map((w) => w.sql).join(' and ')} order by m.date desc, m.id desc limit ?`,
    bindings: [...where.flatMap((w) => w.bindings), limit],
  };
}

/**
 * The matching meetings the caller may see, as a derived table `u` of the arms' rows: the own team's
 * arm and, when a share names the caller, the shared arm, each newest first and cut at `limit`.
 */
function armsQuery(p: Principal, f: ResolvedFilters, kq: KeywordQuery | null, limit: number): SqlFragment {
  const shared = filters(p, f, kq);
  const own = arm([{ sql: 'm.team_id = ?', bindings: [p.teamId] }, ...shared], limit);
  // Without a share naming the caller there is nothing to find in other teams: one arm, half the planning.
  if (p.sharedWith === false) return { sql: `(${own.sql})`, bindings: own.bindings };
  // Another team's meeting is visible only through a share: start from the caller's shares.
  const others = arm(
    [
      { sql: 'm.team_id <> ?', bindings: [p.teamId] },
      { sql: 'm.id in (select sx.meeting_id from meeting_shares sx where lower(sx.email) = lower(?))', bindings: [p.email] },
      ...shared,
    ],
    limit,
  );
  return { sql: `((${own.sql}) union all (${others.sql}))`, bindings: [...own.bindings, ...others.bindings] };
}

/**
 * A meeting's relevance to the keyword, over a row `r` of the page (its title and id): the title's
 * ts_rank doubled, plus the ts_rank of at most RELEVANCE_SENTENCES sentences that match a word or
 * phrase of the keyword. Scope title counts the title alone, scope sentences the sentences alone.
 */
function relevanceSql(f: ResolvedFilters, kq: KeywordQuery | null): SqlFragment {
  if (!kq || (!kq.tree && !kq.opaque)) return { sql: '0', bindings: [] };
  const parts: SqlFragment[] = [];
  if (f.scope !== 'sentences') parts.push({ sql: "2 * ts_rank(to_tsvector('english', r.title), ?::tsquery)", bindings: [kq.tsquery] });
  const said = momentTsquery(kq);
  if (f.scope !== 'title' && said) {
    parts.push({
      sql:
        // The meeting's own rows, then the test (offset 0: never the sentences GIN index per meeting; moments.ts).
        'coalesce((select sum(ts_rank(rs.tsv, ?::tsquery)) from (select s.tsv from' +
        ` (select s0.tsv from sentences s0 where s0.meeting_id = r.id offset 0) s where s.tsv @@ ?::tsquery limit ${RELEVANCE_SENTENCES}) rs), 0)`,
      bindings: [said, said],
    });
  }
  if (!parts.length) return { sql: '0', bindings: [] };
  return { sql: parts.map((x) => x.sql).join(' + '), bindings: parts.flatMap((x) => x.bindings) };
}

/** The page of meetings (limit + 1 rows, to learn has_more) the caller may see that match, in the asked order. */
function pageQuery(p: Principal, f: ResolvedFilters, kq: KeywordQuery | null): SqlFragment {
  const enough = f.skip + f.limit + 1;
  if (f.sort === 'relevance' && kq) {
    const arms = armsQuery(p, f, kq, Math.max(enough, RELEVANCE_POOL));
    const score = relevanceSql(f, kq);
    // Rows are numbered newest first; the pool's rows are scored and come first, the rest follow by date.
    const numberedRows = `select u.*, row_number() over (order by u.date desc, u.id desc) as rn from ${arms.sql} as u`;
    const scored =
      `select r.*, case when r.rn <= ${RELEVANCE_POOL} then ${score.sql} end as relevance from (${numberedRows}) as r`;
    return {
      sql: `select v.* from (${scored}) as v order by (v.rn <= ${RELEVANCE_POOL}) desc, v.relevance desc nulls last, v.date desc, v.id desc limit ? offset ?`,
      bindings: [...score.bindings, ...arms.bindings, f.limit + 1, f.skip],
    };
  }
  const arms = armsQuery(p, f, kq, enough);
  return {
    sql: `select u.* from ${arms.sql} as u order by u.date desc, u.id desc limit ? offset ?`,
    bindings: [...arms.bindings, f.limit + 1, f.skip],
  };
}

/** How many meetings match, counted up to TOTAL_BOUND + 1 per arm (so a count past the bound stops there). */
function countSql(p: Principal, f: ResolvedFilters, kq: KeywordQuery | null): SqlFragment {
  const shared = filters(p, f, kq);
  const counted = (where: SqlFragment[]): SqlFragment => ({
    sql: `(select count(*) from (select 1 from meetings m where ${where.map((w) => w.sql).join(' and ')} limit ${TOTAL_BOUND + 1}) c)`,
    bindings: where.flatMap((w) => w.bindings),
  });
  const own = counted([{ sql: 'm.team_id = ?', bindings: [p.teamId] }, ...shared]);
  if (p.sharedWith === false) return { sql: `${own.sql}::int`, bindings: own.bindings };
  const others = counted([
    { sql: 'm.team_id <> ?', bindings: [p.teamId] },
    { sql: 'm.id in (select sx.meeting_id from meeting_shares sx where lower(sx.email) = lower(?))', bindings: [p.email] },
    ...shared,
  ]);
  return { sql: `(${own.sql} + ${others.sql})::int`, bindings: [...own.bindings, ...others.bindings] };
}

/** The count alone: for a page past the end of the list, whose statement returns no row to carry it. */
export function countQuery(p: Principal, f: ResolvedFilters, kq: KeywordQuery | null): Statement {
  const n = countSql(p, f, kq);
  return numbered({ sql: `select ${n.sql} as n`, bindings: n.bindings });
}

/**
 * The sentence-level query of a keyword's moments and relevance: its words and phrases joined by OR,
 * negations dropped (a meeting matches when its words are said anywhere in it, so no one sentence need
 * hold them all; a sentence that holds more of them ranks higher). Null: nothing a sentence can match.
 */
export function momentTsquery(kq: KeywordQuery): string | null {
  if (kq.opaque) return kq.tsquery;
  if (!kq.tree) return null;
  const terms = positiveTerms(kq.tree);
  return terms.length ? terms.map(serialize).join(' | ') : null;
}

/** The page with each meeting's participants and short summary, and the count, as the statement PostgreSQL runs. */
export function listQuery(p: Principal, f: ResolvedFilters, kq: KeywordQuery | null): Statement {
  const page = pageQuery(p, f, kq);
  const count = countSql(p, f, kq);
  return numbered({
    sql:
      'select page.*, su.short_summary,' +
      " array_to_string(array(select mp.email from meeting_participants mp where mp.meeting_id = page.id" +
      " order by lower(mp.email) = lower(page.organizer_email) desc, mp.email), ', ') as participants," +
      ` ${count.sql} as matched` +
      ` from (${page.sql}) as page left join summaries su on su.meeting_id = page.id` +
      (f.sort === 'relevance' && kq ? ' order by (page.rn <= ' + RELEVANCE_POOL + ') desc, page.relevance desc nulls last, page.date desc, page.id desc' : ' order by page.date desc, page.id desc'),
    bindings: [...count.bindings, ...page.bindings],
  });
}

export interface FoundMeetings {
  rows: MeetingListRow[];
  hasMore: boolean;
  /** Meetings that match, exact up to TOTAL_BOUND; at the bound, a lower bound (totalIsLowerBound). */
  total: number;
  totalIsLowerBound: boolean;
  keyword: KeywordQuery | null;
}

export async function findMeetings(db: Knex, p: Principal, f: ResolvedFilters): Promise<FoundMeetings> {
  const kq = f.keyword ? await keywordQuery(db, f.keyword) : null;
  const rows = await runSql<MeetingListRow>(db, listQuery(p, f, kq));
  const hasMore = rows.length > f.limit;
  const page = hasMore ? rows.slice(0, f.limit) : rows;
  // The count rides on every row of the page (the same snapshot as the page); past the end there is no row to carry it.
  const n = rows.length ? Number(rows[0].matched) : f.skip === 0 ? 0 : Number((await runSql<{ n: number }>(db, countQuery(p, f, kq)))[0]?.n ?? 0);
  return { rows: page, hasMore, total: Math.min(n, TOTAL_BOUND), totalIsLowerBound: n > TOTAL_BOUND, keyword: kq };
}
