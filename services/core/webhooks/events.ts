/**
 * Webhook events (docs/webhooks-v2.md). A webhook (a user's saved one, the team-wide one, an upload's
 * own) subscribes to events; without a subscription it gets the V1 event alone, exactly as before
 * events existed:
 *   - `Transcription completed` (V1): `{"meetingId","eventType","clientReferenceId"?}`, x-hub-signature `<hex>`;
 *   - `meeting.transcribed`, `meeting.summarized` (Fireflies' V2): `{"event","timestamp","meeting_id","client_reference_id"}`,
 *     timestamp in milliseconds since 1970, client_reference_id null when the upload set none,
 *     x-hub-signature `sha256=<hex>`; `meeting.summarized` adds `overview_lines`, the overview line by
 *     line with the moment each rests on, the lines the meeting page shows;
 *   - `action_items.created` (ours, V2 form): the same fields and `action_items`, the meeting's items
 *     with the moment each was said; sent only for a meeting with items;
 *   - `meeting.failed` (ours, V2 form): the same fields and `reason`, the meeting's failure_reason, the
 *     sentence every reader of the meeting is shown; sent when an upload's processing fails.
 * Every event is one delivery per meeting and target in the ledger, with the V1 event's retry
 * schedule, redelivery and 410 rule.
 */
import { invalid } from '../../platform/errors';
import { WEBHOOK_EVENT_TRANSCRIPTION_COMPLETED, WEBHOOK_EVENTS, type WebhookEvent } from './types';

export type WebhookEventItem = {
  id: string;
  text: string;
  owner_name: string | null;
  owner_email: string | null;
  due_date: string | null;
  start_time: number;
  link: string;
};

/** A line of a meeting's overview and its moment, as the meeting page shows it. */
export type WebhookOverviewLine = { text: string; index: number; start_time: number; link: string };

/** Whether an event is sent in the V2 form (payload and `sha256=` signature). */
export const isV2Event = (event: string | undefined | null): boolean =>
  !!event && event !== WEBHOOK_EVENT_TRANSCRIPTION_COMPLETED;

/** What a stored subscription means: null (saved before events existed, or never chosen) is the V1 event alone. */
export function subscribedEvents(stored: readonly string[] | null | undefined): WebhookEvent[] {
  return stored && stored.length
    ? WEBHOOK_EVENTS.filter((e) => stored.includes(e))
    : [WEBHOOK_EVENT_TRANSCRIPTION_COMPLETED];
}

/** A subscription as given: 1 to 5 distinct known events; null or absent keeps the default (null). */
export function checkWebhookEvents(field: string, raw: unknown): WebhookEvent[] | null {
  if (raw === null || raw === undefined) return null;
  const rule = `a list of 1 to ${WEBHOOK_EVENTS.length} distinct events of: ${WEBHOOK_EVENTS.join(', ')}`;
  if (!Array.isArray(raw) || raw.length < 1 || raw.length > WEBHOOK_EVENTS.length)
    throw invalid(field, rule, `${field} must be ${rule}`);
  raw.forEach((e, i) => {
    if (!(WEBHOOK_EVENTS as readonly unknown[]).includes(e))
      throw invalid(
        `${field}.${i}`,
        `one of ${WEBHOOK_EVENTS.join(', ')}`,
        `${field}.${i} must be one of ${WEBHOOK_EVENTS.join(', ')}; got ${JSON.stringify(e)}`,
      );
  });
  if (new Set(raw).size !== raw.length) throw invalid(field, rule, `${field} names an event twice`);
  return WEBHOOK_EVENTS.filter((e) => raw.includes(e));
}

/** The exact body of a V2 event (key order as Fireflies sends it). */
export function v2Payload(
  event: WebhookEvent,
  meeting: { id: string; client_reference_id: string | null },
  timestamp: number,
  extra: { action_items?: WebhookEventItem[]; reason?: string; overview_lines?: WebhookOverviewLine[] } = {},
): string {
  const body: Record<string, unknown> = {
    event,
    timestamp,
    meeting_id: meeting.id,
    client_reference_id: meeting.client_reference_id ?? null,
  };
  if (extra.action_items) body.action_items = extra.action_items;
  if (extra.overview_lines) body.overview_lines = extra.overview_lines;
  if (extra.reason !== undefined) body.reason = extra.reason;
  return JSON.stringify(body);
}
