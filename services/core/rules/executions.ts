/**
 * The automation log: what the team's rules did to each meeting. Each run and test records one row per
 * rule (recordExecution); svc_get_rule_executions reads them grouped by meeting, newest meeting
 * first, page by page with a cursor (Enterprise tier).
 *
 * Pages stay exact while the workflow keeps inserting executions: groups are ordered by meeting id
 * (ULIDs, so time-ordered and immutable) and the cursor carries the last meeting id shown. A group
 * is on exactly one page; executions added to a meeting already paged past are not shown again.
 * The cursor is opaque and tamper-evident (HMAC); the query is scoped to the caller's team and
 * visibility regardless, so a forged cursor could at worst skip ahead in the caller's own log.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { requireTier, visibleTo, type Principal } from '../access';
import { invalid, notFound } from '../../platform/errors';
import { newId } from '../input';
import { estimateJsonTokens } from '../limits';
import { ruleExecutions as ruleExecutionsMetric } from '../../platform/metrics';
import type { ActionOutcome } from './actions';
import type { Page } from '../meetings';
import { requireDateTime } from '../analytics';

export const DEFAULT_GROUP_LIMIT = 10;
export const MAX_GROUP_LIMIT = 50;
/** Executions shown per meeting; execution_count says how many matched in all. */
export const EXECUTIONS_PER_GROUP = 100;
/**
 * Token budget of one page: MCP clients refuse answers over 25,000 tokens (Claude Code), and 50 groups
 * of busy meetings come to more than that. A page holds the groups that fit (at least one), and has_more /
 * next_cursor lead on to the rest, so a page may hold fewer groups than limit.
 */
export const RULE_LOG_TOKENS = 20_000;
/** What the page around the groups costs (has_more, next_cursor, the table headers). */
const PAGE_ENVELOPE_TOKENS = 150;

/**
 * A group's or an execution's cost, estimated on its JSON (longer than its TOON) at the dense rate of
 * ids, dates and URLs: pessimistic, so the page stays under the budget in either format. The page's
 * own framing is PAGE_ENVELOPE_TOKENS, so each value adds little of its own.
 */
const VALUE_FRAMING_TOKENS = 4;
const valueTokens = (v: unknown) => estimateJsonTokens(v, VALUE_FRAMING_TOKENS);

/** The leading groups that fit the budget; the first always, its executions cut to fit if need be. */
function fitBudget(groups: RuleExecutionGroup[], budget: number): RuleExecutionGroup[] {
  const out: RuleExecutionGroup[] = [];
  let left = budget - PAGE_ENVELOPE_TOKENS;
  for (const g of groups) {
    const cost = valueTokens(g);
    if (cost <= left) {
      out.push(g);
      left -= cost;
      continue;
    }
    if (out.length === 0) {
      // One meeting alone over the budget: its newest executions that fit, executions_has_more set.
      const head = { ...g, executions: [] as RuleExecutionRecord[], executions_has_more: true };
      let used = valueTokens(head);
      for (const e of g.executions) {
        const c = valueTokens(e);
        if (head.executions.length > 0 && used + c > left) break;
        head.executions.push(e);
        used += c;
      }
      head.executions_has_more = head.execution_count > head.executions.length;
      out.push(head);
    }
    break;
  }
  return out;
}

export interface RuleExecutionArgs {
  ruleId?: string;
  meetingId?: string;
  dateFrom?: string;
  dateTo?: string;
  limit?: number;
  cursor?: string;
}

export interface RuleExecutionRecord {
  id: string;
  rule_id: string;
  rule_name: string;
  status: string;
  /** What the rule did, one clause per action: `share(emails=a@x.com) -> done; move(channel=...)`. */
  actions: string;
  error: string | null;
  dry_run: boolean;
  executed_at: string;
}

export type ExecutionStatus = 'success' | 'partial' | 'failed' | 'skipped';

/** One execution as a run or a test records it. */
export interface ExecutionWrite {
  teamId: string;
  rule: { id: string; name: string };
  meetingId: string;
  runKey: string;
  status: ExecutionStatus;
  actions: ActionOutcome[];
  error: string | null;
  dryRun: boolean;
}

