/**
 * Rate limits.
 *
 * The call allowance (every MCP tool call and GraphQL operation): counted per credential in
 * PostgreSQL (`rate_limit_counts`), so it holds across every pod: an API key counts as itself, an
 * OAuth sign-in as its user. Fixed windows of a minute on the database's clock (one clock for every
 * pod). A process takes calls from its credential's row a lease at a time (LEASE_MAX, LEASE_SHARE)
 * with one atomic `insert ... on conflict do update` that grants a lease only while the window's
 * count stays within the allowance, and admits the lease's calls itself: a key never gets more than
 * its allowance in a window however its calls spread over pods, and an allowance under LEASE_SHARE
 * is counted call by call (the Nth call passes, the N+1th is refused). For an API key the lease rides
 * in the statement that looks the key up (core/people apiKeyCall), which every call runs anyway: no
 * round trip of its own. The allowance is RATE_LIMIT_PER_MINUTE, or the one a team admin gave the
 * key. Refused calls are not counted.
 *
 * `checkRateLimit` is the other limiter: per process and per client address, a brake on the OAuth
 * endpoints' forms (services/oauth/http.ts), where no credential exists yet to count against.
 */
import type { Knex } from 'knex';
import { ServiceError } from '../../platform/errors';
import { runSql } from '../../platform/sql';

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

/** The columns the allowance statements answer with, read by `allowanceAfter`. */
export interface AllowanceRow {
  allowance: number;
  /** The count after this request's lease, when one was granted; null otherwise. */
  used_now: number | null;
  /** The calls the lease granted (at least the request's), when one was granted. */
  granted: number | null;
  /** The count after this request (used_now), or as the statement found it. */
  used: number;
  reset_in: string | number;
}

/**
 * The largest lease, and the share of the allowance a lease may be at most (1/LEASE_SHARE): a
 * process counts calls in PostgreSQL a lease at a time and admits the lease's other calls itself,
 * so an allowance of a few hundred calls costs a write every few calls, and one under LEASE_SHARE is
 * counted call by call. Calls leased but not spent by one process are refused to the others: a key
 * may get up to (processes - 1) × (lease - 1) calls fewer than its allowance in a window, never more.
 */
export const LEASE_MAX = 20;
export const LEASE_SHARE = 100;

/** The calls one lease takes for a request of `calls` calls under `allowance`. */
export const leaseSize = (allowance: number, calls: number) =>
  Math.max(calls, Math.min(LEASE_MAX, Math.ceil(allowance / LEASE_SHARE)));

/**
 * The allowance part of a statement: CTEs `w` (the window) and `bump` (the lease), to follow `with`
 * (and a CTE of the statement's own that `from` names), and the columns `AllowanceRow` reads. The
 * placeholders are the caller's: `subject`, `allowance` and `calls` are SQL expressions (a `$n` or a
 * column of `from`), `lease` a boolean expression, and `admissible` the condition under which the
 * credential is counted at all. A request of `calls` calls (0: none to count) counts them, or with
 * `lease` takes `leaseSize` of them, or what is left of the window's allowance if that is less but
 * still covers the request; when they do not fit, nothing is counted.
 */
