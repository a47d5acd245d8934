/**
 * What core asks of the workflow engine, in core's own terms: start a meeting's transcription, live
 * session or webhook redelivery, and drive a live meeting. Core decides when and what; the port's one
 * implementation (workflows/client.ts) knows Temporal: workflow functions, ids, policies, deadlines.
 * Core never imports a Temporal package.
 */
import type { LiveActorArgs, LiveMeetingWorkflowInput, LiveStateResult } from '../live';
import type { WebhookDeliveryInput } from '../webhooks';

/** `exists`: a run with the meeting's workflow id exists already (running or closed). */
export type StartOutcome = 'started' | 'exists';

export type LiveUpdate = 'pause' | 'resume' | 'end';

export interface WorkflowPort {
  startTranscription(meetingId: string): Promise<StartOutcome>;
  startLiveMeeting(input: LiveMeetingWorkflowInput): Promise<StartOutcome>;
  /** Runs the update and answers the workflow's result; throws the errors below for what core handles. */
  updateLiveMeeting(
    meetingId: string,
    update: LiveUpdate,
    args: LiveActorArgs,
    deadlineMs: number,
  ): Promise<LiveStateResult>;
  /**
   * A meeting's notes written again (ResummaryWorkflow): `exists` when a re-summary of the meeting
   * is running already (the request joins it).
   */
  startResummary(input: { meetingId: string; requestedBy: string | null }): Promise<StartOutcome>;
  /**
   * A meeting's vectors (search by meaning) computed again from its words now (EmbeddingWorkflow):
   * `exists` when such a run is going already (it stores only vectors of the words it read last).
   */
  startEmbedding(meetingId: string): Promise<StartOutcome>;
  /** A new delivery run with the delivery's id, replacing a run that still waits to retry. */
  redeliverWebhook(input: WebhookDeliveryInput): Promise<void>;
}

/**
 * Why a live meeting's workflow refused an update: its state machine refused the transition, the
 * meeting is no longer live, or the write could not be stored (sending it again is safe).
 */
export type LiveRefusal = 'invalid_transition' | 'not_live' | 'store_failed';

/** The workflow refused the request; the message is the workflow's own, meant for the caller. */
export class WorkflowRefusal extends Error {
  constructor(
    readonly refusal: LiveRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'WorkflowRefusal';
  }
}

/** No run of the meeting's workflow is open. */
export class WorkflowNotRunning extends Error {
  constructor(message = 'no open workflow run') {
    super(message);
    this.name = 'WorkflowNotRunning';
  }
}

/** The workflow did not answer within the deadline; it may still act on the request. */
export class WorkflowTimedOut extends Error {
  constructor(message = 'the workflow did not answer in time') {
    super(message);
    this.name = 'WorkflowTimedOut';
  }
}
