/**
 * Who is sent what when a transcript is ready: the worker's activity that makes a meeting's deliveries.
 *
 * Who gets what, for a meeting whose transcript is ready (one delivery per target, each its own
 * delivery run):
 *   - `upload`: the upload's own `webhook` (meetings.upload_webhook), for that upload only. Signed with
 *     the uploader's saved secret when they have one; sent unsigned otherwise (an upload may
 *     name a webhook without any developer settings: docs/webhooks.md, "Who gets what").
 *   - `owner`: the saved webhook of the meeting's owner, the user whose email is the meeting's
 *     organizer email (within the meeting's team). Never for meetings a user merely attended. A saved
 *     webhook REQUIRES a secret: without one the delivery is recorded `skipped` and nothing is sent
 *     unsigned. When it is the same URL as the upload's own webhook (the uploader is the organizer),
 *     the upload delivery covers it and no second request is made.
 *   - `team`: the team-wide webhook, for every meeting the team owns; it always has a secret (setting
 *     it without one generates one) and only fires while the team is on the Enterprise tier.
 *   A saved endpoint disabled by a 410 answer is recorded `skipped` until its URL is saved again.
 *
 * Payload: exactly `{"meetingId":"…","eventType":"Transcription completed","clientReferenceId":"…"}`
 * (clientReferenceId only when the upload set one), stored as the exact bytes sent, so every attempt
 * and every redelivery sends and signs the same bytes. A target subscribed to V2 events (events.ts)
 * gets one delivery per event instead, each in the V2 form. A V1 delivery is recorded exactly as
 * release 0.1.0 records it, so a rollback to 0.1.0 keeps recording and sending V1 deliveries.
 *
 * A meeting whose processing failed is sent `meeting.failed` alone, to the same targets, where they
 * subscribe to it; a completed meeting the completion events (types.ts). An event of the other outcome
 * never fires here, nor does an event of the meeting's later life (life.ts: deleted, transcript and
 * action items updated, summarised again), which has its own delivery per change.
 */
import type { Knex } from 'knex';
import { newId } from '../input';
import type { Config } from '../../platform/config';
import { webhookDeliveries } from '../../platform/metrics';
import { teamEndpoint, userEndpoint, type EndpointRow } from './settings';
import {
  WEBHOOK_COMPLETION_EVENTS,
  WEBHOOK_EVENT_FAILED,
  WEBHOOK_EVENT_TRANSCRIPTION_COMPLETED,
  type WebhookDeliveryInput,
  type WebhookEvent,
  type WebhookTarget,
} from './types';
import { deliveryTargetSql } from '../access';
import { isV2Event, subscribedEvents, v2Payload, type WebhookEventItem, type WebhookOverviewLine } from './events';
import { momentLink } from '../action-items';

/** The exact body sent for a meeting: meetingId, eventType, and clientReferenceId when set. */
export function webhookPayload(meeting: { id: string; client_reference_id: string | null }): string {
  const body: Record<string, string> = { meetingId: meeting.id, eventType: WEBHOOK_EVENT_TRANSCRIPTION_COMPLETED };
  if (meeting.client_reference_id !== null && meeting.client_reference_id !== undefined)
    body.clientReferenceId = meeting.client_reference_id;
  return JSON.stringify(body);
}

export interface DeliveryDraft {
  target: WebhookTarget;
  events: WebhookEvent[];
  url: string;
  user_id: string | null;
  endpoint_id: string | null;
  status: 'pending' | 'skipped';
  last_error: string | null;
}

/** Why a saved endpoint cannot be sent to right now, or null when it can. */
export function endpointBlocker(ep: EndpointRow, scope: 'user' | 'team', teamTier?: string): string | null {
  if (!ep.url) return scope === 'user' ? 'the saved webhook URL was cleared' : 'the team-wide webhook URL was cleared';
  if (ep.disabled_at)
    return `the endpoint is disabled (${ep.disabled_reason ?? 'the receiver answered 410 Gone'}); save its URL again to re-enable it`;
  if (!ep.secret_ciphertext)
    return 'no webhook secret is set, and a saved webhook is never sent unsigned; set a secret in developer settings';
  if (scope === 'team' && teamTier !== undefined && teamTier !== 'enterprise')
    return `team-wide webhooks need the Enterprise tier; the team is on ${teamTier}`;
  return null;
}