/**
 * One execution, in the shape svc_get_rule_executions reads. Keyed by (run_key, rule_id): a retry
 * updates the row (keeping its id) and rule_executions_total counts each execution once.
 */
export async function recordExecution(db: Knex, w: ExecutionWrite): Promise<RuleExecutionRecord> {
  const [row] = await db('rule_executions')
    .insert({
      id: newId(),
      team_id: w.teamId,
      rule_id: w.rule.id,
      rule_name: w.rule.name,
      meeting_id: w.meetingId,
      run_key: w.runKey,
      status: w.status,
      actions: JSON.stringify(w.actions),
      error: w.error,
      dry_run: w.dryRun,
      executed_at: db.fn.now(),
    })
    .onConflict(['run_key', 'rule_id'])
    .merge(['rule_name', 'status', 'actions', 'error', 'dry_run', 'executed_at'])
    .returning([
      'id',
      'rule_id',
      'rule_name',
      'status',
      'actions',
      'error',
      'dry_run',
      'executed_at',
      db.raw('(xmax = 0) as inserted'),
    ]);
  if (row.inserted) ruleExecutionsMetric.inc({ status: w.status });
  return toRecord(row);
}

export interface RuleExecutionGroup {
  meeting_id: string;
  meeting: string;
  execution_count: number;
  executions_has_more: boolean;
  executions: RuleExecutionRecord[];
}

export interface RuleExecutionPage extends Page {
  meetings: RuleExecutionGroup[];
  next_cursor: string | null;
}

interface Filters {
  ruleId?: string;
  meetingId?: string;
  dateFrom?: Date;
  dateTo?: Date;
}

export async function listRuleExecutions(
  db: Knex,
  p: Principal,
  args: RuleExecutionArgs,
  opts: { secretsKey?: Buffer; maxTokens?: number } = {},
): Promise<RuleExecutionPage> {
  requireTier(p, 'enterprise', 'The rule execution log');
  const filters = parseFilters(args);
  const limit = args.limit ?? DEFAULT_GROUP_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_GROUP_LIMIT) {
    throw invalid(
      'limit',
      `whole number 1 to ${MAX_GROUP_LIMIT}`,
      `limit must be a whole number from 1 to ${MAX_GROUP_LIMIT}; got ${limit}`,
    );
  }
  // A meeting the caller cannot see (unknown, another team's) is object_not_found, as in every other
  // tool, not an empty log.
  if (
    filters.meetingId &&
    !(await db('meetings as m').modify(visibleTo(p, 'm')).where('m.id', filters.meetingId).first('m.id'))
  ) {
    throw notFound('meeting', filters.meetingId);
  }
  const key = await cursorKey(db, opts.secretsKey);
  const fhash = filtersHash(filters);
  const after = args.cursor !== undefined ? openCursor(key, args.cursor, p.teamId, fhash) : undefined;

  const matching = (qb: Knex.QueryBuilder) => {
    qb.where('re.team_id', p.teamId);
    if (filters.ruleId) qb.where('re.rule_id', filters.ruleId);
    if (filters.meetingId) qb.where('re.meeting_id', filters.meetingId);
    if (filters.dateFrom) qb.where('re.executed_at', '>=', filters.dateFrom);
    if (filters.dateTo) qb.where('re.executed_at', '<=', filters.dateTo);
  };

  // One statement, so a group's count and its executions come from the same snapshot.
  const rows: (ExecutionRow & { title: string; execution_count: string; fetched: string })[] = await db
    .with('g', (qb) =>
      qb
        .from('rule_executions as re')
        .join('meetings as m', 'm.id', 're.meeting_id')
        .modify(matching)
        .modify(visibleTo(p, 'm'))
        .modify((q) => {
          if (after) q.where('re.meeting_id', '<', after);
        })
        .groupBy('re.meeting_id', 'm.title')
        .select('re.meeting_id', 'm.title', db.raw('count(*) as execution_count'))
        .orderBy('re.meeting_id', 'desc')
        .limit(limit + 1),
    )
    .with('page', (qb) => qb.from('g').select('g.*').orderBy('g.meeting_id', 'desc').limit(limit))
    .with('e', (qb) =>
      qb
        .from('rule_executions as re')
        .join('page', 'page.meeting_id', 're.meeting_id')
        .modify(matching)
        .select(
          're.*',
          db.raw('row_number() over (partition by re.meeting_id order by re.executed_at desc, re.id desc) as rn'),
        ),
    )
    .from('page')
    .join('e', 'e.meeting_id', 'page.meeting_id')
    .where('e.rn', '<=', EXECUTIONS_PER_GROUP)
    .orderBy([{ column: 'page.meeting_id', order: 'desc' }, { column: 'e.rn' }])
    .select(
      'e.id',
      'e.rule_id',
      'e.rule_name',
      'e.status',
      'e.actions',
      'e.error',
      'e.dry_run',
      'e.executed_at',
      'page.meeting_id',
      'page.title',
      'page.execution_count',
    )
    .select(db.raw('(select count(*) from g) as fetched'));

  const groups: RuleExecutionGroup[] = [];
  for (const r of rows) {
    let g = groups[groups.length - 1];
    if (!g || g.meeting_id !== r.meeting_id) {
      g = {
        meeting_id: r.meeting_id,
        meeting: r.title,
        execution_count: Number(r.execution_count),
        executions_has_more: false,
        executions: [],
      };
      groups.push(g);
    }
    g.executions.push(toRecord(r));
  }
  for (const g of groups) g.executions_has_more = g.execution_count > g.executions.length;
  const shown = fitBudget(groups, opts.maxTokens ?? RULE_LOG_TOKENS);
  const hasMore = shown.length < groups.length || (rows.length > 0 && Number(rows[0].fetched) > limit);
  return {
    meetings: shown,
    has_more: hasMore,
    next_cursor: hasMore
      ? sealCursor(key, { v: 1, t: p.teamId, k: shown[shown.length - 1].meeting_id, f: fhash })
      : null,
  };
}

