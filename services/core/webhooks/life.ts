/**
 * Events of a meeting's life after its processing (docs/webhooks-v2.md): `meeting.deleted`,
 * `transcript.updated`, `meeting.summarized` again after a re-summary, `action_item.updated`.
 *
 * The changes happen in every role (a deletion over MCP, a speaker named over GraphQL, the retention
 * run in the worker), and only the worker reaches Temporal. So a change writes an outbox row
 * (webhook_events) in its own transaction: the triggers of migration 20261212000300_webhook_events for
 * deletions, sentences and action items, noteMeetingSummarized for a re-summary. The worker's
 * WebhookEventsWorkflow (workflows/webhook-events.ts) takes the pending rows (claimLifeEvents), makes
 * their ledger rows, starts one WebhookDeliveryWorkflow per delivery, then marks the rows dispatched.
 *
 * Once per change: an outbox row is unique per meeting, event and change key, and its deliveries are
 * unique per row and target (webhook_deliveries.event_id), so a claim run again after a lost worker
 * finds the ledger rows it made, with the same delivery ids, and starting their runs again finds
 * them started. Targets and subscriptions are those of every event (deliveries.ts, eventTargets); a
 * row is routed with what it kept of its meeting, which for a deletion no longer exists.
 */
import type { Knex } from 'knex';
import type { Config } from '../../platform/config';
import { invalid } from '../../platform/errors';
import { newId } from '../input';
import { countSkipped, eventTargets, overviewLines, type EventRouting } from './deliveries';
import { v2Payload, type V2Extra, type WebhookUpdatedItem } from './events';
import type { WebhookDeliveryInput, WebhookEvent, WebhookTarget } from './types';

/** Pending outbox rows taken per claim. */
export const LIFE_EVENTS_BATCH = 100;
/** Dispatched outbox rows are kept this long (a re-summary's key is remembered while it may be retried). */
export const LIFE_EVENTS_KEPT_MS = 7 * 24 * 3_600_000;

/** The longest re-summary change key, in characters. */
const CHANGE_KEY_MAX = 200;

/**
 * A meeting was summarised again: its meeting.summarized fires once more, for the subscribers of
 * meeting.summarized. Call it in the transaction that stores the new summary, with a key that names
 * this re-summary (the same on every retry of it, a new one for the next: a workflow id and the
 * summary's version, say; in an activity, its workflow run id): a retried call with the same key
 * makes no second event. Answers whether it recorded an event (false: seen already, the meeting is
 * gone or not completed, or nobody subscribes).
 */
export async function noteMeetingSummarized(
  db: Knex | Knex.Transaction,
  meetingId: string,
  changeKey: string,
): Promise<boolean> {
  if (typeof changeKey !== 'string' || !changeKey || changeKey.length > CHANGE_KEY_MAX)
    throw invalid(
      'changeKey',
      `1 to ${CHANGE_KEY_MAX} characters`,
      `changeKey must be 1 to ${CHANGE_KEY_MAX} characters naming the re-summary`,
    );
  const { rows } = await db.raw(
    `insert into webhook_events (team_id, meeting_id, event, change_key, client_reference_id, organizer_email,
                                 uploader_id, upload_webhook, upload_webhook_events)
     select m.team_id, m.id, 'meeting.summarized', ?, m.client_reference_id, m.organizer_email,
            m.uploader_id, m.upload_webhook, m.upload_webhook_events
       from meetings m
      where m.id = ? and m.status = 'completed' and not m.is_live
        and webhook_events_wanted(m.team_id, m.upload_webhook_events, 'meeting.summarized')
     on conflict (meeting_id, event, change_key) do nothing
     returning id`,
    [changeKey, meetingId],
  );
  return rows.length > 0;
}

interface OutboxRow extends EventRouting {
  id: string;
  meeting_id: string;
  event: WebhookEvent;
  details: { reason?: string; deleted_by?: string | null; changed?: string[]; action_items?: WebhookUpdatedItem[] };
  client_reference_id: string | null;
  created_at: Date;
}

/** A claim: the outbox rows taken, and the delivery runs to start for them. */
export interface LifeEventClaim {
  eventIds: string[];
  deliveries: WebhookDeliveryInput[];
}

