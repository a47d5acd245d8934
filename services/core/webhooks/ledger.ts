/** The delivery ledger: a team's deliveries with their attempts, newest first, as the caller may see them. */
import type { Knex } from 'knex';
import { requireTeamWebhookManager, webhookDeliveryVisibleTo, deliveryTargetSql, type Principal } from '../access';
import { invalid, notFound } from '../../platform/errors';
import { requireOneOf } from '../input';
import { DELIVERY_STATUSES, LEDGER_LIMITS, type DeliveryStatus, type WebhookTarget } from './types';

export interface WebhookAttemptRecord {
  attempt_no: number;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  created_at: string;
}

export interface WebhookDeliveryRecord {
  id: string;
  meeting_id: string;
  target: WebhookTarget;
  /** `Transcription completed` (V1) or a V2 event (events.ts). */
  event: string;
  url: string;
  status: DeliveryStatus;
  attempts_count: number;
  redelivery_count: number;
  /** The exact body sent (and signed) on every attempt. */
  payload: string;
  ready_at: string;
  delivered_at: string | null;
  last_error: string | null;
  created_at: string;
  /** The latest attempts (at most 50), oldest first. */
  attempts: WebhookAttemptRecord[];
}

export interface WebhookDeliveryPage {
  deliveries: WebhookDeliveryRecord[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface DeliveryListArgs {
  scope?: 'user' | 'team';
  meetingId?: string;
  status?: string;
  limit?: number;
  cursor?: string;
}

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

function encodeCursor(scope: string, after: string): string {
  return Buffer.from(JSON.stringify({ s: scope, a: after }), 'utf8').toString('base64url');
}

function decodeCursor(scope: string, raw: string): string {
  try {
    const c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { s?: unknown; a?: unknown };
    if (c.s === scope && typeof c.a === 'string' && ULID.test(c.a)) return c.a;
  } catch {
    // fall through
  }
  throw invalid(
    'cursor',
    'a next_cursor from a previous page',
    'cursor must be the next_cursor of a previous page of the same scope; omit it for the first page',
  );
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a knex row
function deliveryRecord(row: Record<string, any>, attempts: WebhookAttemptRecord[]): WebhookDeliveryRecord {
  return {
    id: row.id,
    meeting_id: row.meeting_id ?? row.event_meeting_id,
    target: row.target ?? row.event_target,
    event: row.event,
    url: row.url,
    status: row.status,
    attempts_count: Number(row.attempts_count),
    redelivery_count: Number(row.redelivery_count ?? 0),
    payload: row.payload,
    ready_at: iso(row.ready_at)!,
    delivered_at: iso(row.delivered_at),
    last_error: row.last_error ?? null,
    created_at: iso(row.created_at)!,
    attempts,
  };
}

async function attemptsOf(db: Knex, deliveryIds: string[]): Promise<Map<string, WebhookAttemptRecord[]>> {
  const out = new Map<string, WebhookAttemptRecord[]>(deliveryIds.map((id) => [id, []]));
  if (!deliveryIds.length) return out;
  const rows = await db
    .select('*')
    .from(
      db('webhook_attempts')
        .whereIn('delivery_id', deliveryIds)
        .select('delivery_id', 'attempt_no', 'status_code', 'latency_ms', 'error', 'created_at')
        .select(db.raw('row_number() over (partition by delivery_id order by attempt_no desc) as rn'))
        .as('a'),
    )
    .where('rn', '<=', LEDGER_LIMITS.attemptsShown)
    .orderBy([{ column: 'delivery_id' }, { column: 'attempt_no' }]);
  for (const r of rows) {
    out.get(r.delivery_id)!.push({
      attempt_no: r.attempt_no,
      status_code: r.status_code ?? null,
      latency_ms: r.latency_ms ?? null,
      error: r.error ?? null,
      created_at: iso(r.created_at)!,
    });
  }
  return out;
}

/**
 * The caller's deliveries, newest first: scope `user` (default) lists those of their per-upload and
 * saved webhooks; scope `team` those of the team-wide webhook (super admin, Enterprise).
 */
export async function listWebhookDeliveries(
  db: Knex,
  p: Principal,
  args: DeliveryListArgs = {},
): Promise<WebhookDeliveryPage> {
  const scope = requireOneOf('scope', args.scope ?? 'user', ['user', 'team'] as const);
  if (scope === 'team') requireTeamWebhookManager(p);
  const limit = args.limit ?? LEDGER_LIMITS.defaultLimit;
  if (!Number.isInteger(limit) || limit < 1 || limit > LEDGER_LIMITS.maxLimit) {
    throw invalid(
      'limit',
      `whole number 1 to ${LEDGER_LIMITS.maxLimit}`,
      `limit must be a whole number from 1 to ${LEDGER_LIMITS.maxLimit}; got ${limit}`,
    );
  }
  const status = args.status !== undefined ? requireOneOf('status', args.status, DELIVERY_STATUSES) : undefined;
  const after = args.cursor !== undefined ? decodeCursor(scope, args.cursor) : undefined;

  const q = db('webhook_deliveries as d');
  // The same expression as webhook_deliveries_team_events_idx's predicate, so the team ledger pages on it.
  if (scope === 'user') q.where('d.user_id', p.userId).whereRaw(`${deliveryTargetSql('d')} <> 'team'`);
  else q.where('d.team_id', p.teamId).whereRaw(`${deliveryTargetSql('d')} = 'team'`);
  // A life event's delivery keeps its meeting beside (life.ts): it outlives a deleted meeting.
  if (args.meetingId !== undefined)
    q.where((w) => w.where('d.meeting_id', args.meetingId!).orWhere('d.event_meeting_id', args.meetingId!));
  if (status) q.where('d.status', status);
  if (after) q.where('d.id', '<', after);
  const rows = await q
    .orderBy('d.id', 'desc')
    .limit(limit + 1)
    .select('d.*');
  const page = rows.slice(0, limit);
  const attempts = await attemptsOf(
    db,
    page.map((r) => r.id),
  );
  const hasMore = rows.length > limit;
  return {
    deliveries: page.map((r) => deliveryRecord(r, attempts.get(r.id)!)),
    has_more: hasMore,
    next_cursor: hasMore ? encodeCursor(scope, page[page.length - 1].id) : null,
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a knex row
export async function visibleDelivery(db: Knex, p: Principal, id: string): Promise<Record<string, any>> {
  const row =
    typeof id === 'string' && ULID.test(id)
      ? await db('webhook_deliveries as d').where('d.id', id).where(webhookDeliveryVisibleTo(p, 'd')).first('d.*')
      : undefined;
  if (!row) throw notFound('webhook delivery', String(id));
  return {
    ...row,
    target: row.target ?? row.event_target,
    meeting_id: row.meeting_id ?? row.event_meeting_id,
    event_id: row.event_id === null || row.event_id === undefined ? null : String(row.event_id),
  };
}

export async function getWebhookDelivery(db: Knex, p: Principal, id: string): Promise<WebhookDeliveryRecord> {
  const row = await visibleDelivery(db, p, id);
  return deliveryRecord(row, (await attemptsOf(db, [row.id])).get(row.id)!);
}