function parseFilters(args: RuleExecutionArgs): Filters {
  const f: Filters = {};
  if (args.ruleId !== undefined) f.ruleId = nonEmpty('ruleId', args.ruleId);
  if (args.meetingId !== undefined) f.meetingId = nonEmpty('meetingId', args.meetingId);
  if (args.dateFrom !== undefined) f.dateFrom = requireDateTime('dateFrom', args.dateFrom);
  if (args.dateTo !== undefined) f.dateTo = requireDateTime('dateTo', args.dateTo);
  if (f.dateFrom && f.dateTo && f.dateFrom > f.dateTo) {
    throw invalid(
      'dateFrom',
      'must not be after dateTo',
      `dateFrom (${f.dateFrom.toISOString()}) must not be after dateTo (${f.dateTo.toISOString()})`,
    );
  }
  return f;
}

function nonEmpty(field: string, v: string): string {
  const s = v.trim();
  if (!s) throw invalid(field, 'must not be empty');
  return s;
}

// --- actions -----------------------------------------------------------------------------------------

interface ExecutionRow {
  id: string;
  meeting_id: string;
  rule_id: string;
  rule_name: string;
  status: string;
  actions: unknown;
  error: string | null;
  dry_run: boolean;
  executed_at: Date;
}

function toRecord(r: ExecutionRow): RuleExecutionRecord {
  return {
    id: r.id,
    rule_id: r.rule_id,
    rule_name: r.rule_name,
    status: r.status,
    actions: summarizeActions(r.actions),
    error: r.error ?? null,
    dry_run: r.dry_run,
    executed_at: new Date(r.executed_at).toISOString(),
  };
}

const OUTCOME_KEYS = ['status', 'result', 'outcome'];
const NAME_KEYS = ['type', 'action', 'kind', 'name'];

/**
 * The stored action list as one line a model reads at a glance, whatever the rule engine wrote:
 * strings as they are, objects as `type(key=value, ...) -> status`.
 */