export function allowanceSql(s: {
  subject: string;
  allowance: string;
  calls: string;
  lease: string;
  from: string;
  admissible: string;
}) {
  // The count of the credential's row in the current window: 0 once the window has turned.
  const inWindow = (row: string, start: string) =>
    `case when ${row}.window_start = ${start} then ${row}.used else 0 end`;
  const lease = `case when ${s.lease} then least(greatest(${s.calls}, least(${LEASE_MAX}, ceil(${s.allowance} / ${LEASE_SHARE}.0)::int)), ${s.allowance}) else ${s.calls} end`;
  const now = inWindow('c', 'excluded.window_start');
  const ctes =
    `w as (select to_timestamp(floor(extract(epoch from now()) / ${WINDOW_SECONDS}) * ${WINDOW_SECONDS}) as start),\n` +
    `bump as (insert into rate_limit_counts as c (subject, window_start, used, allowance, granted)\n` +
    `  select ${s.subject}, w.start, ${lease}, ${s.allowance}, ${lease} from ${s.from}\n` +
    `   where ${s.calls} > 0 and ${s.calls} <= ${s.allowance} and ${s.admissible}\n` +
    `  on conflict (subject) do update set used = least(${now} + excluded.granted, excluded.allowance),\n` +
    `    granted = least(${now} + excluded.granted, excluded.allowance) - ${now},\n` +
    `    window_start = excluded.window_start, allowance = excluded.allowance\n` +
    `   where ${now} + ${s.calls} <= excluded.allowance\n` +
    `  returning used, granted)`;
  // The count after this request: bump's, or (not counted) the row's as the statement found it.
  const columns =
    `${s.allowance} as allowance, (select used from bump) as used_now, (select granted from bump) as granted, ` +
    `coalesce((select used from bump), (select ${inWindow('r', 'w.start')} from rate_limit_counts r where r.subject = ${s.subject}), 0) as used, ` +
    `extract(epoch from w.start + interval '${WINDOW_SECONDS} seconds' - now()) as reset_in`;
  // The same answer for a request that counts nothing (its calls are spent from a lease, or it has
  // none): a read, without the insert, which PostgreSQL would prepare and lock for even when it
  // inserts nothing.
  const readCtes = ctes.slice(0, ctes.indexOf('),\n') + 1);
  const readColumns =
    `${s.allowance} as allowance, null::int as used_now, null::int as granted, ` +
    `coalesce((select ${inWindow('r', 'w.start')} from rate_limit_counts r where r.subject = ${s.subject}), 0) as used, ` +
    `extract(epoch from w.start + interval '${WINDOW_SECONDS} seconds' - now()) as reset_in`;
  return { ctes, columns, readCtes, readColumns };
}

/**
 * This process's leases: calls of a credential's current window counted in PostgreSQL and not spent
 * yet, by holder (`key:<prefix>`, `user:<id>`), and the lease being taken, if one is. A lease ends
 * before its window does on this process's clock: its end is reckoned from when the statement was
 * sent, which is before the database read its clock. One request at a time takes a lease; requests
 * that find one being taken wait for it (meterCalls), so a process never holds more than one
 * lease's unspent calls and a busy key's calls rarely write.
 */
interface Lease {
  left: number;
  until: number;
  taking: Promise<void> | null;
  taken: () => void;
}
const leases = new Map<string, Lease>();

/**
 * How a request's calls are counted: spent from this process's lease, a new lease, just themselves,
 * or (wait) from the lease being taken once it is in.
 */
export type CallPlan = 'reserved' | 'lease' | 'exact' | 'wait';

/** How to count a request of `calls` calls; a reservation takes them from the lease at once. */
export function planCalls(holder: string, calls: number, now = Date.now()): CallPlan {
  if (calls === 0) return 'exact';
  let lease = leases.get(holder);
  if (lease && lease.until > now && lease.left >= calls) {
    lease.left -= calls;
    return 'reserved';
  }
  if (lease?.taking) return 'wait';
  if (!lease) {
    if (leases.size > 10_000) forgetIdleLeases(now);
    lease = { left: 0, until: 0, taking: null, taken: () => {} };
    leases.set(holder, lease);
  }
  const taking = lease;
  taking.taking = new Promise((resolve) => (taking.taken = resolve));
  return 'lease';
}

/** Bound the book: leases of windows gone, then every lease not being taken (their calls are refused, never over-spent). */
function forgetIdleLeases(now: number): void {
  for (const [holder, lease] of leases) if (!lease.taking && lease.until <= now) leases.delete(holder);
  if (leases.size > 10_000) for (const [holder, lease] of leases) if (!lease.taking) leases.delete(holder);
}

/** The calls the statement counts for a plan (0 when reserved, or waiting for a lease). */
export const callsToCount = (plan: CallPlan, calls: number) => (plan === 'reserved' || plan === 'wait' ? 0 : calls);

function leaseTaken(lease: Lease | undefined): void {
  if (!lease?.taking) return;
  lease.taking = null;
  lease.taken();
}

/** A request that ended before its statement answered (its credential failed): undo its plan. */
export function abandonPlan(holder: string, calls: number, plan: CallPlan): void {
  const lease = leases.get(holder);
  if (plan === 'reserved' && lease) lease.left += calls;
  if (plan === 'lease') leaseTaken(lease);
}

