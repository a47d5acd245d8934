/** Webhooks: saved endpoints and secrets, who is sent what, the signed send, the ledger and redelivery. What other layers may import of this domain. */
export * from './types';
export * from './url';
export * from './settings';
export * from './secrets';
export * from './signing';
export * from './deliveries';
export * from './sender';
export * from './ledger';
export * from './redeliver';

// Webhook events beside the V1 payload (V2: meeting.transcribed, meeting.summarized, action_items.created).
export { WEBHOOK_EVENTS, WEBHOOK_EVENTS_V2 } from './types';
export type { WebhookEvent } from './types';
export { checkWebhookEvents, isV2Event, subscribedEvents, v2Payload } from './events';
export type { WebhookEventItem } from './events';
