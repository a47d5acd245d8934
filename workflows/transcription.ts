/**
 * TranscriptionWorkflow: fetchMedia → transcribe (captions; audio and video: prepareAudio →
 * transcribeChunk × n, a few at once → stitchTranscript) → analyze ‖ summarize → persist →
 * post-processing children. Started by uploadAudio with workflow id `transcription-<meetingId>`.
 *
 * Deterministic: it only orders activities (imported as types) and reacts to their outcome. Bad input
 * (a refused address, a 404, a file over the cap, an unsupported type, malformed captions, no ASR
 * configured for audio) fails its activity at once; anything else is retried by the activity's policy.
 * Whatever ends the run early, the meeting is marked `failed` with a reason a person can read, and no
 * partial transcript is ever visible (persist writes it all in one transaction, or nothing).
 */
import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  log,
  patched,
  proxyActivities,
} from '@temporalio/workflow';
import type { AudioPlan, MediaRef, TranscriptRef, TranscriptionActivities } from './activities/types';
import { FAILURE, failureMessage } from './contracts';
import { FAILURE_NOTIFICATION, startPostProcessing } from './post-processing';

export interface TranscriptionInput {
  meetingId: string;
}

export interface TranscriptionResult {
  meetingId: string;
  status: 'completed';
  sentences: number;
  speakers: number;
  participants: number;
  summarySource: 'extractive' | 'llm';
  /** Workflow ids of the post-processing children started (abandoned to run on their own). */
  children: string[];
}

const NON_RETRYABLE = [FAILURE.badInput, FAILURE.meetingGone, 'NonRetryableNetError'];

/** Downloads are bounded by MEDIA_FETCH_TIMEOUT inside the activity; this only catches a lost worker. */
const { fetchMedia } = proxyActivities<Pick<TranscriptionActivities, 'fetchMedia'>>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
});

/** Speech recognition of a long recording on a CPU takes a while; it heartbeats while it waits. */
const { transcribe } = proxyActivities<Pick<TranscriptionActivities, 'transcribe'>>({
  startToCloseTimeout: '3 hours',
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    maximumAttempts: 4,
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
});

/** Extracting the audio of a long recording (ffmpeg) and planning its chunks; stitching them back. */
const { prepareAudio, stitchTranscript } = proxyActivities<
  Pick<TranscriptionActivities, 'prepareAudio' | 'stitchTranscript'>
>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
});

/** One chunk (at most ASR_CHUNK_MAX_SECONDS of audio) to the speech engine, each retried on its own. */
const CHUNK_OPTIONS = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 6,
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
} as const;

/** Chunks run on the plan's speech task queue (speech workers scale on their own); older plans on the run's queue. */
const chunkActivity = (plan: AudioPlan) =>
  proxyActivities<Pick<TranscriptionActivities, 'transcribeChunk'>>(
    plan.speechQueue ? { ...CHUNK_OPTIONS, taskQueue: plan.speechQueue } : CHUNK_OPTIONS,
  ).transcribeChunk;

/** Pure computation (and the chat model when LLM_URL is set). */
const { analyze, summarize } = proxyActivities<Pick<TranscriptionActivities, 'analyze' | 'summarize'>>({
  startToCloseTimeout: '20 minutes',
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
});

/** One database transaction; retried generously because a database blip must not lose a transcript. */
const { persist, markFailed } = proxyActivities<Pick<TranscriptionActivities, 'persist' | 'markFailed'>>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 20,
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
});

/** The sentence a person reads in failure_reason: the activity's own message, never a stack. */
export const failureReason = (e: unknown): string => failureMessage(e, 'transcription failed for an unknown reason');

/**
 * Audio and video: extract and plan (prepareAudio), every chunk of every channel with at most
 * plan.concurrency at once (a failed chunk fails the run once its own retries are spent), then stitch.
 * History holds the plan and one small result per chunk; the segments are in transcript_chunks.
 */
async function transcribeInChunks(meetingId: string, media: MediaRef): Promise<TranscriptRef> {
  const plan: AudioPlan = await prepareAudio({ meetingId, media });
  const transcribeChunk = chunkActivity(plan);
  const work = plan.channels.flatMap((channel, c) => plan.chunks[c].map((chunk) => ({ channel, chunk })));
  const total = work.length;
  let next = 0;
  if (plan.referenceFirst && total > 1) {
    // The speakers of the first chunk are the references every later chunk is told about.
    await transcribeChunk({ meetingId, media, plan: plan.plan, channel: work[0].channel, chunk: work[0].chunk, total });
    next = 1;
  }
  const lane = async () => {
    while (next < work.length) {
      const { channel, chunk } = work[next++];
      await transcribeChunk({ meetingId, media, plan: plan.plan, channel, chunk, total });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(plan.concurrency, total)) }, lane));
  return stitchTranscript({ meetingId, media, plan });
}

/**
 * The webhooks subscribed to meeting.failed, started like the post-processing children (ABANDON, one
 * per target, ids from the meeting). A failure to start them is logged, never the run's failure: the
 * meeting's own failure is what the run reports.
 */
async function notifyFailure(meetingId: string): Promise<void> {
  try {
    await CancellationScope.nonCancellable(() => startPostProcessing(meetingId, FAILURE_NOTIFICATION));
  } catch (e) {
    log.warn('meeting.failed webhooks were not started', { meetingId, error: failureReason(e) });
  }
}

export async function TranscriptionWorkflow(input: TranscriptionInput): Promise<TranscriptionResult> {
  const { meetingId } = input;
  let outcome: Omit<TranscriptionResult, 'children'>;
  try {
    const media = await fetchMedia({ meetingId });
    // Runs started before chunking (replayed histories) keep the single request of transcribe.
    const transcript =
      media.kind !== 'captions' && patched('chunked-transcription')
        ? await transcribeInChunks(meetingId, media)
        : await transcribe({ meetingId, media });
    const step = { meetingId, media, transcript };
    const [, summary] = await Promise.all([analyze(step), summarize(step)]);
    const persisted = await persist(step);
    outcome = { meetingId, status: 'completed', ...persisted, summarySource: summary.source };
  } catch (e) {
    const reason = isCancellation(e) ? 'processing was cancelled by an operator' : failureReason(e);
    log.warn('transcription failed', { meetingId, reason });
    // Marking must happen even when the run itself is being cancelled.
    await CancellationScope.nonCancellable(() => markFailed({ meetingId, reason }));
    // Runs recorded before meeting.failed existed replay without it.
    if (patched('failed-webhooks')) await notifyFailure(meetingId);
    if (isCancellation(e)) throw e;
    throw ApplicationFailure.nonRetryable(reason, 'TranscriptionFailed');
  }

  // Automation rules and one webhook delivery per target (post-processing.ts), abandoned to run on their own.
  const children = await startPostProcessing(meetingId);
  return { ...outcome, children };
}
