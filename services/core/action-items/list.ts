/**
 * A person's action items across meetings: those of every meeting they may read (access/rules.ts
 * visibleToSql, the same rule as every list and read), newest meeting first and in the order said
 * within a meeting, paged by a cursor within a token budget.
 *
 * The cursor carries the last row's place in that order (meeting date, meeting id, sentence index,
 * item id), so a page is exact however many items are added or closed meanwhile; it also names the
 * filters it was made for, and a cursor brought to other filters is refused rather than answering a
 * page of a different list. Visibility is applied to every page whatever the cursor says.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Config } from '../../platform/config';
import { invalid, notFound } from '../../platform/errors';
import { channelVisibleTo, visibleTo, visibleToSql, type Principal } from '../access';
import { recordReads } from '../audit';
import { isCalendarDate, type Page } from '../meetings';
import { isEmail } from '../input';
import { estimateJsonTokens } from '../limits';
import { numbered, runSql } from '../../platform/sql';
import {
  ACTION_ITEM_STATUSES,
  toActionItemRecord,
  type ActionItemRecord,
  type ActionItemRow,
  type ActionItemStatus,
} from './records';

/** The default page is the meeting list's: an assistant asking what is open reads the newest first. */
export const ACTION_ITEM_LIST = { defaultLimit: 10, maxLimit: 100 } as const;
/**
 * Token budget of one page: below what MCP clients accept from one answer (25,000 tokens), as the
 * other lists. A page holds the items that fit (at least one); has_more and next_cursor lead on.
 */
export const ACTION_ITEM_TOKENS = 20_000;
/** What the page around the rows costs (has_more, next_cursor, the table header). */
const PAGE_ENVELOPE_TOKENS = 150;
export const OWNER_MAX = 256;
export const CURSOR_MAX = 1000;
const ID_MAX = 64;

export interface ActionItemFilters {
  /** Only items owned by the caller (their email). */
  mine?: boolean;
  status?: string;
  /** An owner's email, or their name as the item shows it. */
  owner?: string;
  /** Due on or before this day (YYYY-MM-DD); items without a due date are left out. */
  dueBefore?: string;
  /** Due on or after this day. */
  dueAfter?: string;
  meetingId?: string;
  channelId?: string;
  /** Meetings on or after this day (UTC). */
  fromDate?: string;
  /** Meetings on or before this day (UTC). */
  toDate?: string;
  limit?: number;
  cursor?: string;
}

export interface ActionItemPage extends Page {
  action_items: ActionItemRecord[];
  next_cursor: string | null;
}

interface Resolved {
  mine: boolean;
  status: ActionItemStatus | null;
  ownerEmail: string | null;
  ownerName: string | null;
  dueBefore: string | null;
  dueAfter: string | null;
  meetingId: string | null;
  channelId: string | null;
  fromDate: string | null;
  toDate: string | null;
  limit: number;
}

interface CursorPlace {
  d: string;
  m: string;
  i: number;
  k: string;
  f: string;
}

function day(field: string, v: string | undefined): string | null {
  if (v === undefined) return null;
  if (!isCalendarDate(v))
    throw invalid(
      field,
      'a calendar date YYYY-MM-DD',
      `${field} must be a calendar date YYYY-MM-DD; got ${JSON.stringify(v)}`,
    );
  return v;
}

function id(field: string, v: string | undefined): string | null {
  if (v === undefined) return null;
  const s = v.trim();
  if (!s || s.length > ID_MAX)
    throw invalid(
      field,
      `1 to ${ID_MAX} characters`,
      `${field} must be an id of 1 to ${ID_MAX} characters; got ${JSON.stringify(v)}`,
    );
  return s;
}

function order(field: string, from: string | null, to: string | null, toField: string) {
  if (from && to && from > to)
    throw invalid(field, `not after ${toField}`, `${field} (${from}) must not be after ${toField} (${to})`);
}

