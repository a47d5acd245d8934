/**
 * RetentionWorkflow: the daily retention run, started by the Temporal schedule the worker keeps
 * (RETENTION_SCHEDULE; schedule id and workflow id in contracts.ts). It deletes the meetings dated
 * more than their team's retention_days before the run (not those on legal hold, not live ones),
 * then the read-audit rows older than READ_AUDIT_RETENTION, each in batches of one transaction.
 *
 * Deterministic: the run's instant is the workflow's clock at its first task; the rest is activity
 * calls. A very long backlog continues as new rather than growing one history without bound.
 */
import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { RetentionActivities, RetentionStepResult } from './activities/retention';

export interface RetentionInput {
  /** The run's instant (ISO 8601); default: when the run starts. Kept across continue-as-new. */
  now?: string;
  /** Meetings (or read-audit rows) per transaction; default 100. */
  batchSize?: number;
  /** Totals so far (continue-as-new carries them on). */
  deletedMeetings?: number;
  prunedReads?: number;
}

export interface RetentionResult {
  now: string;
  deletedMeetings: number;
  prunedReads: number;
}

const { deleteExpiredMeetingsStep, pruneReadAuditStep } = proxyActivities<RetentionActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 20 },
});

/** Activity calls in one run before it continues as new. */
const STEPS_PER_RUN = 500;
/** How long one activity keeps taking batches. */
const STEP_BUDGET_MS = 30_000;

export async function RetentionWorkflow(input: RetentionInput = {}): Promise<RetentionResult> {
  const now = input.now ?? new Date(Date.now()).toISOString();
  const batchSize = input.batchSize ?? 100;
  let deletedMeetings = input.deletedMeetings ?? 0;
  let prunedReads = input.prunedReads ?? 0;
  const step = { now, batchSize, budgetMs: STEP_BUDGET_MS };
  let steps = 0;
  const more = () => ++steps >= STEPS_PER_RUN || workflowInfo().continueAsNewSuggested;

  let r: RetentionStepResult;
  do {
    r = await deleteExpiredMeetingsStep(step);
    deletedMeetings += r.deleted;
    if (!r.done && more())
      return continueAsNew<typeof RetentionWorkflow>({ now, batchSize, deletedMeetings, prunedReads });
  } while (!r.done);
  do {
    r = await pruneReadAuditStep(step);
    prunedReads += r.deleted;
    if (!r.done && more())
      return continueAsNew<typeof RetentionWorkflow>({ now, batchSize, deletedMeetings, prunedReads });
  } while (!r.done);
  return { now, deletedMeetings, prunedReads };
}
