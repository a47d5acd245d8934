/**
 * The read audit: every read of a meeting's content (transcript, summary, fetch, soundbite, search
 * moments, page view), who, which meeting, from which surface, when. Append-only (table read_audit).
 *
 * Reads are recorded by core's read functions (meetings/transcripts.ts, soundbites, the keyword
 * moments of a list) after the read succeeded, into the read context the transport put on the caller's
 * Principal for the call (readingAs: `mcp:<tool>`, `graphql:<field>`, `page:<route>`): a refused read
 * (object_not_found, forbidden) records nothing, and one meeting read twice in one call is one row.
 *
 * Rows are buffered in the process and written with one multi-row INSERT every
 * READ_AUDIT_FLUSH_INTERVAL or READ_AUDIT_BATCH_ROWS rows, and on shutdown (the mcp and graphql
 * roles stop their buffer before closing the pool). A failed flush never fails a
 * read: it is logged and counted (read_audit_flush_failures_total), and its rows are kept for the
 * next flush up to a bound, past which they are dropped and counted (read_audit_rows_total{outcome}).
 */
import type { Knex } from 'knex';
import { type Principal, type ReadContext, requireAdmin } from '../access';
import { invalid } from '../../platform/errors';
import { logger } from '../../platform/logger';
import { readAuditFlushFailures, readAuditRows } from '../../platform/metrics';
import { numbered, runSql } from '../../platform/sql';

/** One read as recorded. The team is the meeting's team: its admins are the ones who ask. */
export interface ReadEvent {
  teamId: string;
  /** null: an anonymous viewer (a public soundbite link). */
  userId: string | null;
  meetingId: string;
  surface: string;
}

export interface ReadAuditSettings {
  enabled: boolean;
  flushIntervalMs: number;
  batchRows: number;
}

const DEFAULT_READ_AUDIT: ReadAuditSettings = { enabled: true, flushIntervalMs: 1000, batchRows: 500 };
/** Rows kept for the next flush while the database refuses them; past this many, the oldest are dropped. */
const RETAINED_FACTOR = 20;

/**
 * Buffered reads as five columns rather than an object a read: a read waits up to a flush interval,
 * long enough for V8 to copy an object out of its young generation and collect it later at a cost
 * (services/core/README.md, "Read audit"); here a read adds four shared string references and one
 * number. Times are epoch milliseconds: numbers cost the driver and PostgreSQL less to pass than
 * timestamps as text.
 */
class ReadColumns {
  teams: string[] = [];
  users: (string | null)[] = [];
  meetings: string[] = [];
  surfaces: string[] = [];
  times: number[] = [];

  get length(): number {
    return this.times.length;
  }

  push(e: ReadEvent, at: number): void {
    this.teams.push(e.teamId);
    this.users.push(e.userId);
    this.meetings.push(e.meetingId);
    this.surfaces.push(e.surface);
    this.times.push(at);
  }

  /** Removes and answers the oldest `n` reads. */
  takeOldest(n: number): ReadColumns {
    const taken = new ReadColumns();
    taken.teams = this.teams.splice(0, n);
    taken.users = this.users.splice(0, n);
    taken.meetings = this.meetings.splice(0, n);
    taken.surfaces = this.surfaces.splice(0, n);
    taken.times = this.times.splice(0, n);
    return taken;
  }

  /** Puts `older` back in front (a batch whose flush failed). */
  putBack(older: ReadColumns): void {
    this.teams = older.teams.concat(this.teams);
    this.users = older.users.concat(this.users);
    this.meetings = older.meetings.concat(this.meetings);
    this.surfaces = older.surfaces.concat(this.surfaces);
    this.times = older.times.concat(this.times);
  }
}

/**
 * One multi-row INSERT of a batch, as five arrays: a fixed text prepared once per connection, where
 * knex would build and compile a statement of 2,500 bindings for a batch of 500.
 */
