/**
 * Finding a page of meetings: which shape of the list statement to run (query.ts, ListShape), then
 * running it.
 *
 * A keyword list either walks the team's meetings newest first until it has the page, or reads
 * every match from the keyword's indexes and sorts them. PostgreSQL chooses between the two from
 * its estimate of how many meetings match, and that estimate is good; what its cost model leaves out
 * is that the walk tests each meeting it passes against the meeting's lexemes, stored out of line
 * (TOAST, 3-4 µs a read), while the indexes' bitmap is exact and needs no test. So for a few hundred
 * matches it walks: `budget database` (291 matching meetings of 10,000) passed 762 meetings, 2.6 ms.
 * Here the same estimate decides with that cost in: up to MATERIALIZE_BOUND estimated matches in
 * the caller's team, the list reads them all ('materialize'); past it, it walks.
 *
 * The estimate is the planner's own (EXPLAIN of the team's matches, teamMatchesQuery), made once per
 * team, scope and keyword and kept ESTIMATE_TTL_MS: it follows ANALYZE's statistics, which change
 * slowly, and a keyword an assistant pages through is estimated once.
 */
import type { Knex } from 'knex';
import { runSql, type Statement } from '../../platform/sql';
import type { Principal } from '../principal';
import type { ResolvedFilters } from './filters';
import { countQuery, keywordQuery, listQuery, TOTAL_BOUND, teamMatchesQuery, type KeywordQuery, type ListShape, type MeetingListRow } from './query';

/**
 * Estimated matches in the team up to which a keyword list reads every match rather than walk.
 * Measured on the bench's 10,000 meetings × 200 sentences (the list statement, planning and
 * execution, serially, 4 members): at 457 estimated (291 real) materializing took 1.17 ms against
 * the walk's 3.81; at 466 (a phrase), 1.15 against 2.21; at 1,075 (about 900 real), 1.30 against
 * 1.24; at 6,525, 7.3 against 1.4. Halfway between the last two that still favour it and the break-even.
 */
export const MATERIALIZE_BOUND = 750;
const ESTIMATE_TTL_MS = 10 * 60_000;
const ESTIMATE_CACHE_MAX = 1000;

const estimates = new Map<string, { rows: number; at: number }>();

/** How many of the team's listed meetings the planner expects the keyword to match (visibility aside). */
export async function estimatedMatches(db: Knex, p: Principal, f: ResolvedFilters, kq: KeywordQuery): Promise<number> {
  const key = `${p.teamId}\u0000${f.scope}\u0000${kq.tsquery}`;
  const cached = estimates.get(key);
  if (cached && Date.now() - cached.at < ESTIMATE_TTL_MS) return cached.rows;
  const q = teamMatchesQuery(p, f, kq);
  const [row] = await runSql<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(db, { text: `explain (format json) ${q.text}`, values: q.values });
  const rows = row['QUERY PLAN'][0].Plan['Plan Rows'];
  estimates.delete(key);
  if (estimates.size >= ESTIMATE_CACHE_MAX) estimates.delete(estimates.keys().next().value!);
  estimates.set(key, { rows, at: Date.now() });
  return rows;
}

/** The shape a list takes: 'materialize' for a keyword few of the team's meetings match, sorted by date. */
export async function listShape(db: Knex, p: Principal, f: ResolvedFilters, kq: KeywordQuery | null): Promise<ListShape> {
  // No keyword, or one of stop words only (matches nothing): nothing to estimate. Relevance has a pool of its own.
  if (!kq || (!kq.tree && !kq.opaque) || f.sort !== 'date') return 'walk';
  return (await estimatedMatches(db, p, f, kq)) <= MATERIALIZE_BOUND ? 'materialize' : 'walk';
}

/** The list statement a caller's filters run (what findMeetings runs: the benchmark measures it alone too). */
export async function listStatement(db: Knex, p: Principal, f: ResolvedFilters, kq: KeywordQuery | null): Promise<Statement> {
  return listQuery(p, f, kq, await listShape(db, p, f, kq));
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
  const rows = await runSql<MeetingListRow>(db, await listStatement(db, p, f, kq));
  const hasMore = rows.length > f.limit;
  const page = hasMore ? rows.slice(0, f.limit) : rows;
  // The count rides on every row of the page (the same snapshot as the page); past the end there is no row to carry it.
  const n = rows.length ? Number(rows[0].matched) : f.skip === 0 ? 0 : Number((await runSql<{ n: number }>(db, countQuery(p, f, kq)))[0]?.n ?? 0);
  return { rows: page, hasMore, total: Math.min(n, TOTAL_BOUND), totalIsLowerBound: n > TOTAL_BOUND, keyword: kq };
}