/** The events a meeting's outcome fires: meeting.failed for a failed one, the completion events for a completed one. */
const firesFor = (status: string) => (event: WebhookEvent) =>
  status === 'failed' ? event === WEBHOOK_EVENT_FAILED : WEBHOOK_COMPLETION_EVENTS.includes(event);

/** What routing a meeting's event needs: its team, upload webhook and subscription, organizer. */
export interface EventRouting {
  team_id: string;
  organizer_email: string | null;
  uploader_id: string | null;
  upload_webhook: string | null;
  upload_webhook_events: string[] | null;
}

/**
 * Who is sent a meeting's events (the rules above), each target with every event it subscribes to;
 * the caller keeps the events that fired. Targets that cannot be sent are drafted `skipped` with the
 * reason.
 */
export async function eventTargets(db: Knex, m: EventRouting): Promise<DeliveryDraft[]> {
  const drafts: DeliveryDraft[] = [];
  if (m.upload_webhook) {
    const ep = m.uploader_id ? await userEndpoint(db, m.uploader_id) : undefined;
    drafts.push({
      target: 'upload',
      events: subscribedEvents(m.upload_webhook_events),
      url: m.upload_webhook,
      user_id: m.uploader_id,
      endpoint_id: ep?.id ?? null,
      status: 'pending',
      last_error: null,
    });
  }

  // The owner is the user whose email is the organizer email, in the meeting's team.
  const owner = await db('users')
    .where({ team_id: m.team_id })
    .whereRaw('lower(email) = lower(?)', [m.organizer_email])
    .first('id');
  if (owner) {
    const ep = await userEndpoint(db, owner.id);
    const sameAsUpload = m.upload_webhook && m.uploader_id === owner.id && ep?.url === m.upload_webhook;
    if (ep?.url && !sameAsUpload) {
      const blocker = endpointBlocker(ep, 'user');
      drafts.push({
        target: 'owner',
        events: subscribedEvents(ep.events),
        url: ep.url,
        user_id: owner.id,
        endpoint_id: ep.id,
        status: blocker ? 'skipped' : 'pending',
        last_error: blocker,
      });
    }
  }

  const teamEp = await teamEndpoint(db, m.team_id);
  if (teamEp?.url) {
    const team = await db('teams').where({ id: m.team_id }).first('tier');
    const blocker = endpointBlocker(teamEp, 'team', team?.tier);
    drafts.push({
      target: 'team',
      events: subscribedEvents(teamEp.events),
      url: teamEp.url,
      user_id: null,
      endpoint_id: teamEp.id,
      status: blocker ? 'skipped' : 'pending',
      last_error: blocker,
    });
  }
  return drafts;
}

/**
 * The deliveries of a meeting whose transcript is ready, or whose processing failed: one ledger row
 * per target and event (made once: a retried call finds the rows it made), and what a delivery run
 * needs for each one that can be sent. Targets that cannot be sent (no secret, disabled, tier) are
 * recorded `skipped` with the reason.
 */
export async function recordDeliveries(
  db: Knex,
  config: Pick<Config, 'webhook' | 'publicBaseUrl'>,
  meetingId: string,
): Promise<WebhookDeliveryInput[]> {
  const m = await db('meetings')
    .where({ id: meetingId })
    .first(
      'id',
      'team_id',
      'organizer_email',
      'uploader_id',
      'upload_webhook',
      'upload_webhook_events',
      'client_reference_id',
      'status',
      'failure_reason',
    );
  if (!m || (m.status !== 'completed' && m.status !== 'failed')) return [];
  const fires = firesFor(m.status);
  const drafts = (await eventTargets(db, m)).map((d) => ({ ...d, events: d.events.filter(fires) }));

  if (drafts.some((d) => d.events.length)) {
    const payloads = await payloadsOf(db, config, m, new Set(drafts.flatMap((d) => d.events)));
    const rows = drafts.flatMap(({ events, target, ...d }) =>
      events
        .filter((event) => payloads.has(event))
        .map((event) => ({
          id: newId(),
          team_id: m.team_id,
          meeting_id: m.id,
          event,
          // V1 rows as release 0.1.0 keeps them; V2 rows with their target beside (access/rules.ts, deliveryTargetSql).
          ...(isV2Event(event) ? { target: null, event_target: target } : { target }),
          payload: payloads.get(event)!,
          ready_at: db.fn.now(),
          ...d,
        })),
    );
    const v1 = rows.filter((r) => !isV2Event(r.event));
    const v2 = rows.filter((r) => isV2Event(r.event));
    const inserted: { status: string }[] = [
      ...(v1.length
        ? await db('webhook_deliveries').insert(v1).onConflict(['meeting_id', 'target']).ignore().returning(['status'])
        : []),
      ...(v2.length
        ? await db('webhook_deliveries')
            .insert(v2)
            .onConflict(['meeting_id', 'event_target', 'event'])
            .ignore()
            .returning(['status'])
        : []),
    ];
    countSkipped(inserted);
  }

  const target = deliveryTargetSql('d');
  const rows: { id: string; target: WebhookTarget; event: WebhookEvent }[] = await db('webhook_deliveries as d')
    .where({ 'd.meeting_id': meetingId })
    .whereNot({ 'd.status': 'skipped' })
    .orderByRaw(`array_position(array['upload','owner','team']::text[], ${target}), d.id`)
    .select('d.id', db.raw(`${target} as target`), 'd.event');
  return rows
    .filter((r) => fires(r.event))
    .map((r) => ({
      deliveryId: r.id,
      meetingId,
      target: r.target,
      ...(isV2Event(r.event) ? { event: r.event } : {}),
      scheduleMs: config.webhook.retryScheduleMs,
      timeoutMs: config.webhook.timeoutMs,
    }));
}