const INSERT_READS = numbered({
  sql:
    'insert into read_audit (team_id, user_id, meeting_id, surface, read_at)' +
    ' select t, u, m, s, to_timestamp(ms / 1000) from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::float8[]) as r(t, u, m, s, ms)',
  bindings: ['teams', 'users', 'meetings', 'surfaces', 'epoch milliseconds'],
}).text;

function insertReads(db: Knex, batch: ReadColumns): Promise<unknown> {
  return runSql(
    db,
    { text: INSERT_READS, values: [batch.teams, batch.users, batch.meetings, batch.surfaces, batch.times] },
    'mi_insert_reads',
  );
}

/** Whether knex's pool is still open (destroy() removes it). */
const poolOpen = (db: Knex) => Boolean((db.client as { pool?: unknown }).pool);

class ReadAuditBuffer {
  private rows = new ReadColumns();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  /** A write of full batches is queued and has not started: the reads arriving meanwhile join it. */
  private fullBatchQueued = false;
  /** The last write failed: it is tried again on the interval, not on every read past the threshold. */
  private failing = false;
  users = 0;

  constructor(
    private readonly db: Knex,
    readonly settings: ReadAuditSettings,
  ) {}

  add(e: ReadEvent): void {
    if (!this.settings.enabled) return;
    this.rows.push(e, Date.now());
    if (this.rows.length >= this.settings.batchRows && !this.failing) this.queueFullBatches();
    else this.armTimer();
  }

  private armTimer(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.settings.flushIntervalMs);
    this.timer.unref();
  }

  /**
   * One queued write of the full batches, however many reads arrive before it starts: a list with
   * moments adds ten reads at once, and a write queued for each read past the threshold wrote the
   * batch, then each of the others the few reads that had arrived by its turn.
   */
  private queueFullBatches(): void {
    if (this.fullBatchQueued) return;
    this.fullBatchQueued = true;
    this.flushing = this.flushing.then(() => {
      this.fullBatchQueued = false;
      return this.write(this.settings.batchRows);
    });
  }

  /** Write what is buffered; writes run one after another. Never throws. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.flushing = this.flushing.then(() => this.write(1));
    return this.flushing;
  }

  /**
   * Write what is buffered when the write starts, in whole multiples of `unit` rows (1: everything),
   * as batches of at most batchRows, one INSERT each. Reads arriving meanwhile wait for the next full
   * batch or interval: writing them too kept a write going for as long as reads kept coming, one
   * small INSERT (and commit) after another under a keyword load, where full batches were meant.
   */
  private async write(unit: number): Promise<void> {
    let due = this.rows.length - (this.rows.length % unit);
    while (due > 0) {
      const batch = this.rows.takeOldest(Math.min(this.settings.batchRows, due));
      due -= batch.length;
      try {
        await insertReads(this.db, batch);
        this.failing = false;
        readAuditRows.inc({ outcome: 'written' }, batch.length);
      } catch (err) {
        if (!poolOpen(this.db)) {
          // The pool was closed under us (a process or test that stopped without stopping the audit):
          // nothing can be written any more, so say so once and keep no timer alive.
          readAuditRows.inc({ outcome: 'dropped' }, batch.length + this.rows.length);
          logger.warn(
            { rows: batch.length + this.rows.length },
            'read audit rows dropped: the database pool is closed',
          );
          this.rows = new ReadColumns();
          if (buffers.get(this.db) === this) buffers.delete(this.db);
          return;
        }
        readAuditFlushFailures.inc();
        this.failing = true;
        const keep = this.settings.batchRows * RETAINED_FACTOR;
        this.rows.putBack(batch);
        const dropped = Math.max(0, this.rows.length - keep);
        if (dropped) {
          this.rows.takeOldest(dropped);
          readAuditRows.inc({ outcome: 'dropped' }, dropped);
        }
        logger.error({ err, rows: batch.length, kept: this.rows.length, dropped }, 'read audit flush failed');
        // Try again on the next interval rather than in a tight loop.
        if (this.rows.length) this.armTimer();
        return;
      }
    }
    if (this.rows.length) this.armTimer();
  }
}

