/**
 * Finding a page of meetings: which shape of the list statement to run (list-sql.ts, ListShape), then
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
 * slowly, and a keyword an assistant pages through is estimated once. A keyword's first list pays
 * for it: one more statement, planned and not run (0.5-0.9 ms on the bench's data). A prepared walk's
 * total also wants the team's size (ownTotalAccess), estimated the same way once per team.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import { runSql, type Statement } from '../../platform/sql';
import type { Principal } from '../principal';
import type { ResolvedFilters } from './filters';
import {
  countQuery,
  keywordQuery,
  listQuery,
  TOTAL_BOUND,
  teamMatchesQuery,
  teamMeetingsQuery,
  type KeywordAccess,
  type KeywordQuery,
  type ListShape,
  type MeetingListRow,
  type WalkAccess,
} from './list-sql';

/**
 * Estimated matches in the team up to which a keyword list reads every match rather than walk.
 * Measured on the bench's 10,000 meetings × 200 sentences (the list statement, planning and
 * execution, serially, 4 members): at 457 estimated (291 real) materializing took 1.17 ms against
 * the walk's 3.81; at 466 (a phrase), 1.15 against 2.21; at 1,075 (about 900 real), 1.30 against
 * 1.24; at 6,525, 7.3 against 1.4. Halfway between the last two that still favour it and the break-even.
 * The break-even grows with the team (the walk passes more meetings per match): on 50,000 meetings
 * it is near 2,200 estimated (2,173: 3.2 against 3.8 ms; 2,298: 6.1 against 3.9). A fixed bound
 * makes a large team walk where it could have read its matches, a little slower, and never makes any
 * team read more than this many estimated matches.
 */
export const MATERIALIZE_BOUND = 750;
const ESTIMATE_TTL_MS = 10 * 60_000;

const estimates = new LRUCache<string, number>({ max: 1000, ttl: ESTIMATE_TTL_MS });

