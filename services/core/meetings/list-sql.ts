/**
 * The SQL of the one query that lists meetings, over PostgreSQL full-text search: svc_search,
 * svc_get_transcripts and GraphQL `transcripts` run it, so they agree on what matches, on order and
 * on visibility. Why it is shaped so, with the figures: README.md.
 *
 * What a keyword matches (websearch_to_tsquery syntax, each meeting's language's stemming): scope title, the title;
 * scope sentences, what was said, the meeting being the document (every word said somewhere in it, a
 * "quoted phrase" within one sentence, -word never); scope all (default), either.
 *
 * Words are looked up in the meeting's lexemes (transcript_tsv), two-word phrases in its word pairs
 * (transcript_pairs), longer phrases in its sentences once its lexemes and pairs allow them. The own
 * team and meetings shared from other teams are two arms of a UNION ALL, each newest first and cut
 * on its own, visibleTo applied in both; the count rides in the same statement, bounded
 * (TOTAL_BOUND). Composed as text with `?` bindings, not with knex's builder, which cost a large
 * share of a keyword call's CPU; every value from a caller is a binding.
 */
import { visibleToSql, type Principal } from '../access';
import { numbered, type SqlFragment, type Statement } from '../../platform/sql';
import { MEETING_ROW_COLUMNS, type MeetingRow } from './records';
import type { ResolvedFilters } from './filters';
import { momentTsquery, type KeywordQuery } from './keyword-query';
import { keywordMatch } from './keyword-match';

export { transcriptMatch } from './keyword-match';

/** Matching meetings scored for sort relevance (per arm), newest first; older matches follow by date. */
export const RELEVANCE_POOL = 200;
/** Matching sentences of one meeting that count toward its relevance. */
export const RELEVANCE_SENTENCES = 20;
/** Totals are exact up to this many meetings; past it a list says "at least" this many. A count's cost grows with it (up to TOTAL_BOUND + 1 matches read per arm). */
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

/**
 * How an arm may find the keyword's matches: 'index', from the keyword's indexes where the planner
 * chooses; 'rows', only by testing the rows it reads in another order (the test written so that no
 * index can answer it). A prepared walk reads rows (WalkAccess).
 */
export type KeywordAccess = 'index' | 'rows';

/**
 * How a walk-shaped statement finds the keyword's matches. Planned for its values (`index`
 * everywhere), PostgreSQL picks from the word's frequency; a prepared walk's generic plan knows no
 * frequency, so list-plan.ts decides: the page's arms read rows (a walk newest first, never a sort of
 * every match of a common word), the own team's total the bitmap or rows, whichever costs less.
 */
export interface WalkAccess {
  page: KeywordAccess;
  ownTotal: KeywordAccess;
  othersTotal: KeywordAccess;
}

const PLANNED_WALK: WalkAccess = { page: 'index', ownTotal: 'index', othersTotal: 'index' };

function keywordCondition(f: ResolvedFilters, kq: KeywordQuery, access: KeywordAccess): SqlFragment {
  const match = keywordMatch(f, kq);
  return access === 'index' ? match : { sql: `(${match.sql}) is true`, bindings: match.bindings };
}

