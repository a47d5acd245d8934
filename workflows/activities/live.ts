/**
 * The activities of LiveMeetingWorkflow: the I/O of a live meeting. Each is idempotent (see
 * services/core/live/store.ts), so Temporal may retry any of them, on any worker, at any time.
 *
 * - openLiveMeeting: at the first run, whether the meeting row is there (it is gone when the API pod
 *   removed it after a failed start);
 * - setLiveState / closeLiveMeeting: active ⇄ paused, and the end (is_live false, status processing);
 * - closeLiveMeetingIfIdle: the idle end, judged on the database's record of the last activity
 *   (sentences are appended by the API pods, not through the workflow);
 * - completeLiveMeeting: the same post-processing an upload gets once its sentences exist (analytics,
 *   summary, persisted in one transaction that marks the meeting completed; minutes charged once);
 * - failLiveMeeting: the end of a run whose post-processing could not finish.
 *
 * The live_meetings gauge is recounted from the database after every state change, so each worker
 * exports the service-wide figure it last saw.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { chargeMinutes, loadIngestMeeting, persistTranscript } from '../../services/core/ingest';
import { isServiceError } from '../../services/platform/errors';
import type { EndReason, LiveState } from '../../services/core/live';
import { LIVE_FAILURE } from '../contracts';
import {
  closeLiveMeeting,
  closeLiveMeetingIfIdle,
  countLiveMeetings,
  failLiveMeeting,
  MeetingNotLiveError,
  openLiveMeeting,
  readLiveSentences,
  setLiveState,
  type IdleCheck,
} from '../../services/core/live';
import { logger } from '../../services/platform/logger';
import { liveMeetings, pipelineStage } from '../../services/platform/metrics';
import { computeAnalytics } from './analyze';
import { ActivityDeps, runStep, toFailure } from './context';
import { computeSummary } from './summarize';

export interface LiveMeetingRef {
  meetingId: string;
}

export interface IdleCheckInput extends LiveMeetingRef {
  idleTimeoutMs: number;
}

export interface SetLiveStateInput extends LiveMeetingRef {
  state: LiveState;
  actorUserId: string | null;
}

export interface CloseLiveInput extends LiveMeetingRef {
  reason: EndReason;
  actorUserId: string | null;
}

export interface LiveOpened {
  exists: boolean;
  is_live: boolean;
  sentence_count: number;
}

export interface LiveCompleted {
  sentences: number;
  speakers: number;
  participants: number;
  summarySource: 'extractive' | 'llm' | 'none';
  durationSeconds: number;
}

/** The activity interface LiveMeetingWorkflow proxies (implemented by createLiveActivities). */
export interface LiveActivities {
  openLiveMeeting(input: LiveMeetingRef): Promise<LiveOpened>;
  closeLiveMeetingIfIdle(input: IdleCheckInput): Promise<IdleCheck>;
  setLiveState(input: SetLiveStateInput): Promise<{ sentence_count: number }>;
  closeLiveMeeting(input: CloseLiveInput): Promise<{ sentence_count: number }>;
  completeLiveMeeting(input: LiveMeetingRef): Promise<LiveCompleted>;
  failLiveMeeting(input: LiveMeetingRef & { reason: string }): Promise<boolean>;
}

/**
 * Recount live meetings by state into the gauge, after any count in flight, so the gauge ends on a
 * figure read after the change.
 */
function gaugeRefresher(deps: ActivityDeps) {
  let chain: Promise<void> = Promise.resolve();
  return (): Promise<void> => {
    chain = chain
      .then(async () => {
        const counts = await countLiveMeetings(deps.db);
        for (const [state, n] of Object.entries(counts)) liveMeetings.set({ state }, n);
      })
      .catch((err) => logger.warn({ err }, 'could not count live meetings for the live_meetings gauge'));
    return chain;
  };
}

/**
 * One short write (seconds at most: no heartbeat), timed into pipeline_stage_duration_seconds. A meeting that is gone or no longer live can never be written to,
 * and bad input never becomes good: neither is retried.
 */