/** The rows the planner expects a statement to answer, kept ESTIMATE_TTL_MS under `key`. */
async function plannedRows(db: Knex, key: string, q: Statement): Promise<number> {
  const cached = estimates.get(key);
  if (cached !== undefined) return cached;
  const [row] = await runSql<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(db, { text: `explain (format json) ${q.text}`, values: q.values });
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

/**
 * The shape a list takes: 'materialize' for a keyword few of the team's meetings match. The same
 * bound serves sort relevance, whose walk gathers a pool of 200 rather than a page: there the
 * scoring dominates and materializing gains less (2 M sentences, serially: `budget database`
 * 7.1 -> 6.3 ms, a rare word 12.5 -> 11.5, 1,075 estimated 9.2 against 8.8).
 */
export async function listShape(db: Knex, p: Principal, f: ResolvedFilters, kq: KeywordQuery | null): Promise<ListShape> {
  // No keyword, or one of stop words only (matches nothing): nothing to estimate. A keyword whose
  // tsquery could not be read is matched sentence by sentence, with no index to read its matches
  // from: materialized, it would read every meeting of the team.
  if (!kq || !kq.tree || kq.opaque) return 'walk';
  return (await estimatedMatches(db, p, f, kq)) <= MATERIALIZE_BOUND ? 'materialize' : 'walk';
}

/**
 * List statements are prepared on each connection, under a name from their text, once this many
 * texts have a name, further ones run unnamed. A statement's text depends on the shape, the filters'
 * kinds and the keyword's form, not on their values, so a few dozen texts serve every team; each is a
 * plan kept by every connection that ran it.
 */
const PREPARED_MAX = 128;
const prepared = new Set<string>();

/**
 * The name a list statement is prepared under, or none. Prepared, it runs a generic plan, so 0.4-0.5 ms
 * of planning a call is saved. Both shapes are written so that their generic plan is the plan their
 * values would get:
 *   - materialize: the same bitmap of the keyword's indexes that a rare keyword's own plan is
 *     (serially, over the bench's materialize-shaped keywords: 0.96-1.49 -> 0.51-0.99 ms);
 *   - walk, a first page only (preparedWalk): it says how it finds the keyword's matches (list-sql.ts,
 *     WalkAccess), so its plan walks newest first as a common word's own plan does. Written with an
 *     indexable test, a generic plan, which knows no word's frequency, could sort every match of a
 *     common word: 13-41 ms where the walk takes 1-2.
 */
function preparedName(text: string): string | undefined {
  const name = `mi_list_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
  if (!prepared.has(name)) {
    if (prepared.size >= PREPARED_MAX) return undefined;
    prepared.add(name);
  }
  return name;
}

/**
 * Whether a list may be prepared at all. A person or channel filter can be far more selective than
 * the keyword, and which to start from depends on both values: those lists are planned for them.
 * (Generic, `budget` with a participant counted its total by testing 1,235 of the keyword's matches
 * for the participant: 11.5 against 3.0 ms.)
 */
const preparable = (f: ResolvedFilters) => !(f.participants.length || f.organizers.length || f.mine || f.channelId);

/**
 * The longest walk (skip + limit) that is prepared. A first page walks a few dozen meetings whatever
 * the word; further pages, and the pool of a relevance order (RELEVANCE_POOL), are left to a plan for
 * their values, which reads a less common word's matches from its indexes and sorts them. Walked
 * newest first, the 211 rows of a page past skip 200 took `budget database` (1 meeting in 50 on
 * 50,000 meetings) 31.4 ms against 2.1; 51 rows (limit 50) 6.2 against 2.3; 21 rows 2.6 against 2.7.
 */
export const PREPARED_WALK_ROWS = 20;

/**
 * What it costs, in µs, to count a match by testing meetings read in passing (each one's lexemes,
 * read out of line), and to hold one in the keyword's bitmap (EXPLAIN ANALYZE on the bench's data:
 * `budget`'s total from its bitmaps of 8,147 entries took 0.45 ms; a walk tests 27 meetings in 0.066 ms).
 */
const ROW_TEST_US = 2.4;
const BITMAP_ENTRY_US = 0.055;

/**
 * How the own team's total counts a keyword in a prepared walk: by testing rows when passing
 * (TOTAL_BOUND + 1) / share of the team's meetings costs less than holding every match in the bitmap.
 * `go`, said in every one of 50,000 meetings, counted from its bitmap in 1.8 ms against 0.3 by rows.
 */
async function ownTotalAccess(db: Knex, p: Principal, f: ResolvedFilters, kq: KeywordQuery): Promise<KeywordAccess> {
  const [matches, team] = await Promise.all([estimatedMatches(db, p, f, kq), estimatedTeamMeetings(db, p)]);
  if (matches <= 0 || team <= 0) return 'index';
  const byRows = ((TOTAL_BOUND + 1) * Math.max(1, team / matches)) * ROW_TEST_US;
  return byRows < matches * BITMAP_ENTRY_US ? 'rows' : 'index';
}

/**
 * How a walk-shaped list finds the keyword's matches when it is prepared (WalkAccess), or null for a
 * walk planned for its values: past the first pages (PREPARED_WALK_ROWS), ordered by relevance, and for
 * a keyword read sentence by sentence (no index to choose).
 */
async function preparedWalk(db: Knex, p: Principal, f: ResolvedFilters, kq: KeywordQuery | null): Promise<WalkAccess | null> {
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
export async function listStatement(db: Knex, p: Principal, f: ResolvedFilters, kq: KeywordQuery | null): Promise<ListStatement> {
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
  const n = rows.length ? Number(rows[0].matched) : f.skip === 0 ? 0 : Number((await runSql<{ n: number }>(db, countQuery(p, f, kq)))[0]?.n ?? 0);
  return { rows: page, hasMore, total: Math.min(n, TOTAL_BOUND), totalIsLowerBound: n > TOTAL_BOUND, keyword: kq };
}