export function resolveActionItemFilters(f: ActionItemFilters): Resolved {
  const limit = f.limit ?? ACTION_ITEM_LIST.defaultLimit;
  if (!Number.isInteger(limit) || limit < 1 || limit > ACTION_ITEM_LIST.maxLimit) {
    throw invalid(
      'limit',
      `a whole number from 1 to ${ACTION_ITEM_LIST.maxLimit}`,
      `limit must be a whole number from 1 to ${ACTION_ITEM_LIST.maxLimit}; got ${limit}`,
    );
  }
  let status: ActionItemStatus | null = null;
  if (f.status !== undefined) {
    if (!(ACTION_ITEM_STATUSES as readonly string[]).includes(f.status)) {
      throw invalid(
        'status',
        `one of ${ACTION_ITEM_STATUSES.join(', ')}`,
        `status must be one of ${ACTION_ITEM_STATUSES.join(', ')}; got ${JSON.stringify(f.status)}`,
      );
    }
    status = f.status as ActionItemStatus;
  }
  let ownerEmail: string | null = null;
  let ownerName: string | null = null;
  if (f.owner !== undefined) {
    const o = f.owner.trim();
    if (!o || [...o].length > OWNER_MAX)
      throw invalid(
        'owner',
        `1 to ${OWNER_MAX} characters`,
        `owner must be an email or a name of 1 to ${OWNER_MAX} characters`,
      );
    if (isEmail(o)) ownerEmail = o.toLowerCase();
    else ownerName = o.toLowerCase();
  }
  const r: Resolved = {
    mine: f.mine === true,
    status,
    ownerEmail,
    ownerName,
    dueBefore: day('dueBefore', f.dueBefore),
    dueAfter: day('dueAfter', f.dueAfter),
    meetingId: id('meetingId', f.meetingId),
    channelId: id('channelId', f.channelId),
    fromDate: day('fromDate', f.fromDate),
    toDate: day('toDate', f.toDate),
    limit,
  };
  order('dueAfter', r.dueAfter, r.dueBefore, 'dueBefore');
  order('fromDate', r.fromDate, r.toDate, 'toDate');
  return r;
}

/** Names the filters a cursor was made for (the limit is not one: a page may change its size). */
function filtersHash(p: Principal, r: Resolved): string {
  const { limit: _limit, ...filters } = r;
  return createHash('sha256')
    .update(JSON.stringify([p.userId, filters]))
    .digest('base64url')
    .slice(0, 16);
}

function sealCursor(place: CursorPlace): string {
  return Buffer.from(JSON.stringify(place)).toString('base64url');
}

