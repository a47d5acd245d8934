/**
 * Webhooks: saved endpoints and secrets, who is sent what, the signed send, the ledger and redelivery.
 *
 * The domain's API: what other layers and domains use. Tests that need more import the file itself.
 */

// A delivery's status and the delivery workflow's input and result.
export type { DeliveryStatus, WebhookDeliveryInput, WebhookDeliveryResult } from './types';

// The rules a webhook URL must meet.
export { validateWebhookUrl } from './url';

// Saved endpoints and secrets, personal and team.
export {
  clearTeamWebhook,
  clearWebhookUrl,
  getDeveloperSettings,
  getTeamWebhook,
  saveWebhookUrl,
  setTeamWebhook,
  setTeamWebhookSecret,
  setWebhookSecret,
} from './settings';

// Who is sent what: deliveries recorded for an event.
export { recordDeliveries } from './deliveries';

// One signed attempt, and one lost.
export { attemptDelivery, recordLostAttempt } from './sender';
export type { AttemptInput, AttemptOutcome, LostAttemptInput } from './sender';

// The delivery ledger as callers read it.
export { getWebhookDelivery, listWebhookDeliveries } from './ledger';

// Redelivery on request.
export { redeliverWebhook } from './redeliver';

// Webhook events beside the V1 payload (V2: meeting.transcribed, meeting.summarized, action_items.created, meeting.failed,
// and the life events meeting.deleted, transcript.updated, action_item.updated).
export { WEBHOOK_EVENTS, WEBHOOK_EVENTS_V2 } from './types';
export type { WebhookEvent } from './types';
export { checkWebhookEvents, isV2Event, subscribedEvents, v2Payload } from './events';
export type { WebhookEventItem } from './events';

// Events of a meeting's life: the outbox the worker dispatches, and a re-summary's event.
export { claimLifeEvents, lifeEventsPending, markLifeEventsDispatched, noteMeetingSummarized } from './life';
export type { LifeEventClaim } from './life';
