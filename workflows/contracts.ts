/**
 * The workflow contract: every name, id, message and failure type that the API pods (through
 * workflows/client.ts), the worker's activities and the workflows agree on, in one place. Pure: no I/O
 * and nothing non-deterministic, because the workflow bundle includes this file; the client side
 * imports it too.
 *
 * Changing a name or an id builder here breaks running workflows and the replay tests
 * (test/unit/workflows/replay.test.ts): add, never rename.
 */
import { ApplicationFailure } from '@temporalio/common';
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { LiveActorArgs, LiveStateResult, LiveStatus } from '../services/core/live/protocol';

// ---------------------------------------------------------------------------------------------------
// Workflow types (the registered function names) and workflow ids
// ---------------------------------------------------------------------------------------------------

export const TRANSCRIPTION_WORKFLOW = 'TranscriptionWorkflow';
export const RULE_EXECUTION_WORKFLOW = 'RuleExecutionWorkflow';
export const WEBHOOK_DELIVERY_WORKFLOW = 'WebhookDeliveryWorkflow';
export const LIVE_WORKFLOW = 'LiveMeetingWorkflow';
export const RETENTION_WORKFLOW = 'RetentionWorkflow';
export const EMBEDDING_WORKFLOW = 'EmbeddingWorkflow';
export const EMBEDDING_BACKFILL_WORKFLOW = 'EmbeddingBackfillWorkflow';
export const LIVE_EMBEDDING_WORKFLOW = 'LiveEmbeddingWorkflow';
export const WEBHOOK_EVENTS_WORKFLOW = 'WebhookEventsWorkflow';
export const RESUMMARY_WORKFLOW = 'ResummaryWorkflow';
export const LANGUAGE_REINDEX_WORKFLOW = 'LanguageReindexWorkflow';

/** One run per meeting: a retried upload never starts a second. */
export const transcriptionWorkflowId = (meetingId: string) => `transcription-${meetingId}`;
/** One run per meeting at a time; a later run updates the meeting's rule log rows. */
export const ruleExecutionWorkflowId = (meetingId: string) => `rules-${meetingId}`;
/** One delivery's workflow: the same id for the first run and every redelivery of it. */
/**
 * The V1 event keeps the id it always had; a V2 event's delivery adds the event's name, and a life
 * event's (one per change) its outbox row.
 */
export const webhookWorkflowId = (meetingId: string, target: string, event?: string, eventId?: string) =>
  `webhook-${meetingId}-${target}${event ? `-${event}` : ''}${eventId ? `-${eventId}` : ''}`;
/** The dispatcher of life events' deliveries (WebhookEventsWorkflow): one per task queue, started by the worker. */
export const webhookEventsWorkflowId = (taskQueue: string) => `webhook-events-${taskQueue}`;
export const liveWorkflowId = (meetingId: string) => `live-${meetingId}`;
/**
 * The daily retention run's schedule, one per task queue (the worker creates or updates it at start),
 * and the workflow id its runs get (Temporal appends the scheduled time).
 */
export const retentionScheduleId = (taskQueue: string) => `retention-${taskQueue}`;
export const retentionWorkflowId = (taskQueue: string) => `retention-${taskQueue}`;
/** A meeting's embedding (search by meaning) after its transcript is saved: one run per transcript run. */
export const embeddingWorkflowId = (meetingId: string) => `embed-${meetingId}`;
/**
 * A meeting's vectors computed again after a person corrected its words: a run of its own, apart from
 * post-processing's (which starts once per meeting), joined by a correction made while it runs.
 */
export const reembeddingWorkflowId = (meetingId: string) => `embed-again-${meetingId}`;
/** The backfill of one model over every meeting it has not embedded: one at a time per task queue and model. */
/** The schedule that embeds live meetings' new sentences, one per task queue, and its runs' workflow id. */
export const liveEmbeddingScheduleId = (taskQueue: string) => `embed-live-${taskQueue}`;
/** A meeting's notes written again: one run per meeting at a time, a new run for a later request. */
export const resummaryWorkflowId = (meetingId: string) => `resummary-${meetingId}`;
export const embeddingBackfillWorkflowId = (taskQueue: string, model: string) =>
  `embedding-backfill-${taskQueue}-${model}`;
/**
 * The task queue of the embedding activities: the workflows' queue and `-embeddings`. Every general
 * worker serves it with a worker of its own and few slots (WORKER_MAX_CONCURRENT_EMBEDDINGS), so
 * embedding work waits in this queue and never holds the activity slots uploads need.
 */
