/**
 * The workflow port (services/core/ports/workflows.ts) on Temporal: what the API pods and the CLI use to
 * start workflows and drive live meetings. Workflows are started with their functions and updates run
 * with their definitions (workflows/contracts.ts), so names and argument types are checked by the
 * compiler; ids and policies are decided here, once.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import {
  ScheduleAlreadyRunning,
  WorkflowExecutionAlreadyStartedError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import type { ScheduleOptions } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { LiveActorArgs, LiveMeetingWorkflowInput, LiveStateResult } from '../services/core/live';
import type { WebhookDeliveryInput } from '../services/core/webhooks';
import {
  WorkflowNotRunning,
  WorkflowRefusal,
  WorkflowTimedOut,
  type LiveRefusal,
  type LiveUpdate,
  type StartOutcome,
  type WorkflowPort,
} from '../services/core/ports';
import {
  failureCause,
  LIVE_FAILURE,
  liveMeetingUpdates,
  liveWorkflowId,
  embeddingBackfillWorkflowId,
  reembeddingWorkflowId,
  languageReindexProgressQuery,
  languageReindexWorkflowId,
  type LanguageReindexProgress,
  liveEmbeddingScheduleId,
  resummaryWorkflowId,
  retentionScheduleId,
  retentionWorkflowId,
  ruleExecutionWorkflowId,
  transcriptionWorkflowId,
  webhookEventsWorkflowId,
  webhookWorkflowId,
} from './contracts';
import { ResummaryWorkflow } from './resummary';
import { RetentionWorkflow } from './retention';
import { EmbeddingBackfillWorkflow, EmbeddingWorkflow, LiveEmbeddingWorkflow } from './embedding';
import { LanguageReindexWorkflow, type LanguageReindexInput, type LanguageReindexResult } from './languages';
import { LiveMeetingWorkflow } from './live-meeting';
import { RuleExecutionWorkflow } from './rule-execution';
import { TranscriptionWorkflow } from './transcription';
import { WebhookDeliveryWorkflow } from './webhook-delivery';
import { WebhookEventsWorkflow } from './webhook-events';

/** A start answers at once; a Temporal that does not answer within this long is treated as down. */
export const START_DEADLINE_MS = 5_000;

async function startOnce(temporal: Client, start: () => Promise<unknown>): Promise<StartOutcome> {
  try {
    await temporal.connection.withDeadline(Date.now() + START_DEADLINE_MS, start);
    return 'started';
  } catch (e) {
    if (e instanceof WorkflowExecutionAlreadyStartedError) return 'exists';
    throw e;
  }
}

/** A meeting's transcription: one run per meeting, ever (a retried upload joins nothing and starts nothing). */
export function startTranscription(temporal: Client, taskQueue: string, meetingId: string): Promise<StartOutcome> {
  return startOnce(temporal, () =>
    temporal.workflow.start(TranscriptionWorkflow, {
      taskQueue,
      workflowId: transcriptionWorkflowId(meetingId),
      args: [{ meetingId }],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      workflowIdConflictPolicy: 'FAIL',
    }),
  );
}

/**
 * Start RuleExecutionWorkflow for a meeting from outside a workflow (the CLI, tests). Inside a workflow
 * it starts as a post-processing child (workflows/post-processing.ts). While a run for the meeting is
 * open this joins it; after it closed, a new run starts (it updates the meeting's log rows, never
 * duplicates them). Answers the first run id.
 */
