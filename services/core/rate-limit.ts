/**
 * Rate limits.
 *
 * The call allowance (every MCP tool call and GraphQL operation): counted per credential in
 * PostgreSQL (`rate_limit_counts`), so it holds across every pod: an API key counts as itself, an
 * OAuth sign-in as its user. Fixed windows of a minute on the database's clock (one clock for every
 * pod); each call adds to its credential's row with one atomic `insert ... on conflict do update`
 * that admits it only while the window's count stays within the allowance, so the Nth call of a
 * window passes and the N+1th is refused however the calls are spread over pods. For an API key the
 * count rides in the statement that looks the key up (core/people apiKeyCall): no round trip of its
 * own. The allowance is RATE_LIMIT_PER_MINUTE, or the one a team admin gave the key. Refused calls
 * are not counted.
 *
 * `checkRateLimit` is the other limiter: per process and per client address, a brake on the OAuth
 * endpoints' forms (services/oauth/http.ts), where no credential exists yet to count against.
 */
import type { Knex } from 'knex';
import { ServiceError } from '../platform/errors';
import { runSql } from '../platform/sql';

/** The length of a window, seconds: the allowance is per minute. */
export const WINDOW_SECONDS = 60;

/** Where a credential stands in its window, after this request's calls were counted (or refused). */
export interface Allowance {
  /** Calls the credential may make a window. */
  limit: number;
  /** Calls it has left in this window. */
  remaining: number;
  /** Seconds until the window turns and the allowance is whole again (1 to 60). */
  resetSeconds: number;
  /** Whether this request's calls were admitted (and counted). */
  admitted: boolean;
}

/** The columns the allowance statements answer with, read by `allowanceOf`. */
export interface AllowanceRow {
  allowance: number;
  /** The count after this request's calls, when they were admitted; null otherwise. */
  used_now: number | null;
  /** The count after this request (used_now), or as the statement found it. */
  used: number;
  reset_in: string | number;
}

/**
 * The allowance part of a statement: CTEs `w` (the window) and `bump` (the count), to follow `with`
 * (and a CTE of the statement's own that `from` names), and the columns `AllowanceRow` reads. The
 * placeholders are the caller's: `subject`, `allowance` and `calls` are SQL expressions (a `$n` or a
 * column of `from`), and `admissible` the condition under which the credential is counted at all.
 */
export function allowanceSql(s: {
  subject: string;
  allowance: string;
  calls: string;
  from: string;
  admissible: string;
}) {
  // The count of the credential's row in the current window: 0 once the window has turned.
  const inWindow = (row: string, start: string) =>
    `case when ${row}.window_start = ${start} then ${row}.used else 0 end`;
  const ctes =
    `w as (select to_timestamp(floor(extract(epoch from now()) / ${WINDOW_SECONDS}) * ${WINDOW_SECONDS}) as start),\n` +
    `bump as (insert into rate_limit_counts as c (subject, window_start, used, allowance)\n` +
    `  select ${s.subject}, w.start, ${s.calls}, ${s.allowance} from ${s.from}\n` +
    `   where ${s.calls} > 0 and ${s.calls} <= ${s.allowance} and ${s.admissible}\n` +
    `  on conflict (subject) do update set used = ${inWindow('c', 'excluded.window_start')} + excluded.used,\n` +
    `    window_start = excluded.window_start, allowance = excluded.allowance\n` +
    `   where ${inWindow('c', 'excluded.window_start')} + excluded.used <= excluded.allowance\n` +
    `  returning used)`;
  // The count after this request: bump's, or (not counted) the row's as the statement found it.
  const columns =
    `${s.allowance} as allowance, (select used from bump) as used_now, ` +
    `coalesce((select used from bump), (select ${inWindow('r', 'w.start')} from rate_limit_counts r where r.subject = ${s.subject}), 0) as used, ` +
    `extract(epoch from w.start + interval '${WINDOW_SECONDS} seconds' - now()) as reset_in`;
  return { ctes, columns };
}

/** The allowance a statement's row tells, for a request of `calls` calls. */
export function allowanceOf(row: AllowanceRow, calls: number): Allowance {
  const limit = Number(row.allowance);
  const resetSeconds = Math.min(WINDOW_SECONDS, Math.max(1, Math.ceil(Number(row.reset_in))));
  const left = Math.max(0, limit - Number(row.used));
  if (row.used_now !== null || calls === 0) return { limit, remaining: left, resetSeconds, admitted: true };
  // Refused: fewer than `calls` were left (the count read beside it may predate calls other pods made since).
  return { limit, remaining: Math.min(left, calls - 1), resetSeconds, admitted: false };
}

const CALLER_STATEMENT = (() => {
  const a = allowanceSql({
    subject: '$1::text',
    allowance: '$2::int',
    calls: '$3::int',
    from: 'w',
    admissible: 'true',
  });
  return `with ${a.ctes} select ${a.columns} from w`;
})();

/**
 * Count `calls` calls of a caller that has no API key (an OAuth sign-in) against its user's
 * allowance, `allowance` a window. API keys are counted by core/people apiKeyCall, in their lookup.
 */
export async function countCalls(db: Knex, userId: string, calls: number, allowance: number): Promise<Allowance> {
  const [row] = await runSql<AllowanceRow>(
    db,
    { text: CALLER_STATEMENT, values: [`user:${userId}`, allowance, calls] },
    'mi_rate_limit_count',
  );
  return allowanceOf(row, calls);
}

/**
 * The headers every answer carries (draft-ietf-httpapi-ratelimit-headers, the separate-field form):
 * the allowance, what is left of it and the seconds until the window turns, and the policy behind
 * them (`<limit>;w=<window seconds>`). A refusal adds Retry-After (tooManyRequests, the transports).
 */
export function allowanceHeaders(a: Allowance): Record<string, string> {
  return {
    'RateLimit-Limit': String(a.limit),
    'RateLimit-Remaining': String(a.remaining),
    'RateLimit-Reset': String(a.resetSeconds),
    'RateLimit-Policy': `${a.limit};w=${WINDOW_SECONDS}`,
  };
}

/**
 * The refusal of a request beyond its allowance: what to wait for, in words and as
 * `retry_after_seconds` (also as `retryAfterSeconds`, the name release 0.1.0 answered with).
 */
export function tooManyRequests(a: Allowance): ServiceError {
  return new ServiceError(
    'too_many_requests',
    `this credential used its ${a.limit} calls of this minute; retry after ${a.resetSeconds} s ` +
      `(a team admin can give an API key a larger allowance)`,
    { retry_after_seconds: a.resetSeconds, retryAfterSeconds: a.resetSeconds },
  );
}

/**
 * Per-process, fixed one-minute windows: for the OAuth endpoints' forms, keyed by client address.
 * Pods are stateless, so a cluster allows this times the replica count; it stops a runaway loop or a
 * guessing script at one pod, which is all a form needs.
 */
const windows = new Map<string, { start: number; count: number }>();

export function checkRateLimit(key: string, perMinute: number, now = Date.now()): void {
  const start = now - (now % 60_000);
  const w = windows.get(key);
  if (!w || w.start !== start) {
    if (windows.size > 10_000) windows.clear();
    windows.set(key, { start, count: 1 });
    return;
  }
  w.count += 1;
  if (w.count > perMinute) {
    const retryAfterSeconds = Math.ceil((start + 60_000 - now) / 1000);
    throw new ServiceError(
      'too_many_requests',
      `more than ${perMinute} calls this minute; retry after ${retryAfterSeconds} s`,
      { retryAfterSeconds },
    );
  }
}
