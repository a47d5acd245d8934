/**
 * LiveMeetingWorkflow: one per live meeting, workflow id `live-<meetingId>`, started by
 * startLiveMeeting. It owns the meeting's state machine (services/core/live/protocol.ts):
 *
 *     active ⇄ paused → ended        (end: asked for, or LIVE_IDLE_TIMEOUT without any activity)
 *
 * Pause, resume and end arrive as Workflow Updates, so a caller learns synchronously whether they were
 * taken: a validator refuses an invalid transition before anything is recorded (pause after the end,
 * resume while active, pause while paused), and an accepted update answers once its write is in the
 * database. Writes go through ONE queue drained by the main loop, in arrival order, so the database
 * never sees a resume before the pause it follows.
 *
 * Sentences do not pass through here: the API pods store them directly (services/core/live/drive.ts), under
 * the meeting's row lock, which orders them against the end this workflow writes. So the idle timer
 * cannot see appends: when it runs out, an activity asks the database how long the meeting has really
 * been idle and ends it only if that is the whole timeout (else the timer is set for the rest).
 *
 * History stays bounded: after maxUpdatesPerRun updates (or when Temporal suggests it) the run waits
 * for its handlers and continues as new, carrying state, idle clock and counters.
 *
 * At the end: the meeting leaves the active meetings (closeLiveMeeting), then gets the same
 * post-processing as an upload: analytics and summary persisted with the transcript (completed), then
 * the post-processing children (automation rules, webhooks; workflows/post-processing.ts), abandoned
 * to run on their own.
 *
 * Deterministic: it only orders activities (imported as types) and reacts to updates.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  log,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { LiveActivities, LiveCompleted } from './activities/live';
import {
  endLiveMeetingUpdate,
  failureCause,
  failureMessage,
  LIVE_FAILURE,
  liveStatusQuery,
  pauseLiveMeetingUpdate,
  resumeLiveMeetingUpdate,
} from './contracts';
import {
  LIVE_UPDATES_PER_RUN,
  refusal,
  type EndReason,
  type LiveAction,
  type LiveActorArgs,
  type LiveMeetingWorkflowInput,
  type LiveState,
  type LiveStateResult,
  type LiveWorkflowState,
} from '../services/core/live/protocol';
import { startPostProcessing } from './post-processing';

export type { LiveMeetingWorkflowInput } from '../services/core/live/protocol';

export interface LiveMeetingResult {
  meetingId: string;
  /** completed: post-processed; gone: the meeting row disappeared, nothing to finish. */
  status: 'completed' | 'gone';
  endReason: EndReason | null;
  sentences: number;
  speakers: number;
  participants: number;
  summarySource: LiveCompleted['summarySource'] | null;
  /** Runs of this workflow id, counting this one (continueAsNew makes more). */
  runs: number;
  updates: number;
  /** Workflow ids of the post-processing children started (abandoned to run on their own). */
  children: string[];
}

const NON_RETRYABLE = [LIVE_FAILURE.badInput, LIVE_FAILURE.meetingGone, LIVE_FAILURE.notLive];

/**
 * Short writes under a row lock. A caller waits on them, so retries start fast; a database that stays
 * away for minutes fails the request (the caller sends it again) rather than hanging it forever.
 * (Regular activities, not local ones: with local activities the workflow task stays open during the
 * write, and under load the update's workflow task completions were refused and the writes re-run.)
 */
const { openLiveMeeting, setLiveState, closeLiveMeeting, closeLiveMeetingIfIdle } = proxyActivities<
  Pick<LiveActivities, 'openLiveMeeting' | 'setLiveState' | 'closeLiveMeeting' | 'closeLiveMeetingIfIdle'>
>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 20,
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
});

/** Marking a meeting whose post-processing failed (nobody waits on it). */
const { failLiveMeeting } = proxyActivities<Pick<LiveActivities, 'failLiveMeeting'>>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 30,
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
});

/** Analytics and summary (a chat model when LLM_URL is set) and the one-transaction persist. */
const { completeLiveMeeting } = proxyActivities<Pick<LiveActivities, 'completeLiveMeeting'>>({
  startToCloseTimeout: '20 minutes',
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
});

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

