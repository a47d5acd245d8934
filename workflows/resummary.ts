/**
 * ResummaryWorkflow: a meeting's notes written again on a person's request (services/core/summaries,
 * requestResummary). One activity reads the stored transcript, asks the summarizer and replaces the
 * summary in one transaction, recording meeting.summarized in the webhook events' outbox there; the
 * worker's WebhookEventsWorkflow delivers it. One run per meeting at a time (workflow id
 * resummary-<meetingId>); a later request starts a new run.
 *
 * Deterministic: the activities do the reading, the model calls and the writing.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { ResummaryActivities, ResummaryInput, ResummaryOutcome } from './activities/resummary';
import { FAILURE } from './contracts';

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

export async function ResummaryWorkflow(input: ResummaryInput): Promise<ResummaryOutcome> {
  return resummarize(input);
}
