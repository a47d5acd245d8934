/**
 * Changes since a cursor: the meetings of the caller's team that were created, changed or deleted
 * after it, oldest change first, each with what changed and the meeting as the caller may read it now,
 * or removed (deleted, expired, or no longer visible to the caller) with nothing of its content.
 *
 * Visibility is access.visibleToSql, the rule of the meeting list, applied when the page is read: a
 * meeting made private, unshared or moved out of the caller's channels is answered `removed` to this
 * caller from then on. Only the caller's team's meetings are in the log; meetings another team shared
 * with the caller are not (svc_get_transcripts lists them). README.md: why the log is read up to the
 * oldest running transaction and how a mirror stays exact.
 */
import type { Knex } from 'knex';
import { visibleToSql, type Principal } from '../access';
import { estimateDenseTokens, JSON_FRAMING_TOKENS } from '../limits';
import { invalid } from '../../platform/errors';
import type { Config } from '../../platform/config';
import { numbered, runSql } from '../../platform/sql';
import { ChangesCursor, decodeCursor, encodeCursor } from './cursor';

export const CHANGES_LIMIT_DEFAULT = 100;
export const CHANGES_LIMIT_MAX = 200;
/** A page's token budget: a page is cut (has_more true) before its records pass it. */
export const CHANGES_TOKENS = 16_000;

