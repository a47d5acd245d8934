/**
 * ResummaryWorkflow: a meeting's notes written again on a person's request (services/core/summaries,
 * requestResummary). One activity reads the stored transcript, asks the summarizer and replaces the
 * summary in one transaction; then the meeting.summarized webhooks of the new notes start as
 * children (ABANDON), as after a transcription (post-processing.ts). One run per meeting at a time
 * (workflow id resummary-<meetingId>); a later request starts a new run.
 *
 * Deterministic: the activities do the reading, the model calls and the writing.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { ResummaryActivities, ResummaryInput, ResummaryOutcome } from './activities/resummary';
import { FAILURE } from './contracts';
import { PREPARE_WEBHOOKS_OPTIONS, startChildren, webhookDeliveryChildren } from './post-processing';

export type { ResummaryInput, ResummaryOutcome } from './activities/resummary';

/** A chat model may take many minutes for a long meeting; the activity heartbeats while it waits. */
const { resummarize } = proxyActivities<Pick<ResummaryActivities, 'resummarize'>>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '1 minute',
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '2 minutes',
    maximumAttempts: 5,
    nonRetryableErrorTypes: [FAILURE.badInput, FAILURE.meetingGone],
  },
});

const { prepareSummaryWebhooks } =
  proxyActivities<Pick<ResummaryActivities, 'prepareSummaryWebhooks'>>(PREPARE_WEBHOOKS_OPTIONS);

export interface ResummaryResult extends ResummaryOutcome {
  /** Workflow ids of the meeting.summarized deliveries started (or found started). */
  webhooks: string[];
}

export async function ResummaryWorkflow(input: ResummaryInput): Promise<ResummaryResult> {
  const outcome = await resummarize(input);
  if (!outcome.replaced) return { ...outcome, webhooks: [] };
  const deliveries = await prepareSummaryWebhooks({ meetingId: input.meetingId });
  const webhooks = await startChildren(
    input.meetingId,
    webhookDeliveryChildren({ meetingId: input.meetingId, webhooks: deliveries }),
  );
  return { ...outcome, webhooks };
}
