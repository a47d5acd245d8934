/** The webhook domain's names and shapes: targets, delivery statuses, what a delivery run works on. */
import type { ServiceDeps } from '../ports';

export const WEBHOOK_EVENT_TRANSCRIPTION_COMPLETED = 'Transcription completed';
/** Fireflies' V2 events, and our own (events.ts); a new event is added at the end. */
export const WEBHOOK_EVENTS_V2 = [
  'meeting.transcribed',
  'meeting.summarized',
  'action_items.created',
  'meeting.failed',
  'meeting.deleted',
  'transcript.updated',
  'action_item.updated',
] as const;
export const WEBHOOK_EVENTS = [WEBHOOK_EVENT_TRANSCRIPTION_COMPLETED, ...WEBHOOK_EVENTS_V2] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** The event of a meeting whose processing failed; every other event is of a meeting whose transcript is ready. */
export const WEBHOOK_EVENT_FAILED = 'meeting.failed' satisfies WebhookEvent;
/**
 * The events of a completed meeting's processing, sent by its post-processing (deliveries.ts); the
 * others are its life's events, sent from the outbox (life.ts), meeting.summarized again among them.
 */
export const WEBHOOK_COMPLETION_EVENTS: readonly WebhookEvent[] = [
  WEBHOOK_EVENT_TRANSCRIPTION_COMPLETED,
  'meeting.transcribed',
  'meeting.summarized',
  'action_items.created',
];

export const WEBHOOK_TARGETS = ['upload', 'owner', 'team'] as const;
export type WebhookTarget = (typeof WEBHOOK_TARGETS)[number];

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'disabled', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const LEDGER_LIMITS = { defaultLimit: 10, maxLimit: 50, attemptsShown: 50 } as const;

/** What a WebhookDeliveryWorkflow runs on (small: the payload stays in the ledger row). */
export interface WebhookDeliveryInput {
  deliveryId: string;
  meetingId: string;
  target: WebhookTarget;
  /** A V2 event; absent for the V1 event (Transcription completed), as every run started before events existed. */
  event?: WebhookEvent;
  /** WEBHOOK_RETRY_SCHEDULE: the delay before each attempt, in milliseconds. */
  scheduleMs: number[];
  /** WEBHOOK_TIMEOUT in milliseconds. */
  timeoutMs: number;
  /** A life event's outbox row (life.ts): one delivery per change; absent for the events of processing. */
  eventId?: string;
  /** A run started by redeliverWebhook (not counted in webhook_ready_to_delivered_seconds). */
  redelivery?: boolean;
}

export interface WebhookDeliveryResult {
  deliveryId: string;
  status: DeliveryStatus;
  attempts: number;
}

export type WebhookDeps = ServiceDeps;