/** One buffer per database pool of the process (roles sharing a runtime share it). */
const buffers = new Map<Knex, ReadAuditBuffer>();

/**
 * Start the read audit of a role: its settings (READ_AUDIT, READ_AUDIT_FLUSH_INTERVAL,
 * READ_AUDIT_BATCH_ROWS) for this pool. stop() writes what is buffered; call it after the role's
 * servers closed and before the pool closes. Roles sharing a pool share one buffer.
 */
export function startReadAudit(db: Knex, settings: ReadAuditSettings): { stop(): Promise<void> } {
  let b = buffers.get(db);
  if (!b || b.users === 0) {
    const old = b;
    b = new ReadAuditBuffer(db, settings);
    buffers.set(db, b);
    if (old) void old.flush();
  }
  b.users++;
  const buffer = b;
  let stopped = false;
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      buffer.users--;
      await buffer.flush();
      if (buffer.users === 0 && buffers.get(db) === buffer) buffers.delete(db);
    },
  };
}

/** A new read-audit context for one call (put it on the caller's Principal as `reads`). */
export const readContext = (surface: string): ReadContext => ({ surface, seen: new Set() });

/** The caller of one call with its read-audit context: `mcp:<tool>`, `graphql:<field>`, `page:<route>`. */
export function readingAs(p: Principal, surface: string | ReadContext): Principal {
  return { ...p, reads: typeof surface === 'string' ? readContext(surface) : surface };
}

/**
 * Record that `viewer` read meeting `meeting` (of team `teamId`), in the call's read context (the
 * viewer's `reads`, or `ctx` for an anonymous viewer). Called by core's read functions after the read
 * succeeded; one row per meeting per context. Never throws and never waits for the database. Without a
 * started read audit for this pool (a test, the CLI) the default settings apply. (The context travels
 * with the Principal rather than in an AsyncLocalStorage: on Node 20 an active AsyncLocalStorage
 * installs promise hooks that cost every request CPU; see platform/logger.ts.)
 */
export function recordRead(
  db: Knex,
  viewer: Principal | null,
  meeting: { id: string; teamId: string },
  ctx: ReadContext | undefined = viewer?.reads,
): void {
  if (!ctx || ctx.seen.has(meeting.id)) return;
  ctx.seen.add(meeting.id);
  let b = buffers.get(db);
  if (!b) {
    b = new ReadAuditBuffer(db, DEFAULT_READ_AUDIT);
    buffers.set(db, b);
  }
  b.add({ teamId: meeting.teamId, userId: viewer?.userId ?? null, meetingId: meeting.id, surface: ctx.surface });
}

/** The reads of one answer over several meetings (a list with moments, soundbites): one row per meeting. */
export function recordReads(db: Knex, viewer: Principal | null, meetings: { id: string; teamId: string }[]): void {
  for (const m of meetings) recordRead(db, viewer, m);
}

/** Write every buffered read of this pool now (tests, shutdown). */
export async function flushReads(db: Knex): Promise<void> {
  await buffers.get(db)?.flush();
}

// ---------------------------------------------------------------------------------------------------
// Asking the read audit (GraphQL readAudit for team admins, `meeting-intel audit reads` for operators)
// ---------------------------------------------------------------------------------------------------

export interface ReadAuditFilter {
  userId?: string;
  meetingId?: string;
  /** Reads at or after this instant. */
  since?: Date;
  /** Reads before this instant. */
  until?: Date;
  /** 1 to 500 (default 100). */
  limit?: number;
  /** next_cursor of the previous page. */
  cursor?: string;
}

export interface ReadAuditRecord {
  id: string;
  team_id: string;
  user_id: string | null;
  user_email: string | null;
  meeting_id: string;
  surface: string;
  read_at: string;
}