/** Deliveries recorded `skipped` count in webhook_deliveries_total as they are made. */
export function countSkipped(inserted: { status: string }[]): void {
  for (const row of inserted) if (row.status === 'skipped') webhookDeliveries.inc({ outcome: 'skipped' });
}

/** The summary's overview lines with their moments, as the meeting page shows them; [] without a summary. */
export async function overviewLines(
  db: Knex,
  config: Pick<Config, 'publicBaseUrl'>,
  meetingId: string,
): Promise<WebhookOverviewLine[]> {
  const row: { overview_lines: unknown } | undefined = await db('summaries')
    .where({ meeting_id: meetingId })
    .first('overview_lines');
  const lines = Array.isArray(row?.overview_lines) ? row.overview_lines : [];
  return lines
    .filter(
      (l): l is { text: string; index: number; start_time: number } =>
        Boolean(l) && typeof l.text === 'string' && typeof l.index === 'number' && typeof l.start_time === 'number',
    )
    .map((l) => ({
      text: l.text,
      index: l.index,
      start_time: l.start_time,
      link: momentLink(config, meetingId, l.start_time),
    }));
}

/**
 * The body of each event some target subscribed to, made once for all targets. action_items.created
 * only for a meeting with items: an event that did not happen is not sent.
 */
async function payloadsOf(
  db: Knex,
  config: Pick<Config, 'publicBaseUrl'>,
  m: { id: string; client_reference_id: string | null; failure_reason: string | null },
  events: Set<WebhookEvent>,
): Promise<Map<WebhookEvent, string>> {
  const out = new Map<WebhookEvent, string>();
  const now = Date.now();
  for (const event of events) {
    if (!isV2Event(event)) out.set(event, webhookPayload(m));
    else if (event === WEBHOOK_EVENT_FAILED)
      out.set(event, v2Payload(event, m, now, { reason: m.failure_reason ?? 'processing failed' }));
    else if (event === 'meeting.summarized')
      out.set(event, v2Payload(event, m, now, { overview_lines: await overviewLines(db, config, m.id) }));
    else if (event !== 'action_items.created') out.set(event, v2Payload(event, m, now));
  }
  if (events.has('action_items.created')) {
    const items: WebhookEventItem[] = (
      await db('action_items')
        .where({ meeting_id: m.id })
        .orderBy(['sentence_index', 'id'])
        .select('id', 'text', 'owner_name', 'owner_email', 'start_time', db.raw('due_date::text as due'))
    ).map(
      (r: {
        id: string;
        text: string;
        owner_name: string | null;
        owner_email: string | null;
        due: string | null;
        start_time: number;
      }) => ({
        id: r.id,
        text: r.text,
        owner_name: r.owner_name,
        owner_email: r.owner_email,
        due_date: r.due,
        start_time: Number(r.start_time),
        link: momentLink(config, m.id, Number(r.start_time)),
      }),
    );
    if (items.length)
      out.set('action_items.created', v2Payload('action_items.created', m, now, { action_items: items }));
  }
  return out;
}