/** The conditions every arm shares, over `meetings m`. */
function filters(p: Principal, f: ResolvedFilters, kq: KeywordQuery | null, access: KeywordAccess): SqlFragment[] {
  const where: SqlFragment[] = [{ sql: LISTED, bindings: [] }, visibleToSql(p, 'm')];
  if (kq) where.push(keywordCondition(f, kq, access));
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

/** The rows of `meetings m` that pass `where`. */
function rowsWhere(where: SqlFragment[]): SqlFragment {
  return {
    sql: `select ${ARM_COLUMNS} from meetings m where ${where.map((w) => w.sql).join(' and ')}`,
    bindings: where.flatMap((w) => w.bindings),
  };
}

/** One arm: the rows of `meetings m` that pass `where`, newest first, at most `limit`. */
function arm(where: SqlFragment[], limit: number): SqlFragment {
  const rows = rowsWhere(where);
  return { sql: `${rows.sql} order by m.date desc, m.id desc limit ?`, bindings: [...rows.bindings, limit] };
}

/**
 * The conditions of each arm: the own team's and, when a share names the caller (Principal.sharedWith),
 * other teams' meetings shared with the caller. Without a share there is nothing to find in other
 * teams: one arm, half the planning. `own` and `others`: how each arm may find the keyword's matches.
 */
function armConditions(
  p: Principal,
  f: ResolvedFilters,
  kq: KeywordQuery | null,
  own: KeywordAccess,
  others: KeywordAccess,
): SqlFragment[][] {
  const ownArm = [{ sql: 'm.team_id = ?', bindings: [p.teamId] }, ...filters(p, f, kq, own)];
  if (p.sharedWith === false) return [ownArm];
  // Another team's meeting is visible only through a share: start from the caller's shares.
  const othersArm = [
    { sql: 'm.team_id <> ?', bindings: [p.teamId] },
    {
      sql: 'm.id in (select sx.meeting_id from meeting_shares sx where lower(sx.email) = lower(?))',
      bindings: [p.email],
    },
    ...filters(p, f, kq, others),
  ];
  return [ownArm, othersArm];
}

/**
 * The meetings the caller may see that pass the filters, keyword aside, over `meetings m`, as one
 * condition (the arms' conditions joined by OR): what a question's moments are ranked within.
 */
export function listedAndVisible(p: Principal, f: ResolvedFilters): SqlFragment {
  const arms = armConditions(p, f, null, 'index', 'index').map((where) => rowsCondition(where));
  return { sql: `(${arms.map((a) => a.sql).join(' or ')})`, bindings: arms.flatMap((a) => a.bindings) };
}

const rowsCondition = (where: SqlFragment[]): SqlFragment => ({
  sql: `(${where.map((w) => w.sql).join(' and ')})`,
  bindings: where.flatMap((w) => w.bindings),
});

/** `(a) union all (b) …` (one part as it is), the fragments' bindings in their order. */
function unionAll(parts: SqlFragment[]): SqlFragment {
  if (parts.length === 1) return parts[0];
  return { sql: parts.map((x) => `(${x.sql})`).join(' union all '), bindings: parts.flatMap((x) => x.bindings) };
}

/**
 * The matching meetings the caller may see, as a derived table `u` of the arms' rows, each arm
 * newest first and cut at `limit`.
 */
function armsQuery(
  p: Principal,
  f: ResolvedFilters,
  kq: KeywordQuery | null,
  limit: number,
  access: KeywordAccess,
): SqlFragment {
  const arms = unionAll(armConditions(p, f, kq, access, access).map((where) => arm(where, limit)));
  return { sql: `(${arms.sql})`, bindings: arms.bindings };
}

/**
 * A meeting's relevance to the keyword, over a row `r` of the page (its title and id): the title's
 * ts_rank doubled, plus the ts_rank of at most RELEVANCE_SENTENCES sentences that match a word or
 * phrase of the keyword. Scope title counts the title alone, scope sentences the sentences alone.
 */
function relevanceSql(f: ResolvedFilters, kq: KeywordQuery | null): SqlFragment {
  if (!kq || (!kq.tree && !kq.opaque)) return { sql: '0', bindings: [] };
  const parts: SqlFragment[] = [];
  if (f.scope !== 'sentences')
    parts.push({
      sql: '2 * ts_rank(to_tsvector(r.search_config::regconfig, r.title), ?::tsquery)',
      bindings: [kq.tsquery],
    });
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

/** Whether the list is ordered by relevance (a keyword with sort relevance), or else newest first. */
const ranked = (f: ResolvedFilters, kq: KeywordQuery | null): kq is KeywordQuery =>
  f.sort === 'relevance' && kq !== null;

/**
 * The page (limit + 1 rows, to learn has_more) of `source`, the matching meetings the caller may see
 * as `u` (the arms, or the materialized matches), in the asked order.
 */
function pageFrom(f: ResolvedFilters, kq: KeywordQuery | null, source: SqlFragment): SqlFragment {
  if (ranked(f, kq)) {
    const score = relevanceSql(f, kq);
    // Rows are numbered newest first; the pool's rows are scored and come first, the rest follow by date.
    const numberedRows = `select u.*, row_number() over (order by u.date desc, u.id desc) as rn from ${source.sql}`;
    const scored = `select r.*, case when r.rn <= ${RELEVANCE_POOL} then ${score.sql} end as relevance from (${numberedRows}) as r`;
    return {
      sql: `select v.* from (${scored}) as v order by (v.rn <= ${RELEVANCE_POOL}) desc, v.relevance desc nulls last, v.date desc, v.id desc limit ? offset ?`,
      bindings: [...score.bindings, ...source.bindings, f.limit + 1, f.skip],
    };
  }
  return {
    sql: `select u.* from ${source.sql} order by u.date desc, u.id desc limit ? offset ?`,
    bindings: [...source.bindings, f.limit + 1, f.skip],
  };
}

/**
 * The walk's page: each arm newest first, cut where the page (or, ranked, the pool of RELEVANCE_POOL
 * newest, when the page lies within it) ends.
 */
function pageQuery(p: Principal, f: ResolvedFilters, kq: KeywordQuery | null, access: KeywordAccess): SqlFragment {
  const enough = f.skip + f.limit + 1;
  const arms = armsQuery(p, f, kq, ranked(f, kq) ? Math.max(enough, RELEVANCE_POOL) : enough, access);
  return pageFrom(f, kq, { sql: `${arms.sql} as u`, bindings: arms.bindings });
}

/** How many meetings match, counted up to TOTAL_BOUND + 1 per arm (so a count past the bound stops there). */
function countSql(
  p: Principal,
  f: ResolvedFilters,
  kq: KeywordQuery | null,
  own: KeywordAccess,
  others: KeywordAccess,
): SqlFragment {
  const counted = armConditions(p, f, kq, own, others).map((where) => ({
    sql: `(select count(*) from (select 1 from meetings m where ${where.map((w) => w.sql).join(' and ')} limit ${TOTAL_BOUND + 1}) c)`,
    bindings: where.flatMap((w) => w.bindings),
  }));
  return { sql: `(${counted.map((c) => c.sql).join(' + ')})::int`, bindings: counted.flatMap((c) => c.bindings) };
}

/** The count alone: for a page past the end of the list, whose statement returns no row to carry it. */
export function countQuery(p: Principal, f: ResolvedFilters, kq: KeywordQuery | null): Statement {
  const n = countSql(p, f, kq, 'index', 'index');
  return numbered({ sql: `select ${n.sql} as n`, bindings: n.bindings });
}

/** What every list answers of a page row `page`: its summary and its participants. */
export const PAGE_DETAILS =
  'select page.*, su.short_summary,' +
  ' array_to_string(array(select mp.email from meeting_participants mp where mp.meeting_id = page.id' +
  " order by lower(mp.email) = lower(page.organizer_email) desc, mp.email), ', ') as participants,";

/**
 * How a list statement reads the matching meetings (list-plan.ts chooses):
 *   - 'walk': each arm newest first, stopping once it has the page, the total counted on its own.
 *     Right without a keyword and for words most meetings match: it tests a few dozen meetings.
 *   - 'materialize': every match read once from the keyword's indexes into a materialized CTE, the
 *     page and the total taken from it. Right for a rare word, several words or a phrase, where a
 *     walk would test many meetings, each reading the meeting's lexemes out of line.
 * Both answer the same rows and the same total (either is past TOTAL_BOUND exactly when the matches are).
 */
export type ListShape = 'walk' | 'materialize';

/** The order of the page's rows in the statement's answer (the page's own order). */
const pageOrder = (f: ResolvedFilters, kq: KeywordQuery | null) =>
  ranked(f, kq)
    ? ` order by (page.rn <= ${RELEVANCE_POOL}) desc, page.relevance desc nulls last, page.date desc, page.id desc`
    : ' order by page.date desc, page.id desc';

/** The page with each meeting's participants and short summary, and the count, as the statement PostgreSQL runs. */
export function listQuery(
  p: Principal,
  f: ResolvedFilters,
  kq: KeywordQuery | null,
  shape: ListShape = 'walk',
  walk: WalkAccess = PLANNED_WALK,
): Statement {
  if (shape === 'materialize' && kq) return materializedListQuery(p, f, kq);
  const page = pageQuery(p, f, kq, walk.page);
  const count = countSql(p, f, kq, walk.ownTotal, walk.othersTotal);
  return numbered({
    sql: `${PAGE_DETAILS} ${count.sql} as matched from (${page.sql}) as page left join summaries su on su.meeting_id = page.id${pageOrder(f, kq)}`,
    bindings: [...count.bindings, ...page.bindings],
  });
}

/**
 * listQuery's 'materialize' shape: every match once; the page (by date, or the pool of the
 * RELEVANCE_POOL newest scored) and the total are read from them.
 */
function materializedListQuery(p: Principal, f: ResolvedFilters, kq: KeywordQuery): Statement {
  const matches = unionAll(armConditions(p, f, kq, 'index', 'index').map(rowsWhere));
  const page = pageFrom(f, kq, { sql: 'matches as u', bindings: [] });
  return numbered({
    sql:
      `with matches as materialized (${matches.sql}) ${PAGE_DETAILS}` +
      ` (select least(count(*), ${TOTAL_BOUND + 1}) from matches)::int as matched` +
      ` from (${page.sql}) as page left join summaries su on su.meeting_id = page.id${pageOrder(f, kq)}`,
    bindings: [...matches.bindings, ...page.bindings],
  });
}

/** The team's listed meetings, visibility aside (list-plan.ts estimates how many: the share a keyword matches). */
export function teamMeetingsQuery(p: Principal): Statement {
  return numbered({ sql: `select 1 from meetings m where m.team_id = ? and ${LISTED}`, bindings: [p.teamId] });
}

/**
 * The team's listed meetings that match the keyword, visibility aside: what the 'materialize' shape
 * reads from the indexes before visibility is tested (list-plan.ts estimates its size).
 */
export function teamMatchesQuery(p: Principal, f: ResolvedFilters, kq: KeywordQuery): Statement {
  const match = keywordMatch(f, kq);
  return numbered({
    sql: `select 1 from meetings m where m.team_id = ? and ${LISTED} and ${match.sql}`,
    bindings: [p.teamId, ...match.bindings],
  });
}