export async function startRuleExecution(temporal: Client, taskQueue: string, meetingId: string): Promise<string> {
  const handle = await temporal.workflow.start(RuleExecutionWorkflow, {
    taskQueue,
    workflowId: ruleExecutionWorkflowId(meetingId),
    args: [{ meetingId }],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return handle.firstExecutionRunId;
}

const LIVE_REFUSALS: Record<string, LiveRefusal> = {
  [LIVE_FAILURE.invalidTransition]: 'invalid_transition',
  [LIVE_FAILURE.notLive]: 'not_live',
  [LIVE_FAILURE.meetingGone]: 'not_live',
  [LIVE_FAILURE.storeFailed]: 'store_failed',
};

/** Temporal's errors for an update, in the port's terms; anything else as it came. */
function updateFailure(e: unknown): unknown {
  if (e instanceof WorkflowNotFoundError) return new WorkflowNotRunning(e.message);
  if (e instanceof WorkflowUpdateFailedError) {
    const cause = failureCause(e);
    const refusal = cause?.type ? LIVE_REFUSALS[cause.type] : undefined;
    if (refusal) return new WorkflowRefusal(refusal, cause!.message);
  }
  if (e instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return new WorkflowTimedOut(e.message);
  return e;
}

/**
 * Temporal refuses an update it has not taken, for a moment: while the workflow's last task failed and
 * is retried (a restarting or overloaded worker), while the workflow has as many updates in flight as
 * the server allows (10 by default), or when the update was aborted because the run closed to
 * continue as new. The update was not applied, so sending it again is safe.
 */
function isNotTaken(e: unknown): boolean {
  const grpc = (e as { cause?: { code?: number; message?: string } } | undefined)?.cause;
  const message = String(grpc?.message ?? '');
  switch (grpc?.code) {
    case 9: // FAILED_PRECONDITION
      return /Workflow Task in failed state/i.test(message);
    case 8: // RESOURCE_EXHAUSTED: in-flight update limit, workflow busy
      return true;
    case 14: // UNAVAILABLE
      return /update was aborted/i.test(message);
    default:
      return false;
  }
}

async function updateUntilTaken(
  temporal: Client,
  handle: WorkflowHandle,
  update: LiveUpdate,
  args: LiveActorArgs,
  deadlineMs: number,
): Promise<LiveStateResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await temporal.connection.withDeadline(deadlineMs, () =>
        handle.executeUpdate(liveMeetingUpdates[update], { args: [args] }),
      );
    } catch (e) {
      if (!isNotTaken(e) || Date.now() + 100 * attempt >= deadlineMs) throw e;
      // Backoff with jitter, so the callers of a busy meeting do not all come back at once.
      await new Promise((r) => setTimeout(r, Math.min(100 * attempt, 2_000) * (0.5 + Math.random())));
    }
  }
}

/** The port, bound to a client and the task queue the worker polls. */
export function temporalWorkflows(temporal: Client, taskQueue: string): WorkflowPort {
  return {
    startTranscription: (meetingId) => startTranscription(temporal, taskQueue, meetingId),

    startLiveMeeting: (input: LiveMeetingWorkflowInput) =>
      startOnce(temporal, () =>
        temporal.workflow.start(LiveMeetingWorkflow, {
          taskQueue,
          workflowId: liveWorkflowId(input.meetingId),
          args: [input],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          workflowIdConflictPolicy: 'FAIL',
        }),
      ),

    async updateLiveMeeting(meetingId, update, args, deadlineMs) {
      try {
        return await updateUntilTaken(
          temporal,
          temporal.workflow.getHandle(liveWorkflowId(meetingId)),
          update,
          args,
          deadlineMs,
        );
      } catch (e) {
        throw updateFailure(e);
      }
    },

    // One re-summary per meeting at a time: a request while one runs joins it (`exists`); after it closed, a new run.
    startResummary: (input) =>
      startOnce(temporal, () =>
        temporal.workflow.start(ResummaryWorkflow, {
          taskQueue,
          workflowId: resummaryWorkflowId(input.meetingId),
          args: [input],
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          workflowIdConflictPolicy: 'FAIL',
        }),
      ),

    startEmbedding: (meetingId) =>
      startOnce(temporal, () =>
        temporal.workflow.start(EmbeddingWorkflow, {
          taskQueue,
          workflowId: reembeddingWorkflowId(meetingId),
          args: [{ meetingId }],
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          workflowIdConflictPolicy: 'FAIL',
        }),
      ),

    async redeliverWebhook(input: WebhookDeliveryInput) {
      await temporal.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
        temporal.workflow.start(WebhookDeliveryWorkflow, {
          taskQueue,
          workflowId: webhookWorkflowId(input.meetingId, input.target, input.event, input.eventId),
          args: [input],
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          workflowIdConflictPolicy: 'TERMINATE_EXISTING',
        }),
      );
    },
  };
}

/**
 * The daily retention run's schedule (RETENTION_SCHEDULE, a cron in UTC), created or brought up to
 * date idempotently: the worker calls this at every start, so a changed RETENTION_SCHEDULE takes
 * effect with the next rollout and two workers starting at once end with one schedule. A run that
 * would overlap one still going is skipped; a run missed while Temporal was down is caught up once.
 */
/** A schedule created, or, where it exists, brought up to date with these options (its state kept). */
async function ensureSchedule(temporal: Client, options: ScheduleOptions): Promise<'created' | 'updated'> {
  try {
    await temporal.schedule.create(options);
    return 'created';
  } catch (e) {
    if (!(e instanceof ScheduleAlreadyRunning)) throw e;
  }
  const { spec, action, policies } = options;
  await temporal.schedule
    .getHandle(options.scheduleId)
    .update((prev) => ({ ...prev, spec, action, policies: { ...prev.policies, ...policies } }));
  return 'updated';
}

