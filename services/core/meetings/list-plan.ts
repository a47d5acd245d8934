/**
 * Finding a page of meetings: which shape of the list statement to run (list-sql.ts, ListShape),
 * whether it runs prepared, then running it. Why, with the figures: README.md.
 *
 * The walk tests each meeting it passes against the meeting's lexemes, stored out of line, a cost
 * the planner's model leaves out; so the planner's estimate of the team's matches (teamMatchesQuery,
 * kept ESTIMATE_TTL_MS per team, scope and keyword, as ANALYZE's statistics change slowly) decides
 * here with that cost in: up to MATERIALIZE_BOUND, the list reads every match ('materialize').
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import { runSql, type Statement } from '../../platform/sql';
import type { Principal } from '../access';
import type { ResolvedFilters } from './filters';
import { keywordQuery, type KeywordQuery } from './keyword-query';
import {
  countQuery,
  listQuery,
  TOTAL_BOUND,
  teamMatchesQuery,
  teamMeetingsQuery,
  type KeywordAccess,
  type ListShape,
  type MeetingListRow,
  type WalkAccess,
} from './list-sql';

/**
 * Estimated matches in the team up to which a keyword list reads every match rather than walk. Fixed,
 * though the break-even grows with the team: a large team walks a little slower, and no team ever
 * reads more than this many estimated matches.
 */
export const MATERIALIZE_BOUND = 750;
const ESTIMATE_TTL_MS = 10 * 60_000;

const estimates = new LRUCache<string, number>({ max: 1000, ttl: ESTIMATE_TTL_MS });

/** The rows the planner expects a statement to answer, kept ESTIMATE_TTL_MS under `key`. */
async function plannedRows(db: Knex, key: string, q: Statement): Promise<number> {
  const cached = estimates.get(key);
  if (cached !== undefined) return cached;
  const [row] = await runSql<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(db, {
    text: `explain (format json) ${q.text}`,
    values: q.values,
  });
  const rows = row['QUERY PLAN'][0].Plan['Plan Rows'];
  estimates.set(key, rows);
  return rows;
}

/** How many of the team's listed meetings the planner expects the keyword to match (visibility aside). */
export function estimatedMatches(db: Knex, p: Principal, f: ResolvedFilters, kq: KeywordQuery): Promise<number> {
  return plannedRows(db, `${p.teamId}\u0000${f.scope}\u0000${kq.tsquery}`, teamMatchesQuery(p, f, kq));
}

/** How many listed meetings the planner expects the team to have (visibility aside). */
function estimatedTeamMeetings(db: Knex, p: Principal): Promise<number> {
  return plannedRows(db, `${p.teamId}\u0000team`, teamMeetingsQuery(p));
}

/** The shape a list takes: 'materialize' for a keyword few of the team's meetings match (sort relevance too: it gains less, but gains). */
export async function listShape(
  db: Knex,
  p: Principal,
  f: ResolvedFilters,
  kq: KeywordQuery | null,
): Promise<ListShape> {
  // No keyword, or one of stop words only (matches nothing): nothing to estimate. A keyword whose
  // tsquery could not be read is matched sentence by sentence, with no index to read its matches
  // from: materialized, it would read every meeting of the team.
  if (!kq || !kq.tree || kq.opaque) return 'walk';
  return (await estimatedMatches(db, p, f, kq)) <= MATERIALIZE_BOUND ? 'materialize' : 'walk';
}

/**
 * Texts named (prepared on each connection) at most; further ones run unnamed. A text depends on the
 * shape, the filters' kinds and the keyword's form, never their values: a few dozen serve every team.
 */
const PREPARED_MAX = 128;
/** Each prepared text's name, so a call hashes no text it has seen. */
const prepared = new Map<string, string>();

/**
 * The name a list statement is prepared under, or none. Prepared, it runs a generic plan and no call
 * pays for planning; both shapes are written so that the generic plan is the plan their values would
 * get (a walk says how it finds the keyword's matches: list-sql.ts, WalkAccess).
 */
