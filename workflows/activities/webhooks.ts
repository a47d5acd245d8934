/**
 * The webhook activities (DESIGN flow 3), bound to their dependencies:
 *   - prepareWebhookDeliveries: the targets of a meeting whose transcript is ready, each recorded in
 *     the ledger once (TranscriptionWorkflow's post-processing starts one WebhookDeliveryWorkflow each);
 *   - attemptWebhookDelivery: ONE signed POST and its ledger row. The workflow runs it with a single
 *     attempt: the retry schedule is the workflow's own durable sleeps, not activity retries;
 *   - recordLostWebhookAttempt: the ledger row of an attempt whose activity never completed.
 * The work itself lives in services/core (webhooks.ts, webhook-sender.ts).
 */
import { attemptDelivery, recordLostAttempt, type AttemptInput, type AttemptOutcome, type LostAttemptInput } from '../../services/core/webhook-sender';
import { prepareDeliveries, type PreparedDelivery } from '../../services/core/webhooks';
import { ActivityDeps, activitySignal, runStep } from './context';

export type { AttemptInput, AttemptOutcome, LostAttemptInput } from '../../services/core/webhook-sender';
export type { PreparedDelivery, WebhookDeliveryInput, WebhookDeliveryResult, DeliveryStatus } from '../../services/core/webhooks';

export interface WebhookActivities {
  prepareWebhookDeliveries(input: { meetingId: string }): Promise<PreparedDelivery[]>;
  attemptWebhookDelivery(input: AttemptInput): Promise<AttemptOutcome>;
  recordLostWebhookAttempt(input: LostAttemptInput): Promise<AttemptOutcome>;
}

export function createWebhookActivities(deps: ActivityDeps): WebhookActivities {
  return {
    prepareWebhookDeliveries: (input) => runStep('webhook_prepare', () => prepareDeliveries(deps.db, deps.config, input.meetingId)),
    attemptWebhookDelivery: (input) => attemptDelivery(deps, input, activitySignal()),
    recordLostWebhookAttempt: (input) => recordLostAttempt(deps, input),
  };
}