export const embeddingTaskQueue = (taskQueue: string) => `${taskQueue}-embeddings`;
/** The re-index of meetings waiting for their language's index: one at a time per task queue. */
export const languageReindexWorkflowId = (taskQueue: string) => `language-reindex-${taskQueue}`;
/** Meetings one re-index transaction takes unless told otherwise (chosen by measurement: test/bench/README.md, "languages"). */
export const LANGUAGE_REINDEX_BATCH = 100;

// ---------------------------------------------------------------------------------------------------
// Messages: LiveMeetingWorkflow's updates and query
// ---------------------------------------------------------------------------------------------------

/** Update names (kept as they were first deployed: running workflows answer to them). */
export const LIVE_UPDATES = {
  pause: 'pauseLiveMeeting',
  resume: 'resumeLiveMeeting',
  end: 'endLiveMeeting',
} as const;

export const pauseLiveMeetingUpdate = defineUpdate<LiveStateResult, [LiveActorArgs]>(LIVE_UPDATES.pause);
export const resumeLiveMeetingUpdate = defineUpdate<LiveStateResult, [LiveActorArgs]>(LIVE_UPDATES.resume);
export const endLiveMeetingUpdate = defineUpdate<LiveStateResult, [LiveActorArgs]>(LIVE_UPDATES.end);
export const liveMeetingUpdates = {
  pause: pauseLiveMeetingUpdate,
  resume: resumeLiveMeetingUpdate,
  end: endLiveMeetingUpdate,
} as const;

/** The workflow's own view (state, pending writes, runs so far). */
export const LIVE_STATUS_QUERY = 'liveStatus';
export const liveStatusQuery = defineQuery<LiveStatus>(LIVE_STATUS_QUERY);

// ---------------------------------------------------------------------------------------------------
// Messages: LanguageReindexWorkflow's query
// ---------------------------------------------------------------------------------------------------

/** What the language re-index did so far, over every run of it (continue-as-new carries the totals). */
export interface LanguageReindexProgress {
  meetings: number;
  sentences: number;
  /** Meetings waiting when its last step ended. */
  remaining: number | null;
}
export const LANGUAGE_REINDEX_PROGRESS_QUERY = 'languageReindexProgress';
export const languageReindexProgressQuery = defineQuery<LanguageReindexProgress>(LANGUAGE_REINDEX_PROGRESS_QUERY);

// ---------------------------------------------------------------------------------------------------
// Failure types (ApplicationFailure.type) the activities raise and the workflows and client read
// ---------------------------------------------------------------------------------------------------

/** The transcription activities' failures; retry policies list the never-retried ones by name. */
export const FAILURE = {
  /** Bad input: a refused address, 404, too large, unsupported type, malformed captions. Never retried. */
  badInput: 'BadInput',
  /** The meeting no longer exists (deleted while processing). Never retried. */
  meetingGone: 'MeetingGone',
  /** Something on our side failed (database, model server); retried, then reported generically. */
  internal: 'InternalError',
} as const;

/** LiveMeetingWorkflow's and its activities' failures; the client maps them to the caller's errors. */
export const LIVE_FAILURE = {
  /** The state machine refused the request (resume while active, end after the end, ...). */
  invalidTransition: 'LiveInvalidTransition',
  /** The write could not be stored after every retry; sending it again is safe. */
  storeFailed: 'LiveStoreFailed',
  /** The meeting row is gone, or no longer live (ended elsewhere). */
  notLive: 'LiveMeetingNotLive',
  /** Input that no retry can fix. */
  badInput: FAILURE.badInput,
  meetingGone: FAILURE.meetingGone,
} as const;

/**
 * The ApplicationFailure a failure is about, under the activity, child-workflow or update failures
 * that wrap it; undefined when there is none (a timeout, a cancellation).
 */
export function failureCause(e: unknown): ApplicationFailure | undefined {
  let err = e as { cause?: unknown } | undefined;
  while (err && !(err instanceof ApplicationFailure) && err.cause) err = err.cause as { cause?: unknown };
  return err instanceof ApplicationFailure ? err : undefined;
}

/** The sentence meant for people: the message of the failure's ApplicationFailure (else its innermost), never a stack. */
export function failureMessage(e: unknown, fallback = 'unknown error'): string {
  let err = e as (Error & { cause?: unknown }) | undefined;
  while (err && !(err instanceof ApplicationFailure) && err.cause instanceof Error)
    err = err.cause as Error & { cause?: unknown };
  return err?.message?.trim() || fallback;
}