/** What can change about a meeting, as the log names it. */
export const CHANGE_KINDS = [
  'created',
  'title',
  'details',
  'status',
  'transcript',
  'speakers',
  'summary',
  'action_items',
  'sharing',
  'channel',
  'deleted',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** Why a meeting is answered removed: deleted by a person, expired by retention, or no longer visible to the caller. */
export type RemovedReason = 'deleted' | 'expired' | 'not_visible';

/** One meeting that changed. Flat, so TOON renders a page as one table; a removed one holds only its id and why. */
export interface ChangeRecord {
  meeting_id: string;
  /** The kinds of change since the cursor, comma-separated (CHANGE_KINDS); `created` for every meeting of a snapshot. */
  changed: string;
  /** When the latest of them was written (ISO 8601). */
  changed_at: string;
  removed: boolean;
  reason: RemovedReason | null;
  title: string | null;
  dateString: string | null;
  status: string | null;
  privacy: string | null;
  channel_id: string | null;
  organizer_email: string | null;
  /** Minutes, one decimal. */
  duration: number | null;
  is_live: boolean | null;
}

export interface ChangesPage {
  changes: ChangeRecord[];
  /** snapshot: these are meetings you can read now (a first sync); changes: changes after the cursor. */
  phase: 'snapshot' | 'changes';
  /** More can be read now: call again with next_cursor. false: you are at the end; poll later with next_cursor. */
  has_more: boolean;
  /** Always set: the cursor for the next call, now or later. */
  next_cursor: string;
  /** How long the log keeps changes (CHANGES_RETENTION): read again within this, or start over. */
  retention_days: number;
}

/** An ISO 8601 instant in UTC with milliseconds, as Date.toISOString writes it, made by PostgreSQL. */
const iso = (col: string) => `to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The meeting's columns a record shows, from `meetings as m`. */
const FIELDS = 'm.title, m.date, m.status, m.privacy, m.channel_id, m.organizer_email, m.duration_seconds, m.is_live';

export function requireChangesLimit(limit: number | undefined): number {
  if (limit === undefined || limit === null) return CHANGES_LIMIT_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > CHANGES_LIMIT_MAX)
    throw invalid(
      'limit',
      `a whole number from 1 to ${CHANGES_LIMIT_MAX}`,
      `limit must be a whole number from 1 to ${CHANGES_LIMIT_MAX}; got ${limit}`,
    );
  return limit;
}

/** A string's bytes in JSON: its UTF-8 bytes and quotes, escapes included (printable ASCII without `"` or `\\` needs none). */
function jsonStringBytes(s: string): number {
  return /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/.test(s) ? s.length + 2 : Buffer.byteLength(JSON.stringify(s), 'utf8');
}

/** What the keys, braces and commas of a record add to its values in JSON. */
const RECORD_FRAME_BYTES = (() => {
  const none = { meeting_id: '', kinds: '', at: '', reason: null, duration_seconds: null } as LogRow;
  const keys = Object.keys(logRecord(none, ''));
  return keys.reduce((n, k) => n + k.length + 3, 1 + keys.length);
})();

/** A string's JSON bytes, or null's. */
const textBytes = (s: string | null) => (s === null ? 4 : jsonStringBytes(s));
/**
 * The same for a string this module or a check of the database writes: kinds of change, instants made
 * by to_char, reasons, statuses, privacies, all printable ASCII without `"` or `\\`.
 */
const plainBytes = (s: string | null) => (s === null ? 4 : s.length + 2);
const numberBytes = (n: number | null) => (n === null ? 4 : String(n).length);
const flagBytes = (b: boolean | null) => (b === null ? 4 : b ? 4 : 5);

/**
 * The bytes of JSON.stringify(r), counted without making the text: the budget is checked on every
 * page. Only the text a person or an import wrote (ids, title, email) is scanned for escapes.
 */
export function recordJsonBytes(r: ChangeRecord): number {
  return (
    RECORD_FRAME_BYTES +
    textBytes(r.meeting_id) +
    plainBytes(r.changed) +
    plainBytes(r.changed_at) +
    flagBytes(r.removed) +
    plainBytes(r.reason) +
    textBytes(r.title) +
    plainBytes(r.dateString) +
    plainBytes(r.status) +
    plainBytes(r.privacy) +
    textBytes(r.channel_id) +
    textBytes(r.organizer_email) +
    numberBytes(r.duration) +
    flagBytes(r.is_live)
  );
}

/**
 * The records that fit the token budget (at least one), estimated as estimateJsonTokens would on the
 * page and on each record (tokens.ts), from recordJsonBytes.
 */
function withinBudget(records: ChangeRecord[]): ChangeRecord[] {
  const bytes = records.map(recordJsonBytes);
  // One estimate of the whole page first: a page of ordinary titles is far within the budget.
  const page = bytes.reduce((a, b) => a + b, 1 + Math.max(records.length, 1));
  if (estimateDenseTokens(page) + JSON_FRAMING_TOKENS <= CHANGES_TOKENS) return records;
  let tokens = 0;
  for (let i = 0; i < records.length; i++) {
    tokens += estimateDenseTokens(bytes[i]) + JSON_FRAMING_TOKENS;
    if (tokens > CHANGES_TOKENS && i > 0) return records.slice(0, i);
  }
  return records;
}

/** The oldest transaction still running: every change of an older one is committed (or never will be). */
const HORIZON = 'pg_snapshot_xmin(pg_current_snapshot())';

async function snapshotPage(
  db: Knex,
  config: Config,
  p: Principal,
  c: ChangesCursor,
  limit: number,
): Promise<Omit<ChangesPage, 'retention_days'>> {
  const vis = visibleToSql(p, 'm');
  const { rows } = await db.raw(
    `select m.id as meeting_id, ${iso('m.updated_at')} as at, null as reason, m.title, ${iso('m.date')} as date,
            m.status, m.privacy, m.channel_id, m.organizer_email, m.duration_seconds, m.is_live from meetings m
      where m.team_id = ? and m.id > ? and ${vis.sql} order by m.id limit ?`,
    [p.teamId, c.after, ...vis.bindings, limit + 1],
  );
  const all = (rows as LogRow[]).map((r) => logRecord(r, 'created'));
  const page = withinBudget(all.slice(0, limit));
  const more = all.length > page.length;
  const issued = Math.floor(Date.now() / 1000);
  const next: ChangesCursor = more
    ? { ...c, after: page[page.length - 1].meeting_id, issued }
    : { phase: 'changes', after: '', xid: c.xid, meeting: c.meeting, issued };
  // The snapshot's end is not the log's: the changes after its start follow on the next call.
  return { changes: page, phase: 'snapshot', has_more: true, next_cursor: encodeCursor(next) };
}

/**
 * The page statement for one form of the visibility rule (admin or member, shared with or not: four in
 * all), prepared under its name: it runs on its generic plan, and no call pays for planning it. The
 * meeting is joined laterally, by its key for each change: a generic plan cannot know how few rows
 * the limit leaves and would otherwise hash every meeting of the database. The statement answers each
 * change as its record will hold it (the visibility rule applied once per row, removed meetings
 * without their fields, instants as text), so the role parses no dates and decides nothing per field.
 *
 * The page of the log is `materialized`: planned on its own, it is always the index range scan. Inlined,
 * the planner weighed it with the join, and a generic plan of the member's rule (dearer per meeting)
 * came out as a parallel scan and sort of the team's whole log, two orders of magnitude slower.
 */
const pageStatements = new Map<string, { text: string; name: string }>();

function pageStatement(visibility: string): { text: string; name: string } {
  let st = pageStatements.get(visibility);
  if (!st) {
    const shown = (col: string) => `case when m.visible then ${col} end`;
    const { text } = numbered({
      sql: `with page as materialized (
         select c.xid, c.meeting_id, c.kinds, c.reason, c.at from meeting_changes c
          where c.team_id = ? and (c.xid, c.meeting_id) > (?::xid8, ?) and c.xid < (select ${HORIZON})
          order by c.xid, c.meeting_id limit ?)
       select page.xid::text as xid, page.meeting_id, array_to_string(page.kinds, ',') as kinds, ${iso('page.at')} as at,
              case when m.visible then null when m.id is not null then 'not_visible'
                   else coalesce(page.reason, (select t.reason from meeting_changes t
                     where t.meeting_id = page.meeting_id and t.reason is not null and t.team_id = ? limit 1), 'deleted') end as reason,
              ${shown('m.title')} as title, ${shown(iso('m.date'))} as date, ${shown('m.status')} as status,
              ${shown('m.privacy')} as privacy, ${shown('m.channel_id')} as channel_id,
              ${shown('m.organizer_email')} as organizer_email, ${shown('m.duration_seconds')} as duration_seconds,
              ${shown('m.is_live')} as is_live
         from page left join lateral (
              select m.id, ${FIELDS}, coalesce(${visibility}, false) as visible
                from meetings m where m.id = page.meeting_id offset 0) m on true
        order by page.xid, page.meeting_id`,
      bindings: Array.from({ length: (visibility.match(/\?/g) ?? []).length + 5 }, () => null),
    });
    st = { text, name: `mi_changes_${pageStatements.size}` };
    pageStatements.set(visibility, st);
  }
  return st;
}

/** A change as the page statement answers it: a record's fields, with its log position. */
interface LogRow {
  xid: string;
  meeting_id: string;
  /** Comma-separated: a string is cheaper for the driver than an array. */
  kinds: string;
  at: string;
  /** Why the meeting is removed for this caller; null when it is visible. */
  reason: RemovedReason | null;
  title: string | null;
  date: string | null;
  status: string | null;
  privacy: string | null;
  channel_id: string | null;
  organizer_email: string | null;
  duration_seconds: number | null;
  is_live: boolean | null;
}

function logRecord(r: LogRow, changed: string): ChangeRecord {
  return {
    meeting_id: r.meeting_id,
    changed,
    changed_at: r.at,
    removed: r.reason !== null,
    reason: r.reason,
    title: r.title,
    dateString: r.date,
    status: r.status,
    privacy: r.privacy,
    channel_id: r.channel_id,
    organizer_email: r.organizer_email,
    duration: r.duration_seconds === null ? null : Math.round((r.duration_seconds / 60) * 10) / 10,
    is_live: r.is_live,
  };
}

const KNOWN_KINDS = new Set<string>(CHANGE_KINDS);

/** The kinds of one or more changes of a meeting, in CHANGE_KINDS order (kinds this release does not know left out). */
function mergedKinds(kinds: Set<string>): string {
  return CHANGE_KINDS.filter((k) => kinds.has(k)).join(',');
}

/** One change's kinds as its record says them: a single known kind as it is, several put in order. */
function kindsOf(kinds: string): string {
  return KNOWN_KINDS.has(kinds) ? kinds : mergedKinds(new Set(kinds.split(',')));
}

/**
 * One row per meeting, at its latest change on the page, with every kind read for it. A page where no
 * meeting changes twice (the common case) is answered as read, without merging.
 */
function latestPerMeeting(read: LogRow[]): LogRow[] {
  const seen = new Set<string>();
  for (const r of read) {
    if (seen.has(r.meeting_id)) return merged(read);
    seen.add(r.meeting_id);
  }
  return read;
}

function merged(read: LogRow[]): LogRow[] {
  const byMeeting = new Map<string, { last: LogRow; kinds: Set<string> }>();
  for (const r of read) {
    const kinds = byMeeting.get(r.meeting_id)?.kinds ?? new Set<string>();
    for (const k of r.kinds.split(',')) kinds.add(k);
    // Taken out and put back: a Map keeps insertion order, so the meeting moves to its latest change.
    byMeeting.delete(r.meeting_id);
    byMeeting.set(r.meeting_id, { last: r, kinds });
  }
  return [...byMeeting.values()].map(({ last, kinds }) => ({ ...last, kinds: mergedKinds(kinds) }));
}

async function changesPage(
  db: Knex,
  config: Config,
  p: Principal,
  c: ChangesCursor,
  limit: number,
): Promise<Omit<ChangesPage, 'retention_days'>> {
  const vis = visibleToSql(p, 'm');
  const st = pageStatement(vis.sql);
  const log = await runSql<LogRow>(
    db,
    { text: st.text, values: [p.teamId, c.xid, c.meeting, limit + 1, p.teamId, ...vis.bindings] },
    st.name,
  );
  const read = log.length > limit ? log.slice(0, limit) : log;
  const latest = latestPerMeeting(read);
  const records = latest.map((r) => logRecord(r, kindsOf(r.kinds)));
  const page = withinBudget(records);
  const cut = page.length < records.length;
  const issued = Math.floor(Date.now() / 1000);
  // Every record left off has its latest change after the last one answered, so it is read again.
  const lastRow = page.length ? latest[page.length - 1] : null;
  const next: ChangesCursor = lastRow
    ? { phase: 'changes', after: '', xid: lastRow.xid, meeting: lastRow.meeting_id, issued }
    : { ...c, issued };
  return { changes: page, phase: 'changes', has_more: cut || log.length > limit, next_cursor: encodeCursor(next) };
}

/**
 * A page of changes after `cursor`; without one, first every meeting the caller can read (a snapshot,
 * phase `snapshot`), then the changes written since the snapshot began.
 */
export async function getChanges(
  db: Knex,
  config: Config,
  p: Principal,
  input: { cursor?: string | null; limit?: number },
): Promise<ChangesPage> {
  const limit = requireChangesLimit(input.limit);
  const now = new Date();
  let cursor: ChangesCursor;
  if (input.cursor === undefined || input.cursor === null || input.cursor === '') {
    // The log position before the first meeting is read: changes from here on are answered after the snapshot.
    const { rows } = await db.raw(`select (${HORIZON})::text as xid`);
    cursor = { phase: 'snapshot', after: '', xid: rows[0].xid, meeting: '', issued: Math.floor(now.getTime() / 1000) };
  } else {
    cursor = decodeCursor(input.cursor, now, config.changesRetentionMs);
  }
  const page =
    cursor.phase === 'snapshot'
      ? await snapshotPage(db, config, p, cursor, limit)
      : await changesPage(db, config, p, cursor, limit);
  return { ...page, retention_days: Math.round(config.changesRetentionMs / 86_400_000) };
}
