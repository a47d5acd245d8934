/**
 * Search by meaning's workflows (services/core/passages):
 *   - EmbeddingWorkflow: one meeting's passages and sentences embedded after its transcript is saved,
 *     a post-processing child (post-processing.ts). It runs apart from the transcription, so a failed
 *     embedding never fails a transcript: the meeting stays searchable by keyword and the backfill
 *     embeds it later.
 *   - EmbeddingBackfillWorkflow: every completed meeting the worker's model has not embedded (from
 *     before the model, or another model's), in steps of a few meetings in id order. It rests after
 *     each step as long as the step worked, so it takes at most about half of a worker's time for
 *     itself and uploads keep their pace; killed, it resumes from the last meeting it finished
 *     (continue-as-new carries it, and a new run starts from the meetings left).
 *
 *   - LiveEmbeddingWorkflow: the sentences live meetings received since the last run, embedded; a
 *     Temporal schedule the worker keeps runs it every LIVE_EMBEDDING_EVERY, so a live meeting is
 *     searchable by meaning within a minute of a sentence arriving.
 *
 * Their activities run on the embedding task queue (EMBEDDING_QUEUE_PATCH), the workflows on the
 * general one. Deterministic: the activities do the reading, embedding and writing.
 */
import {
  continueAsNew,
  patched,
  proxyActivities,
  sleep,
  workflowInfo,
  type ActivityInterfaceFor,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { EmbeddingActivities, EmbedStepResult } from './activities/embeddings';
import { embeddingTaskQueue } from './contracts';

/**
 * The embedding activities go to the embedding task queue (embeddingTaskQueue of the workflow's own),
 * served by a worker with a slot or two, so they wait there for the one embedder instead of in the
 * general worker's slots. Runs started before this patch keep scheduling them on their own queue, as
 * their histories say (never remove or rename it while such runs may exist).
 */
export const EMBEDDING_QUEUE_PATCH = 'embedding-own-task-queue';

/** The embedding activities with these options, on the queue the patch says. */
function embeddingActivities(options: ActivityOptions): ActivityInterfaceFor<EmbeddingActivities> {
  if (!patched(EMBEDDING_QUEUE_PATCH)) return proxyActivities<EmbeddingActivities>(options);
  return proxyActivities<EmbeddingActivities>({ ...options, taskQueue: embeddingTaskQueue(workflowInfo().taskQueue) });
}

const MEETING_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 8 },
};

const BACKFILL_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 20 },
};

const LIVE_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumAttempts: 3 },
};

export async function LiveEmbeddingWorkflow(): Promise<number> {
  return embeddingActivities(LIVE_OPTIONS).embedLiveStep();
}

export interface EmbeddingInput {
  meetingId: string;
}

export async function EmbeddingWorkflow(input: EmbeddingInput): Promise<string> {
  return embeddingActivities(MEETING_OPTIONS).embedMeetingStep({ meetingId: input.meetingId });
}

export interface EmbeddingBackfillInput {
  /** The last meeting id done (continue-as-new carries it). */
  afterId?: string;
  /** Meetings per step; default 20. */
  batchSize?: number;
  /** Rest after a step, as a share of the time it worked; default 1 (half the time working). */
  restRatio?: number;
  /** Totals so far. */
  embedded?: number;
  failed?: number;
}

export interface EmbeddingBackfillResult {
  model: string | null;
  embedded: number;
  failed: number;
}

/** Steps in one run before it continues as new. */
const STEPS_PER_RUN = 200;
/** How long one step keeps embedding meetings. */
const STEP_BUDGET_MS = 20_000;

export async function EmbeddingBackfillWorkflow(input: EmbeddingBackfillInput = {}): Promise<EmbeddingBackfillResult> {
  const batchSize = input.batchSize ?? 20;
  const restRatio = input.restRatio ?? 1;
  let afterId = input.afterId ?? '';
  let embedded = input.embedded ?? 0;
  let failed = input.failed ?? 0;
  let steps = 0;
  let r: EmbedStepResult;
  do {
    r = await embeddingActivities(BACKFILL_OPTIONS).embedBackfillStep({ afterId, batchSize, budgetMs: STEP_BUDGET_MS });
    embedded += r.embedded;
    failed += r.failed;
    afterId = r.lastId;
    if (r.done) break;
    if (restRatio > 0) await sleep(Math.round(r.workedMs * restRatio));
    if (++steps >= STEPS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      return continueAsNew<typeof EmbeddingBackfillWorkflow>({ afterId, batchSize, restRatio, embedded, failed });
    }
  } while (!r.done);
  return { model: r.model, embedded, failed };
}
