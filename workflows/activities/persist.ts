/**
 * persist: the transcript, participants, summary and analytics in ONE transaction that replaces any
 * earlier attempt's rows and marks the meeting completed (services/core/ingest/ingest.ts). markFailed: the
 * end of a run that could not finish. Both clear the meeting's stage.
 */
import { markMeetingFailed, persistTranscript } from '../../services/core/ingest';
import { ActivityDeps, runStep, stageOf } from './context';
import { analyticsFor } from './analyze';
import { summaryFor } from './summarize';
import { sentencesFor } from './transcribe';
import type { FailInput, PersistOutcome, StepInput } from './types';

export function persistActivity(deps: ActivityDeps) {
  return (input: StepInput): Promise<PersistOutcome> =>
    runStep('persist', async () => {
      const sentences = await sentencesFor(deps, input.meetingId, input.media, input.transcript);
      const [analytics, { summary, run }] = await Promise.all([
        analyticsFor(deps, input, sentences),
        summaryFor(deps, input, sentences),
      ]);
      const lastEnd = sentences.sentences.reduce((m, s) => Math.max(m, s.end_time), 0);
      const result = await persistTranscript(deps.db, {
        meetingId: input.meetingId,
        sentences: sentences.sentences,
        durationSeconds: Math.max(input.media.durationSeconds ?? 0, lastEnd),
        analytics,
        summary,
        summaryRun: run,
      });
      await stageOf(deps, input.meetingId).remove();
      return result;
    });
}

export function markFailedActivity(deps: ActivityDeps) {
  return (input: FailInput): Promise<boolean> =>
    runStep('mark_failed', async () => {
      const changed = await markMeetingFailed(deps.db, input.meetingId, input.reason);
      await stageOf(deps, input.meetingId).remove();
      return changed;
    });
}