type Write =
  | { kind: 'state'; state: LiveState; previous: LiveWorkflowState; actorUserId: string; done: Deferred<void> }
  | { kind: 'end'; reason: EndReason; previous: LiveWorkflowState; actorUserId: string | null; done: Deferred<void> }
  | { kind: 'idle' };

const refuse = (message: string) => ApplicationFailure.nonRetryable(message, LIVE_FAILURE.invalidTransition);

export async function LiveMeetingWorkflow(input: LiveMeetingWorkflowInput): Promise<LiveMeetingResult> {
  const { meetingId } = input;
  const carried = input.carried;
  const maxUpdatesPerRun = input.maxUpdatesPerRun ?? LIVE_UPDATES_PER_RUN;

  let state: LiveWorkflowState = carried?.state ?? 'active';
  let lastActivityAt = carried?.lastActivityAt ?? Date.now();
  let sentenceCount = carried?.sentenceCount ?? 0;
  let updatesThisRun = 0;
  let updatesTotal = carried?.updatesTotal ?? 0;
  const runs = (carried?.runs ?? 0) + 1;
  let endReason: EndReason | null = null;
  let gone = false;
  const queue: Write[] = [];

  /** Every accepted update counts as activity: it resets the idle timer. */
  const touch = () => {
    lastActivityAt = Date.now();
    updatesThisRun++;
    updatesTotal++;
  };
  const check = (action: LiveAction) => {
    const why = gone ? 'the live meeting no longer exists' : refusal(state, action);
    if (why) throw refuse(why);
  };
  const stateResult = (): LiveStateResult => ({
    meetingId,
    state,
    is_live: state !== 'ended',
    sentence_count: sentenceCount,
  });

  const stateHandler =
    (action: 'pause' | 'resume', next: LiveState) =>
    async ({ actorUserId }: LiveActorArgs) => {
      touch();
      const done = deferred<void>();
      queue.push({ kind: 'state', state: next, previous: state, actorUserId, done });
      state = next;
      await done.promise;
      return stateResult();
    };
  setHandler(pauseLiveMeetingUpdate, stateHandler('pause', 'paused'), {
    validator: (_: LiveActorArgs) => check('pause'),
  });
  setHandler(resumeLiveMeetingUpdate, stateHandler('resume', 'active'), {
    validator: (_: LiveActorArgs) => check('resume'),
  });

  setHandler(
    endLiveMeetingUpdate,
    async ({ actorUserId }) => {
      touch();
      const done = deferred<void>();
      queue.push({ kind: 'end', reason: 'requested', previous: state, actorUserId, done });
      state = 'ended';
      endReason = 'requested';
      await done.promise;
      return stateResult();
    },
    { validator: (_: LiveActorArgs) => check('end') },
  );

  setHandler(liveStatusQuery, () => ({
    meetingId,
    state,
    sentenceCount,
    pendingWrites: queue.length,
    updatesThisRun,
    updatesTotal,
    runs,
    endReason,
  }));

  /** A write failed for good: the meeting is gone, or the request is refused and its state undone. */
  const failed = (w: Exclude<Write, { kind: 'idle' }>, e: unknown) => {
    const cause = failureCause(e);
    if (cause?.type === LIVE_FAILURE.notLive || cause?.type === LIVE_FAILURE.meetingGone) {
      gone = true;
      state = 'ended';
      w.done.reject(ApplicationFailure.nonRetryable(cause.message, cause.type));
      return;
    }
    // Undo the state change, unless a later request has changed the state since.
    if (w.kind === 'state' && state === w.state) state = w.previous;
    if (w.kind === 'end' && state === 'ended') {
      state = w.previous;
      endReason = null;
    }
    log.warn('live meeting write failed', { meetingId, kind: w.kind, reason: failureMessage(e) });
    w.done.reject(
      ApplicationFailure.nonRetryable(
        `the meeting could not be ${w.kind === 'end' ? 'ended' : w.state} (${failureMessage(e)}); try again.`,
        LIVE_FAILURE.storeFailed,
      ),
    );
  };

  /**
   * The idle timer ran out by this workflow's clock, which sees updates but not appends: the database
   * judges (and ends the meeting only if it really was idle the whole time).
   */
  const idleCheck = async () => {
    try {
      const r = await closeLiveMeetingIfIdle({ meetingId, idleTimeoutMs: input.idleTimeoutMs });
      if (r.ended) {
        log.info('live meeting idle; ended it', { meetingId, idleTimeoutMs: input.idleTimeoutMs });
        state = 'ended';
        endReason = 'idle';
        sentenceCount = r.sentence_count;
      } else lastActivityAt = Date.now() - r.idleMs;
    } catch (e) {
      const type = failureCause(e)?.type;
      if (type === LIVE_FAILURE.notLive || type === LIVE_FAILURE.meetingGone) {
        gone = true;
        state = 'ended';
        return;
      }
      // The database was away for every retry: look again after another timeout.
      log.warn('live meeting idle check failed', { meetingId, reason: failureMessage(e) });
      lastActivityAt = Date.now();
    }
  };

  /** Drain the queue in order. */
  const flush = async () => {
    while (queue.length) {
      const w = queue.shift()!;
      if (w.kind === 'idle') {
        await idleCheck();
        continue;
      }
      if (state === 'ended' && endReason === 'idle') {
        // Asked for while the idle end was being written: the meeting has ended.
        w.done.reject(refuse(refusal('ended', w.kind === 'end' ? 'end' : w.state === 'paused' ? 'pause' : 'resume')!));
        continue;
      }
      try {
        const r =
          w.kind === 'state'
            ? await setLiveState({ meetingId, state: w.state, actorUserId: w.actorUserId })
            : await closeLiveMeeting({ meetingId, reason: w.reason, actorUserId: w.actorUserId });
        sentenceCount = r.sentence_count;
        w.done.resolve();
      } catch (e) {
        failed(w, e);
      }
    }
  };

  if (!carried) {
    // The API pod stores the meeting before starting this run and removes it if the start fails.
    const opened = await openLiveMeeting({ meetingId });
    if (!opened.exists || !opened.is_live) {
      gone = true;
      state = 'ended';
    } else sentenceCount = opened.sentence_count;
  }

  for (;;) {
    if (gone) {
      for (const w of queue.splice(0))
        if (w.kind !== 'idle')
          w.done.reject(ApplicationFailure.nonRetryable('the live meeting no longer exists', LIVE_FAILURE.notLive));
      break;
    }
    if (queue.length) {
      await flush();
      continue;
    }
    if (state === 'ended') break;

    if (updatesThisRun >= maxUpdatesPerRun || workflowInfo().continueAsNewSuggested) {
      // Every accepted update must have answered before this run closes.
      await condition(() => queue.length > 0 || allHandlersFinished());
      if (queue.length) continue;
      await continueAsNew<typeof LiveMeetingWorkflow>({
        ...input,
        carried: { state, lastActivityAt, sentenceCount, runs, updatesTotal },
      });
    }

    const remaining = lastActivityAt + input.idleTimeoutMs - Date.now();
    if (remaining <= 0) {
      queue.push({ kind: 'idle' });
      continue;
    }
    const seen = updatesTotal;
    await condition(() => queue.length > 0 || updatesTotal !== seen, Math.ceil(remaining));
  }

  const base = { meetingId, endReason, runs, updates: updatesTotal };
  if (gone) {
    await condition(allHandlersFinished);
    return {
      ...base,
      status: 'gone',
      sentences: sentenceCount,
      speakers: 0,
      participants: 0,
      summarySource: null,
      children: [],
    };
  }

  let completed: LiveCompleted;
  try {
    completed = await completeLiveMeeting({ meetingId });
  } catch (e) {
    const reason = isCancellation(e)
      ? 'processing was cancelled by an operator'
      : `post-processing failed: ${failureMessage(e)}`;
    log.warn('live meeting post-processing failed', { meetingId, reason });
    await CancellationScope.nonCancellable(() => failLiveMeeting({ meetingId, reason }));
    if (isCancellation(e)) throw e;
    throw ApplicationFailure.nonRetryable(reason, 'LiveMeetingFailed');
  }

  // Automation rules and one webhook delivery per target, as after an upload (post-processing.ts).
  const children = await startPostProcessing(meetingId);
  await condition(allHandlersFinished);
  return {
    ...base,
    status: 'completed',
    sentences: completed.sentences,
    speakers: completed.speakers,
    participants: completed.participants,
    summarySource: completed.summarySource,
    children,
  };
}