function preparedName(text: string): string | undefined {
  const known = prepared.get(text);
  if (known !== undefined || prepared.size >= PREPARED_MAX) return known;
  const name = `mi_list_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
  prepared.set(text, name);
  return name;
}

/** Whether a list may be prepared: a person or channel filter can be more selective than the keyword, so which to start from depends on the values. */
const preparable = (f: ResolvedFilters) => !(f.participants.length || f.organizers.length || f.mine || f.channelId);

/**
 * The longest walk (skip + limit) that is prepared: a first page walks a few dozen meetings whatever
 * the word. Deeper pages, and a relevance pool, are planned for their values, which reads a less
 * common word's matches from its indexes rather than pass many meetings per match.
 */
export const PREPARED_WALK_ROWS = 20;

/** Microseconds to count a match by testing a meeting read in passing, and to hold one in the keyword's bitmap (EXPLAIN ANALYZE; only the ratio matters). */
const ROW_TEST_US = 2.4;
const BITMAP_ENTRY_US = 0.055;

/**
 * How the own team's total counts a keyword in a prepared walk: by testing rows (which stops after
 * TOTAL_BOUND + 1 matches) when passing (TOTAL_BOUND + 1) / share of the team's meetings costs less
 * than holding every match in the bitmap.
 */
async function ownTotalAccess(db: Knex, p: Principal, f: ResolvedFilters, kq: KeywordQuery): Promise<KeywordAccess> {
  const [matches, team] = await Promise.all([estimatedMatches(db, p, f, kq), estimatedTeamMeetings(db, p)]);
  if (matches <= 0 || team <= 0) return 'index';
  const byRows = (TOTAL_BOUND + 1) * Math.max(1, team / matches) * ROW_TEST_US;
  return byRows < matches * BITMAP_ENTRY_US ? 'rows' : 'index';
}

/** How a prepared walk finds the keyword's matches (WalkAccess), or null when it is planned for its values (deep pages, relevance, a keyword without a tree). */
async function preparedWalk(
  db: Knex,
  p: Principal,
  f: ResolvedFilters,
  kq: KeywordQuery | null,
): Promise<WalkAccess | null> {
  if (!preparable(f) || f.skip + f.limit > PREPARED_WALK_ROWS) return null;
  if (kq && (f.sort === 'relevance' || kq.opaque)) return null;
  const ownTotal = kq?.tree ? await ownTotalAccess(db, p, f, kq) : 'index';
  return { page: 'rows', ownTotal, othersTotal: 'rows' };
}

/** A list statement and the name it is prepared under, if any (a named one runs its generic plan: platform/sql, runSql). */
export interface ListStatement extends Statement {
  name?: string;
}

/** The list statement a caller's filters run (what findMeetings runs: the benchmark measures it alone too). */
export async function listStatement(
  db: Knex,
  p: Principal,
  f: ResolvedFilters,
  kq: KeywordQuery | null,
): Promise<ListStatement> {
  const shape = await listShape(db, p, f, kq);
  if (shape === 'materialize') {
    const statement = listQuery(p, f, kq, shape);
    return { ...statement, name: preparable(f) ? preparedName(statement.text) : undefined };
  }
  const walk = await preparedWalk(db, p, f, kq);
  const statement = listQuery(p, f, kq, shape, walk ?? undefined);
  return { ...statement, name: walk ? preparedName(statement.text) : undefined };
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
  const statement = await listStatement(db, p, f, kq);
  const rows = await runSql<MeetingListRow>(db, statement, statement.name);
  const hasMore = rows.length > f.limit;
  const page = hasMore ? rows.slice(0, f.limit) : rows;
  // The count rides on every row of the page (the same snapshot as the page); past the end there is no row to carry it.
  const n = rows.length
    ? Number(rows[0].matched)
    : f.skip === 0
      ? 0
      : Number((await runSql<{ n: number }>(db, countQuery(p, f, kq)))[0]?.n ?? 0);
  return { rows: page, hasMore, total: Math.min(n, TOTAL_BOUND), totalIsLowerBound: n > TOTAL_BOUND, keyword: kq };
}