/**
 * Count a request's `calls` calls for `holder`: `run(count, lease)` runs the credential's statement
 * (count 0: the read that counts nothing) and `check` turns its row into the credential, throwing
 * when it fails. A request that finds a lease being taken reads, waits for the lease, and spends
 * from it; only if it does not cover the request does it count in a statement of its own.
 */
export async function meterCalls<R extends AllowanceRow, C>(
  holder: string,
  calls: number,
  run: (count: number, lease: boolean) => Promise<R>,
  check: (row: R) => C,
): Promise<{ credential: C; allowance: Allowance }> {
  let plan = planCalls(holder, calls);
  if (plan === 'wait') {
    const sentAt = Date.now();
    const row = await run(0, false);
    const credential = check(row);
    await leases.get(holder)?.taking;
    plan = planCalls(holder, calls);
    if (plan === 'reserved') return { credential, allowance: allowanceAfter(holder, calls, plan, row, sentAt) };
    if (plan === 'wait') plan = 'exact';
  }
  const sentAt = Date.now();
  try {
    const row = await run(callsToCount(plan, calls), plan === 'lease');
    return { credential: check(row), allowance: allowanceAfter(holder, calls, plan, row, sentAt) };
  } catch (e) {
    abandonPlan(holder, calls, plan);
    throw e;
  }
}

/**
 * The allowance after a request of `calls` calls counted by `plan`, from the statement's row (sent
 * at `sentAt`). Remaining is the window's allowance less what PostgreSQL has counted, plus this
 * process's unspent lease.
 */
export function allowanceAfter(
  holder: string,
  calls: number,
  plan: CallPlan,
  row: AllowanceRow,
  sentAt: number,
): Allowance {
  const limit = Number(row.allowance);
  const resetIn = Number(row.reset_in);
  const resetSeconds = Math.min(WINDOW_SECONDS, Math.max(1, Math.ceil(resetIn)));
  const counted = Math.max(0, limit - Number(row.used));
  const lease = leases.get(holder);
  if (plan === 'lease') leaseTaken(lease);
  if (plan !== 'reserved' && calls > 0) {
    if (row.used_now === null)
      // Refused: fewer than `calls` were left (the count read beside it may predate other pods' calls).
      return { limit, remaining: Math.min(counted, calls - 1), resetSeconds, admitted: false };
    if (lease) {
      // Calls granted beyond this request's join what is left of the lease, if it is of this window.
      const until = sentAt + resetIn * 1000;
      lease.left = (lease.until > sentAt ? lease.left : 0) + Number(row.granted) - calls;
      lease.until = Math.max(lease.until, until);
    }
  }
  const unspent = lease && lease.until > sentAt ? lease.left : 0;
  return { limit, remaining: Math.min(limit, counted + unspent), resetSeconds, admitted: true };
}

const CALLER_STATEMENTS = (() => {
  const a = allowanceSql({
    subject: '$1::text',
    allowance: '$2::int',
    calls: '$3::int',
    lease: '$4::boolean',
    from: 'w',
    admissible: 'true',
  });
  return {
    count: `with ${a.ctes} select ${a.columns} from w`,
    read: `with ${a.readCtes} select ${a.readColumns} from w`,
  };
})();

/**
 * Count `calls` calls of a caller that has no API key (an OAuth sign-in) against its user's
 * allowance, `allowance` a window. API keys are counted by core/people apiKeyCall, in their lookup.
 */
export async function countCalls(db: Knex, userId: string, calls: number, allowance: number): Promise<Allowance> {
  const holder = `user:${userId}`;
  const run = async (count: number, lease: boolean) =>
    (
      await (count
        ? runSql<AllowanceRow>(
            db,
            { text: CALLER_STATEMENTS.count, values: [holder, allowance, count, lease] },
            'mi_rate_limit_count',
          )
        : runSql<AllowanceRow>(db, { text: CALLER_STATEMENTS.read, values: [holder, allowance] }, 'mi_rate_limit_read'))
    )[0];
  return (await meterCalls(holder, calls, run, () => null)).allowance;
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
