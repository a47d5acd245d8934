/**
 * The webhook activities, bound to their dependencies:
 *   - prepareWebhookDeliveries: the targets of a meeting whose transcript is ready, each recorded in
 *     the ledger once (TranscriptionWorkflow's post-processing starts one WebhookDeliveryWorkflow each);
 *   - attemptWebhookDelivery: ONE signed POST and its ledger row. The workflow runs it with a single
 *     attempt: the retry schedule is the workflow's own durable sleeps, not activity retries;
 *   - recordLostWebhookAttempt: the ledger row of an attempt whose activity never completed;
 *   - claimWebhookEvents, markWebhookEventsDispatched: the life events' outbox, taken and marked by
 *     WebhookEventsWorkflow (workflows/webhook-events.ts).
 * The work itself lives in services/core/webhooks (deliveries.ts, sender.ts, life.ts).
 */
import {
  attemptDelivery,
  recordLostAttempt,
  type AttemptInput,
  type AttemptOutcome,
  type LostAttemptInput,
} from '../../services/core/webhooks';
import {
  claimLifeEvents,
  lifeEventsPending,
  markLifeEventsDispatched,
  recordDeliveries,
  type WebhookDeliveryInput,
} from '../../services/core/webhooks';
import type { Config } from '../../services/platform/config';
import type { Knex } from 'knex';
import { Context } from '@temporalio/activity';
import { webhookWorkflowId } from '../contracts';
import { ActivityDeps, activitySignal, runStep } from './context';

export type { AttemptInput, AttemptOutcome, LostAttemptInput } from '../../services/core/webhooks';
export type { WebhookDeliveryInput, WebhookDeliveryResult, DeliveryStatus } from '../../services/core/webhooks';

/** A delivery to start: its run's input and workflow id (the same id for every redelivery of it). */
export interface PreparedDelivery {
  workflowId: string;
  input: WebhookDeliveryInput;
}

/** The meeting's deliveries, recorded in the ledger once, as the runs to start. */
export async function prepareDeliveries(
  db: Knex,
  config: Pick<Config, 'webhook' | 'publicBaseUrl'>,
  meetingId: string,
): Promise<PreparedDelivery[]> {
  const inputs = await recordDeliveries(db, config, meetingId);
  return inputs.map((input) => ({ workflowId: webhookWorkflowId(meetingId, input.target, input.event), input }));
}

/** Life events taken from the outbox: their row ids, and the delivery runs to start. */
export interface ClaimedEvents {
  eventIds: string[];
  deliveries: PreparedDelivery[];
}

/** How often a claim looks for pending life events while it waits. */
export const LIFE_EVENTS_POLL_MS = 200;

/**
 * Wait up to `waitMs` for pending life events (polling the outbox's pending index; a cancelled
 * activity, its worker shutting down, stops waiting), then take a batch and record its deliveries.
 */
export async function claimEvents(
  db: Knex,
  config: Pick<Config, 'webhook' | 'publicBaseUrl'>,
  waitMs: number,
  signal?: AbortSignal,
  beat: () => void = () => {},
): Promise<ClaimedEvents> {
  const until = Date.now() + waitMs;
  while (!(await lifeEventsPending(db)) && Date.now() < until && !signal?.aborted) {
    beat();
    await new Promise((r) => setTimeout(r, LIFE_EVENTS_POLL_MS));
  }
  const claim = await claimLifeEvents(db, config);
  return {
    eventIds: claim.eventIds,
    deliveries: claim.deliveries.map((input) => ({
      workflowId: webhookWorkflowId(input.meetingId, input.target, input.event, input.eventId),
      input,
    })),
  };
}

/** The activity's heartbeat (none outside an activity): a claim lost with its worker is retried within the heartbeat timeout. */
function heartbeat(): void {
  try {
    Context.current().heartbeat();
  } catch {
    // called outside an activity
  }
}

export interface WebhookActivities {
  prepareWebhookDeliveries(input: { meetingId: string }): Promise<PreparedDelivery[]>;
  attemptWebhookDelivery(input: AttemptInput): Promise<AttemptOutcome>;
  recordLostWebhookAttempt(input: LostAttemptInput): Promise<AttemptOutcome>;
  claimWebhookEvents(input: { waitMs: number }): Promise<ClaimedEvents>;
  markWebhookEventsDispatched(input: { eventIds: string[] }): Promise<void>;
}

export function createWebhookActivities(deps: ActivityDeps): WebhookActivities {
  return {
    prepareWebhookDeliveries: (input) =>
      runStep('webhook_prepare', () => prepareDeliveries(deps.db, deps.config, input.meetingId)),
    attemptWebhookDelivery: (input) => attemptDelivery(deps, input, activitySignal()),
    recordLostWebhookAttempt: (input) => recordLostAttempt(deps, input),
    claimWebhookEvents: (input) => claimEvents(deps.db, deps.config, input.waitMs, activitySignal(), heartbeat),
    markWebhookEventsDispatched: (input) => markLifeEventsDispatched(deps.db, input.eventIds),
  };
}