function openCursor(raw: string, fhash: string): CursorPlace {
  const bad = () =>
    invalid(
      'cursor',
      'the next_cursor of a previous page',
      'cursor must be the next_cursor of a previous page of svc_get_action_items, unchanged',
    );
  if (raw.length > CURSOR_MAX) throw bad();
  let c: CursorPlace;
  try {
    c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (
    !c ||
    typeof c.d !== 'string' ||
    Number.isNaN(Date.parse(c.d)) ||
    typeof c.m !== 'string' ||
    !Number.isInteger(c.i) ||
    typeof c.k !== 'string'
  )
    throw bad();
  if (c.f !== fhash)
    throw invalid(
      'cursor',
      'the same filters as the page it came from',
      'cursor belongs to a list with other filters; call again with the filters of the page it came from, or without cursor',
    );
  return c;
}

/** What a record adds to a page beyond its JSON: the separator and the row's place in the table. */
const RECORD_FRAMING_TOKENS = 4;

const COLUMNS =
  'ai.id, ai.team_id, ai.meeting_id, ai.meeting_date, ai.text, ai.sentence_index, ai.start_time, ai.owner_name, ai.owner_email,' +
  // The meeting date as PostgreSQL writes it: the cursor gives it back exactly, microseconds and all.
  ' ai.due_phrase, ai.due_date, ai.status, m.title as meeting_title, ai.meeting_date::text as date_key';
const ORDER = 'order by ai.meeting_date desc, ai.meeting_id desc, ai.sentence_index asc, ai.id asc';

/**
 * A named (prepared) statement per shape of the list (which filters are given): the text is SQL
 * without values, so a few shapes serve every call, each on its generic plan (platform/sql.ts).
 */
const names = new Map<string, string>();
function statementName(sql: string): string {
  let name = names.get(sql);
  if (!name) names.set(sql, (name = `mi_action_items_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`));
  return name;
}

export async function listActionItems(
  db: Knex,
  config: Pick<Config, 'publicBaseUrl'>,
  p: Principal,
  f: ActionItemFilters,
): Promise<ActionItemPage> {
  const r = resolveActionItemFilters(f);
  const fhash = filtersHash(p, r);
  const after = f.cursor !== undefined ? openCursor(f.cursor, fhash) : undefined;

  // A meeting the caller cannot see (unknown, another team's) is object_not_found, as in every other
  // tool, not an empty list.
  if (r.meetingId && !(await db('meetings as m').modify(visibleTo(p, 'm')).where('m.id', r.meetingId).first('m.id'))) {
    throw notFound('meeting', r.meetingId);
  }
  if (
    r.channelId &&
    !(await db('channels as c').modify(channelVisibleTo(p, 'c')).where('c.id', r.channelId).first('c.id'))
  ) {
    throw notFound('channel', r.channelId);
  }
  const vis = visibleToSql(p, 'm');
  const where: string[] = [vis.sql];
  const bindings: Knex.RawBinding[] = [...vis.bindings];
  const add = (sql: string, ...values: Knex.RawBinding[]) => {
    where.push(sql);
    bindings.push(...values);
  };
  // No share names the caller: every item they may read is their team's, so the team's index leads.
  if (p.sharedWith === false) add('ai.team_id = ?', p.teamId);
  if (r.mine) add('lower(ai.owner_email) = lower(?)', p.email);
  if (r.status) add('ai.status = ?', r.status);
  if (r.ownerEmail) add('lower(ai.owner_email) = ?', r.ownerEmail);
  if (r.ownerName) add('lower(ai.owner_name) = ?', r.ownerName);
  if (r.dueBefore) add('ai.due_date <= ?::date', r.dueBefore);
  if (r.dueAfter) add('ai.due_date >= ?::date', r.dueAfter);
  if (r.meetingId) add('ai.meeting_id = ?', r.meetingId);
  if (r.channelId) add('m.channel_id = ?', r.channelId);
  if (r.fromDate) add('ai.meeting_date >= ?::timestamptz', `${r.fromDate}T00:00:00Z`);
  if (r.toDate)
    add('ai.meeting_date < ?::timestamptz', new Date(Date.parse(`${r.toDate}T00:00:00Z`) + 86_400_000).toISOString());
  if (after) {
    add(
      '(ai.meeting_date < ?::timestamptz or (ai.meeting_date = ?::timestamptz and (ai.meeting_id < ? or (ai.meeting_id = ? and (ai.sentence_index, ai.id) > (?::int, ?)))))',
      after.d,
      after.d,
      after.m,
      after.m,
      after.i,
      after.k,
    );
  }
  bindings.push(r.limit + 1);
  const sql = `select ${COLUMNS} from action_items ai join meetings m on m.id = ai.meeting_id where ${where.join(' and ')} ${ORDER} limit ?::int`;
  const rows = await runSql<ActionItemRow & { meeting_title: string; date_key: string }>(
    db,
    numbered({ sql, bindings }),
    statementName(sql),
  );

  const shown: ActionItemRecord[] = [];
  let left = ACTION_ITEM_TOKENS - PAGE_ENVELOPE_TOKENS;
  for (const row of rows.slice(0, r.limit)) {
    const rec = toActionItemRecord(config, row);
    // Estimated on its JSON (longer than its TOON): pessimistic, so a page fits either format.
    const cost = estimateJsonTokens(rec, RECORD_FRAMING_TOKENS);
    if (shown.length > 0 && cost > left) break;
    shown.push(rec);
    left -= cost;
  }
  const hasMore = rows.length > shown.length;
  const last = rows[shown.length - 1];
  recordReads(db, p, [
    ...new Map(
      rows.slice(0, shown.length).map((x) => [x.meeting_id, { id: x.meeting_id, teamId: x.team_id }]),
    ).values(),
  ]);
  return {
    action_items: shown,
    has_more: hasMore,
    next_cursor:
      hasMore && last
        ? sealCursor({ d: last.date_key, m: last.meeting_id, i: last.sentence_index, k: last.id, f: fhash })
        : null,
  };
}