/** The event's fields beside the V2 ones; the action items merged from several statements keep each item's last values. */
function extraOf(row: OutboxRow): V2Extra {
  const d = row.details ?? {};
  switch (row.event) {
    case 'meeting.deleted':
      return { reason: d.reason ?? 'deleted', deleted_by: d.deleted_by ?? null };
    case 'transcript.updated':
      return { changed: d.changed ?? [] };
    case 'action_item.updated': {
      const items = new Map<string, WebhookUpdatedItem>();
      for (const item of d.action_items ?? []) {
        const before = items.get(item.id);
        const changed = [...new Set([...(before?.changed ?? []), ...item.changed])];
        items.delete(item.id);
        items.set(item.id, {
          ...item,
          changed: (['status', 'owner', 'due_date'] as const).filter((c) => changed.includes(c)),
        });
      }
      return { action_items: [...items.values()] };
    }
    default:
      return {};
  }
}

/** The ledger rows of one outbox row: one per target subscribed to its event (made once). */
async function recordRow(db: Knex, config: Pick<Config, 'publicBaseUrl'>, row: OutboxRow): Promise<void> {
  const drafts = (await eventTargets(db, row)).filter((d) => d.events.includes(row.event));
  if (!drafts.length) return;
  // New notes carry the lines the meeting page shows, as the first meeting.summarized does.
  const extra =
    row.event === 'meeting.summarized'
      ? { overview_lines: await overviewLines(db, config, row.meeting_id) }
      : extraOf(row);
  const payload = v2Payload(
    row.event,
    { id: row.meeting_id, client_reference_id: row.client_reference_id },
    new Date(row.created_at).getTime(),
    extra,
  );
  const inserted = await db('webhook_deliveries')
    .insert(
      drafts.map(({ events: _events, target, ...d }) => ({
        id: newId(),
        team_id: row.team_id,
        meeting_id: null,
        event_meeting_id: row.meeting_id,
        event_id: row.id,
        event: row.event,
        target: null,
        event_target: target,
        payload,
        ready_at: row.created_at,
        ...d,
      })),
    )
    .onConflict(['event_id', 'event_target'])
    .ignore()
    .returning(['status']);
  countSkipped(inserted);
}

/**
 * Take the oldest pending outbox rows (up to `limit`), record their deliveries, and answer the runs to
 * start; the rows stay pending until markLifeEventsDispatched, so a claim lost with its worker is made
 * again with the same deliveries (each kept payload and delivery id).
 */
export async function claimLifeEvents(
  db: Knex,
  config: Pick<Config, 'webhook' | 'publicBaseUrl'>,
  limit = LIFE_EVENTS_BATCH,
): Promise<LifeEventClaim> {
  const rows: OutboxRow[] = await db('webhook_events')
    .whereNull('dispatched_at')
    .orderBy('id')
    .limit(limit)
    .select('*');
  if (!rows.length) return { eventIds: [], deliveries: [] };
  for (const row of rows) await recordRow(db, config, { ...row, id: String(row.id) });
  const ids = rows.map((r) => String(r.id));
  const made: { id: string; meeting_id: string; target: WebhookTarget; event: WebhookEvent; event_id: string }[] =
    await db('webhook_deliveries')
      .whereIn('event_id', ids)
      .whereNot({ status: 'skipped' })
      .orderBy([{ column: 'event_id' }, { column: 'id' }])
      .select('id', 'event_meeting_id as meeting_id', 'event_target as target', 'event', db.raw('event_id::text'));
  return {
    eventIds: ids,
    deliveries: made.map((d) => ({
      deliveryId: d.id,
      meetingId: d.meeting_id,
      target: d.target,
      event: d.event,
      eventId: d.event_id,
      scheduleMs: config.webhook.retryScheduleMs,
      timeoutMs: config.webhook.timeoutMs,
    })),
  };
}

/** The rows whose delivery runs are started; dispatched rows older than LIFE_EVENTS_KEPT_MS are forgotten. */
export async function markLifeEventsDispatched(db: Knex, eventIds: string[]): Promise<void> {
  if (eventIds.length)
    await db('webhook_events')
      .whereIn('id', eventIds)
      .whereNull('dispatched_at')
      .update({ dispatched_at: db.fn.now() });
  await db.raw(
    `delete from webhook_events where id in (
       select id from webhook_events where dispatched_at < now() - make_interval(secs => ?) limit 1000)`,
    [LIFE_EVENTS_KEPT_MS / 1000],
  );
}

/** Whether a pending outbox row waits (the dispatcher's cheap poll between claims). */
export async function lifeEventsPending(db: Knex): Promise<boolean> {
  return !!(await db('webhook_events').whereNull('dispatched_at').first('id'));
}