export interface ReadAuditPage {
  reads: ReadAuditRecord[];
  has_more: boolean;
  /** Pass as cursor for the next page; null on the last. */
  next_cursor: string | null;
}

export const READ_AUDIT_LIMIT = { default: 100, max: 500 } as const;

const encodeCursor = (id: string) => Buffer.from(`ra:${id}`).toString('base64url');
function decodeCursor(cursor: string): string {
  const raw = Buffer.from(cursor, 'base64url').toString('utf8');
  const m = /^ra:(\d{1,19})$/.exec(raw);
  if (!m)
    throw invalid('cursor', 'a next_cursor of a previous page', 'cursor must be the next_cursor of a previous page');
  return m[1];
}

/**
 * A team's reads, newest first, one page at a time. Paging is by row id (the table is append-only and
 * ids only grow), so a walk from the first page to the last sees every row that existed when it
 * started exactly once, whatever is written meanwhile. The caller checks who may ask (access/rules.ts).
 */
export async function listTeamReads(db: Knex, teamId: string, f: ReadAuditFilter): Promise<ReadAuditPage> {
  const limit = f.limit ?? READ_AUDIT_LIMIT.default;
  if (!Number.isInteger(limit) || limit < 1 || limit > READ_AUDIT_LIMIT.max) {
    throw invalid(
      'limit',
      `a whole number from 1 to ${READ_AUDIT_LIMIT.max}`,
      `limit must be a whole number from 1 to ${READ_AUDIT_LIMIT.max}; got ${limit}`,
    );
  }
  for (const [field, d] of [
    ['since', f.since],
    ['until', f.until],
  ] as const) {
    if (d !== undefined && Number.isNaN(d.getTime()))
      throw invalid(field, 'an ISO 8601 date-time', `${field} must be an ISO 8601 date-time`);
  }
  const q = db('read_audit as r')
    .leftJoin('users as u', 'u.id', 'r.user_id')
    .where('r.team_id', teamId)
    .orderBy('r.id', 'desc')
    .limit(limit + 1)
    .select('r.id', 'r.team_id', 'r.user_id', 'u.email as user_email', 'r.meeting_id', 'r.surface', 'r.read_at');
  if (f.userId) q.where('r.user_id', f.userId);
  if (f.meetingId) q.where('r.meeting_id', f.meetingId);
  if (f.since) q.where('r.read_at', '>=', f.since);
  if (f.until) q.where('r.read_at', '<', f.until);
  if (f.cursor) q.where('r.id', '<', decodeCursor(f.cursor));
  const rows: (Omit<ReadAuditRecord, 'read_at' | 'id'> & { id: string | number; read_at: Date })[] = await q;
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return {
    reads: page.map((r) => ({ ...r, id: String(r.id), read_at: new Date(r.read_at).toISOString() })),
    has_more: hasMore,
    next_cursor: hasMore ? encodeCursor(String(page[page.length - 1].id)) : null,
  };
}

/** The caller's team's reads: team admins (access.requireAdmin). */
export function listReads(db: Knex, p: Principal, f: ReadAuditFilter): Promise<ReadAuditPage> {
  requireAdmin(p, 'Reading the read audit');
  return listTeamReads(db, p.teamId, f);
}

/**
 * Reads older than `olderThan` go (READ_AUDIT_RETENTION), at most `batch` rows; answers how many went.
 * The rows are found by the BRIN time index and deleted where they lie (ctid): the table has no index
 * on id alone (see migration 20261129000000), and its rows are never updated, so a row's ctid holds.
 */
export async function pruneReads(db: Knex, olderThan: Date, batch: number): Promise<number> {
  const r = await db.raw(
    'delete from read_audit where ctid = any(array(select ctid from read_audit where read_at < ? limit ?))',
    [olderThan, batch],
  );
  return r.rowCount ?? 0;
}