async function liveStep<T>(stage: string, work: () => Promise<T>): Promise<T> {
  const started = process.hrtime.bigint();
  let outcome = 'ok';
  try {
    return await work();
  } catch (e) {
    const failure =
      e instanceof MeetingNotLiveError
        ? ApplicationFailure.nonRetryable(e.message, LIVE_FAILURE.notLive)
        : isServiceError(e) && e.code === 'invalid_arguments'
          ? ApplicationFailure.nonRetryable(e.message, LIVE_FAILURE.badInput)
          : toFailure(stage, e);
    outcome = failure.nonRetryable ? 'failed' : 'retry';
    throw failure;
  } finally {
    pipelineStage.observe({ stage, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
  }
}

export function createLiveActivities(deps: ActivityDeps): LiveActivities {
  const refreshGauge = gaugeRefresher(deps);
  return {
    openLiveMeeting: (input) =>
      liveStep('live_open', async () => {
        const m = await openLiveMeeting(deps.db, input.meetingId);
        await refreshGauge();
        return m
          ? { exists: true, is_live: m.is_live, sentence_count: m.sentence_count }
          : { exists: false, is_live: false, sentence_count: 0 };
      }),

    closeLiveMeetingIfIdle: (input) =>
      liveStep('live_idle_check', async () => {
        const r = await closeLiveMeetingIfIdle(deps.db, input.meetingId, input.idleTimeoutMs);
        if (r.ended) await refreshGauge();
        return r;
      }),

    setLiveState: (input) =>
      liveStep('live_state', async () => {
        const r = await setLiveState(deps.db, input.meetingId, input.state, input.actorUserId);
        await refreshGauge();
        return r;
      }),

    closeLiveMeeting: (input) =>
      liveStep('live_end', async () => {
        const r = await closeLiveMeeting(deps.db, input.meetingId, input.reason, input.actorUserId);
        await refreshGauge();
        return r;
      }),

    completeLiveMeeting: (input) =>
      runStep('live_complete', async () => {
        const { meetingId } = input;
        const meeting = await loadIngestMeeting(deps.db, meetingId);
        if (!meeting)
          throw ApplicationFailure.nonRetryable(`meeting ${meetingId} no longer exists`, LIVE_FAILURE.meetingGone);
        const sentences = await readLiveSentences(deps.db, meetingId);
        const durationSeconds = sentences.reduce((m, s) => Math.max(m, s.end_time), 0);
        if (meeting.status === 'completed') {
          // A retry after the transaction committed: nothing left to do.
          const speakers = new Set(sentences.map((s) => s.speaker_name)).size;
          const [{ n }] = await deps.db('meeting_participants').where({ meeting_id: meetingId }).count({ n: '*' });
          return {
            sentences: sentences.length,
            speakers,
            participants: Number(n),
            summarySource: 'none',
            durationSeconds,
          };
        }
        if (meeting.status !== 'processing') {
          throw ApplicationFailure.nonRetryable(
            `meeting ${meetingId} is ${meeting.status}, not an ended live meeting`,
            LIVE_FAILURE.notLive,
          );
        }
        const analytics = await computeAnalytics(deps, meetingId, sentences, durationSeconds);
        const { summary, run } = await computeSummary(deps, meetingId, sentences);
        // The same one-transaction persist as an upload: analytics, summary, participants, `completed`.
        const persisted = await persistTranscript(deps.db, {
          meetingId,
          sentences,
          durationSeconds,
          analytics,
          summary,
          summaryRun: run,
          trigger: 'live',
        });
        await chargeMinutes(deps.db, meetingId, durationSeconds);
        return { ...persisted, summarySource: summary.source, durationSeconds };
      }),

    failLiveMeeting: (input) =>
      liveStep('live_fail', async () => {
        const changed = await failLiveMeeting(deps.db, input.meetingId, input.reason);
        await refreshGauge();
        return changed;
      }),
  };
}
