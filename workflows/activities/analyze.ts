/**
 * analyze: per-speaker and meeting conversation metrics (talk time, words per minute, fillers,
 * questions, monologues, sentiment, talk-listen ratio), staged beside the sentences they came from.
 */
import { loadIngestMeeting, speakerEmails } from '../../services/core/ingest';
import { analyze, type Analytics } from '../../services/intelligence/analytics';
import type { Sentence } from '../../services/intelligence/types';
import { ActivityDeps, runStep, stageOf } from './context';
import { sentencesFor } from './transcribe';
import type { AnalyzeResult, StepInput } from './types';

interface StagedAnalytics {
  /** Digest of the sentences these analytics describe. */
  digest: string;
  analytics: Analytics;
}

export async function computeAnalytics(
  deps: ActivityDeps,
  meetingId: string,
  sentences: Sentence[],
  mediaDurationSeconds: number | null,
): Promise<Analytics> {
  const meeting = await loadIngestMeeting(deps.db, meetingId);
  const names = [...new Set(sentences.map((s) => s.speaker_name))];
  const emails = meeting
    ? await speakerEmails(deps.db, meeting.team_id, names, meeting.upload_options.attendees ?? [])
    : {};
  return analyze(sentences, {
    speakerEmails: emails,
    hostEmail: meeting?.organizer_email,
    mediaDurationSeconds: mediaDurationSeconds ?? undefined,
  });
}

/** The analytics of these very sentences: staged ones when their digest matches, else computed now. */
export async function analyticsFor(
  deps: ActivityDeps,
  input: StepInput,
  sentences: { digest: string; sentences: Sentence[] },
): Promise<Analytics> {
  const stage = stageOf(deps, input.meetingId);
  const staged = await stage.readJson<StagedAnalytics>('analytics');
  if (staged?.digest === sentences.digest) return staged.analytics;
  const analytics = await computeAnalytics(deps, input.meetingId, sentences.sentences, input.media.durationSeconds);
  await stage.writeJson('analytics', { digest: sentences.digest, analytics } satisfies StagedAnalytics);
  return analytics;
}

export function analyzeActivity(deps: ActivityDeps) {
  return (input: StepInput): Promise<AnalyzeResult> =>
    runStep('analyze', async () => {
      const sentences = await sentencesFor(deps, input.meetingId, input.media, input.transcript);
      const analytics = await analyticsFor(deps, input, sentences);
      return { digest: sentences.digest, speakers: analytics.speakers.length };
    });
}
