/**
 * The webhook activities, bound to their dependencies:
 *   - prepareWebhookDeliveries: the targets of a meeting whose transcript is ready, each recorded in
 *     the ledger once (TranscriptionWorkflow's post-processing starts one WebhookDeliveryWorkflow each);
 *   - attemptWebhookDelivery: ONE signed POST and its ledger row. The workflow runs it with a single
 *     attempt: the retry schedule is the workflow's own durable sleeps, not activity retries;
 *   - recordLostWebhookAttempt: the ledger row of an attempt whose activity never completed.
 * The work itself lives in services/core/webhooks (deliveries.ts, sender.ts).
 */
import {
  attemptDelivery,
  recordLostAttempt,
  type AttemptInput,
  type AttemptOutcome,
  type LostAttemptInput,
} from '../../services/core/webhooks';
import { recordDeliveries, type WebhookDeliveryInput, type WebhookEvent } from '../../services/core/webhooks';
import type { Config } from '../../services/platform/config';
import type { Knex } from 'knex';
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
  only?: readonly WebhookEvent[],
): Promise<PreparedDelivery[]> {
  const inputs = await recordDeliveries(db, config, meetingId, only);
  return inputs.map((input) => ({ workflowId: webhookWorkflowId(meetingId, input.target, input.event), input }));
}

export interface WebhookActivities {
  prepareWebhookDeliveries(input: { meetingId: string }): Promise<PreparedDelivery[]>;
  attemptWebhookDelivery(input: AttemptInput): Promise<AttemptOutcome>;
  recordLostWebhookAttempt(input: LostAttemptInput): Promise<AttemptOutcome>;
}

export function createWebhookActivities(deps: ActivityDeps): WebhookActivities {
  return {
    prepareWebhookDeliveries: (input) =>
      runStep('webhook_prepare', () => prepareDeliveries(deps.db, deps.config, input.meetingId)),
    attemptWebhookDelivery: (input) => attemptDelivery(deps, input, activitySignal()),
    recordLostWebhookAttempt: (input) => recordLostAttempt(deps, input),
  };
}