export function summarizeActions(actions: unknown): string {
  const list = Array.isArray(actions) ? actions : actions === null || actions === undefined ? [] : [actions];
  return list.map(summarizeAction).join('; ');
}

function summarizeAction(a: unknown): string {
  if (a === null || typeof a !== 'object') return String(a);
  const o = a as Record<string, unknown>;
  const nameKey = NAME_KEYS.find((k) => typeof o[k] === 'string');
  const outcomeKey = OUTCOME_KEYS.find((k) => typeof o[k] === 'string');
  const details = Object.entries(o)
    .filter(([k, v]) => k !== nameKey && k !== outcomeKey && v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.map(scalar).join(' ') : scalar(v)}`);
  const head = `${nameKey ? String(o[nameKey]) : 'action'}(${details.join(', ')})`;
  return outcomeKey ? `${head} -> ${String(o[outcomeKey])}` : head;
}

const scalar = (v: unknown) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v));

// --- cursor ------------------------------------------------------------------------------------------

interface CursorPayload {
  v: 1;
  /** Team the cursor was issued to. */
  t: string;
  /** Last meeting id of the page. */
  k: string;
  /** Hash of the filters it was issued under. */
  f: string;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');
const CURSOR_CONTEXT = 'rule-executions-cursor/v1';
const derivedKeys = new WeakMap<Knex, Promise<Buffer>>();

/**
 * The HMAC key of cursors: derived from SECRETS_KEY when configured; otherwise (the mcp role does
 * not need that key) a constant of the database, which still detects edits to a cursor and keeps
 * every pod of one installation agreeing.
 */
async function cursorKey(db: Knex, secretsKey?: Buffer): Promise<Buffer> {
  if (secretsKey) return createHmac('sha256', secretsKey).update(CURSOR_CONTEXT).digest();
  let key = derivedKeys.get(db);
  if (!key) {
    key = db
      .raw('select current_database() as name')
      .then((r: { rows: { name: string }[] }) =>
        createHash('sha256').update(`${CURSOR_CONTEXT}:${r.rows[0].name}`).digest(),
      );
    derivedKeys.set(db, key);
    // A failed lookup (database briefly down) must not stick: the next call asks again.
    key.catch(() => derivedKeys.delete(db));
  }
  return key;
}

function filtersHash(f: Filters): string {
  const canonical = JSON.stringify([
    f.ruleId ?? null,
    f.meetingId ?? null,
    f.dateFrom?.toISOString() ?? null,
    f.dateTo?.toISOString() ?? null,
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

function tag(key: Buffer, body: string): Buffer {
  return createHmac('sha256', key).update(body).digest();
}

function sealCursor(key: Buffer, payload: CursorPayload): string {
  const body = b64url(JSON.stringify(payload));
  return `${body}.${b64url(tag(key, body))}`;
}

/** The last meeting id of the previous page, after checking the cursor is ours, this team's, these filters'. */
function openCursor(key: Buffer, cursor: string, teamId: string, fhash: string): string {
  const bad = (why: string) =>
    invalid(
      'cursor',
      'must be the next_cursor of a previous call with the same filters',
      `cursor ${why}; pass next_cursor exactly as returned, or omit it to start from the first page`,
    );
  const [body, sig, extra] = cursor.split('.');
  if (!body || !sig || extra !== undefined) throw bad('is malformed');
  const expected = tag(key, body);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw bad('was not issued by this service or was modified');
  let payload: CursorPayload;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorPayload;
  } catch {
    throw bad('is malformed');
  }
  if (payload.v !== 1 || typeof payload.k !== 'string' || !payload.k) throw bad('is malformed');
  if (payload.t !== teamId) throw bad('belongs to another team');
  if (payload.f !== fhash) {
    throw invalid(
      'cursor',
      'must be used with the same filters',
      'cursor was issued for different filters; repeat the same ruleId, meetingId, dateFrom and dateTo, or omit cursor to start over',
    );
  }
  return payload.k;
}
