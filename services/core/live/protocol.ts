/**
 * The live meeting's state machine, limits and message shapes, which the API side (this folder) and
 * LiveMeetingWorkflow (workflows/live-meeting.ts) share; the workflow's names, updates and failure
 * types are in workflows/contracts.ts. No imports and no I/O, because the workflow bundle includes this
 * file and runs it inside Temporal's deterministic sandbox.
 *
 * States of a live meeting:
 *
 *     start ──▶ active ──pause──▶ paused
 *                 ▲  ◀──resume──    │
 *                 │                 │
 *                 └──end / idle──▶ ended ◀──end / idle──┘
 *
 * Sentences may be appended while active or paused (a recorder's last batch often arrives just after
 * it paused); nothing is accepted once ended. `ended` is final: the meeting is then post-processed
 * like an upload and reads `completed`.
 */

export type LiveState = 'active' | 'paused';
export type LiveWorkflowState = LiveState | 'ended';
export type LiveAction = 'append' | 'pause' | 'resume' | 'end';
export type EndReason = 'requested' | 'idle';

/** Limits of appendLiveSentences (docs/live-meetings.md states the same). */
export const LIVE_LIMITS = {
  sentencesMin: 1,
  sentencesMax: 500,
  textMax: 5000,
  /** Characters of text in one call: keeps one call (and its transaction) small. */
  textTotalMax: 200_000,
  speakerNameMax: 256,
  chunkIdMax: 128,
  titleMax: 256,
  meetingLinkMax: 2048,
} as const;

/** One sentence as a recorder sends it; chunk_id identifies it within the meeting (re-sending replaces). */
export interface LiveSentenceInput {
  speaker_name: string;
  text: string;
  start_time: number;
  end_time: number;
  chunk_id: string;
}

export interface LiveMeetingWorkflowInput {
  meetingId: string;
  /** LIVE_IDLE_TIMEOUT when the meeting started. */
  idleTimeoutMs: number;
  /** continueAsNew after this many accepted updates (default LIVE_UPDATES_PER_RUN). */
  maxUpdatesPerRun?: number;
  /** State carried over by continueAsNew; absent on the first run. */
  carried?: LiveCarriedState;
}

export interface LiveCarriedState {
  state: LiveState;
  /** Workflow time (ms since epoch) of the last accepted update: the idle timer runs from here. */
  lastActivityAt: number;
  sentenceCount: number;
  /** Runs before this one (continueAsNew count). */
  runs: number;
  updatesTotal: number;
}

export const LIVE_UPDATES_PER_RUN = 500;

/** Who asked for a pause, resume or end (the audit row names them). */
export interface LiveActorArgs {
  actorUserId: string;
}

export interface LiveAppendResult {
  meetingId: string;
  state: LiveWorkflowState;
  /** New sentences (chunk ids not seen before in this meeting). */
  appended: number;
  /** Sentences whose chunk id was stored before: their row was replaced, not duplicated. */
  replaced: number;
  /** Sentences stored for the meeting so far (indices 0 .. sentence_count-1). */
  sentence_count: number;
}

export interface LiveStateResult {
  meetingId: string;
  state: LiveWorkflowState;
  is_live: boolean;
  sentence_count: number;
}

export interface LiveStatus {
  meetingId: string;
  state: LiveWorkflowState;
  sentenceCount: number;
  pendingWrites: number;
  updatesThisRun: number;
  updatesTotal: number;
  runs: number;
  endReason: EndReason | null;
}

/**
 * Why `action` is refused in `state`, or null when it is allowed. The message is what the caller
 * reads (GraphQL extensions.code invariant_violation), so it says what would work instead.
 */
export function refusal(state: LiveWorkflowState, action: LiveAction): string | null {
  if (state === 'ended') {
    switch (action) {
      case 'append':
        return 'the live meeting has ended; no more sentences can be added';
      case 'end':
        return 'the live meeting has already ended';
      default:
        return `the live meeting has ended; it cannot be ${action === 'pause' ? 'paused' : 'resumed'}`;
    }
  }
  if (action === 'pause' && state === 'paused') return 'the live meeting is already paused; resume it or end it';
  if (action === 'resume' && state === 'active')
    return 'the live meeting is active, not paused; only a paused meeting can be resumed';
  return null;
}
