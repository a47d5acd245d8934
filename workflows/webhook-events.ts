/**
 * WebhookEventsWorkflow: the dispatcher of a meeting's life events (services/core/webhooks/life.ts).
 * One per task queue (workflow id in contracts.ts), started by every worker at its start (a second
 * start finds it running); it runs for ever, continuing as new before its history grows long.
 *
 * Each round: claimWebhookEvents waits (inside the activity, polling the outbox) until life events are
 * pending, takes a batch and records its ledger rows; the workflow starts one WebhookDeliveryWorkflow
 * per delivery (parent-close ABANDON, REJECT_DUPLICATE on an id derived from the outbox row and
 * target), then marks the batch dispatched. A worker lost anywhere in a round leaves the batch
 * pending: the round is made again, finds the same ledger rows (same delivery ids) and the runs
 * started, so each change is delivered once.
 *
 * Deterministic code only (this file runs inside the workflow sandbox).
 */
import { continueAsNew, log, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { WebhookActivities } from './activities/webhooks';
import { WEBHOOK_DELIVERY_WORKFLOW } from './contracts';

export interface WebhookEventsInput {
  /** How long one claim waits for pending events before the round ends empty (default 2 s). */
  waitMs?: number;
  /** End after this many rounds instead of running for ever (a recorded history, a test). */
  maxRounds?: number;
}

/** Rounds in one run before it continues as new. */
const ROUNDS_PER_RUN = 500;

const { claimWebhookEvents, markWebhookEventsDispatched } = proxyActivities<
  Pick<WebhookActivities, 'claimWebhookEvents' | 'markWebhookEventsDispatched'>
>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

export async function WebhookEventsWorkflow(input: WebhookEventsInput = {}): Promise<void> {
  const waitMs = input.waitMs ?? 2_000;
  const rounds = Math.min(input.maxRounds ?? ROUNDS_PER_RUN, ROUNDS_PER_RUN);
  for (let round = 0; round < rounds && !workflowInfo().continueAsNewSuggested; round++) {
    const claim = await claimWebhookEvents({ waitMs });
    for (const d of claim.deliveries) {
      try {
        await startChild(WEBHOOK_DELIVERY_WORKFLOW, {
          workflowId: d.workflowId,
          args: [d.input],
          parentClosePolicy: 'ABANDON',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        });
      } catch (e) {
        if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
        log.info('webhook delivery exists already', { workflowId: d.workflowId });
      }
    }
    if (claim.eventIds.length) await markWebhookEventsDispatched({ eventIds: claim.eventIds });
  }
  if (input.maxRounds !== undefined) return;
  await continueAsNew<typeof WebhookEventsWorkflow>(input);
}