export async function ensureRetentionSchedule(
  temporal: Client,
  taskQueue: string,
  cron: string,
): Promise<'created' | 'updated'> {
  const scheduleId = retentionScheduleId(taskQueue);
  const spec = { cronExpressions: [cron] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: RetentionWorkflow,
    taskQueue,
    workflowId: retentionWorkflowId(taskQueue),
    args: [{}] as [object],
  };
  const policies = { overlap: 'SKIP' as const, catchupWindow: '1 day' };
  return ensureSchedule(temporal, { scheduleId, spec, action, policies });
}

/**
 * The backfill of `model` (EmbeddingBackfillWorkflow), started when none runs: one per task queue and
 * model, so a worker's restart finds the one running, and a new model starts its own.
 */
export async function ensureEmbeddingBackfill(
  temporal: Client,
  taskQueue: string,
  model: string,
): Promise<'started' | 'running'> {
  try {
    await temporal.workflow.start(EmbeddingBackfillWorkflow, {
      taskQueue,
      workflowId: embeddingBackfillWorkflowId(taskQueue, model),
      args: [{}],
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      workflowIdConflictPolicy: 'FAIL',
    });
    return 'started';
  } catch (e) {
    if (e instanceof WorkflowExecutionAlreadyStartedError) return 'running';
    throw e;
  }
}

/**
 * The dispatcher of life events' webhooks (WebhookEventsWorkflow), started when none runs: one per
 * task queue, so every worker's start finds the one running.
 */
export async function ensureWebhookEvents(temporal: Client, taskQueue: string): Promise<'started' | 'running'> {
  try {
    await temporal.workflow.start(WebhookEventsWorkflow, {
      taskQueue,
      workflowId: webhookEventsWorkflowId(taskQueue),
      args: [{}],
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      workflowIdConflictPolicy: 'FAIL',
    });
    return 'started';
  } catch (e) {
    if (e instanceof WorkflowExecutionAlreadyStartedError) return 'running';
    throw e;
  }
}

/** How often live meetings' new sentences are embedded (LiveEmbeddingWorkflow's schedule). */
export const LIVE_EMBEDDING_EVERY = '30 seconds';

/** The schedule that embeds live meetings' new sentences, created or brought up to date at a worker's start. */
export async function ensureLiveEmbeddingSchedule(temporal: Client, taskQueue: string): Promise<'created' | 'updated'> {
  const scheduleId = liveEmbeddingScheduleId(taskQueue);
  const spec = { intervals: [{ every: LIVE_EMBEDDING_EVERY }] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: LiveEmbeddingWorkflow,
    taskQueue,
    workflowId: scheduleId,
    args: [] as [],
  };
  const policies = { overlap: 'SKIP' as const, catchupWindow: '1 minute' };
  return ensureSchedule(temporal, { scheduleId, spec, action, policies });
}

/**
 * The re-index of meetings waiting for their language's index (LanguageReindexWorkflow), started
 * when none runs: one per task queue, so the worker's start and `meeting-intel search reindex` find
 * the one running, and a later start (new meetings waiting) runs again.
 */
export async function ensureLanguageReindex(
  temporal: Client,
  taskQueue: string,
  input: LanguageReindexInput = {},
): Promise<'started' | 'running'> {
  const outcome = await startOnce(temporal, () =>
    temporal.workflow.start(LanguageReindexWorkflow, {
      taskQueue,
      workflowId: languageReindexWorkflowId(taskQueue),
      args: [input],
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      workflowIdConflictPolicy: 'FAIL',
    }),
  );
  return outcome === 'started' ? 'started' : 'running';
}

export interface LanguageReindexState {
  /** The latest run's status ('none': never started on this task queue). */
  status: 'none' | 'running' | 'completed' | 'failed' | 'other';
  /** Its totals while it runs. */
  progress?: LanguageReindexProgress;
}

/** Where the re-index of this task queue is: its latest run's status, and its totals while it runs. */
export async function languageReindexState(temporal: Client, taskQueue: string): Promise<LanguageReindexState> {
  const handle = temporal.workflow.getHandle<typeof LanguageReindexWorkflow>(languageReindexWorkflowId(taskQueue));
  try {
    const { status } = await handle.describe();
    if (status.name !== 'RUNNING') {
      const known = { COMPLETED: 'completed', FAILED: 'failed' } as const;
      return { status: known[status.name as keyof typeof known] ?? 'other' };
    }
    return { status: 'running', progress: await handle.query(languageReindexProgressQuery) };
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return { status: 'none' };
    throw e;
  }
}

/** The result of the re-index run now going (through its continue-as-new runs). */
export function languageReindexResult(temporal: Client, taskQueue: string): Promise<LanguageReindexResult> {
  return temporal.workflow.getHandle<typeof LanguageReindexWorkflow>(languageReindexWorkflowId(taskQueue)).result();
}
