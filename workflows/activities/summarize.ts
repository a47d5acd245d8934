/**
 * summarize: keywords, action items, overview, topics, meeting type and outline. The built-in
 * extractive summarizer by default; the OpenAI-compatible chat model at LLM_URL when set. A chat model
 * that keeps failing (or answers unusably) does not fail the meeting: the last attempt, or a failure
 * that retrying cannot fix, falls back to the extractive summary with notes.llm saying why.
 */
import { loadIngestMeeting } from '../../services/core/ingest';
import { isRetryable } from '../../services/net/errors';
import {
  createSummarizer,
  extractiveRun,
  type SentenceEmbedder,
  type SummarizeOptions,
  type Summary,
  type SummaryRun,
} from '../../services/intelligence/summarize';
import type { Sentence } from '../../services/intelligence/types';
import { ActivityDeps, attempt, runStep, stageOf } from './context';
import { sentencesFor } from './transcribe';
import type { StepInput, SummarizeResult } from './types';

/**
 * The worker's embedding model (the one meaning search loaded), for the extractive notes; null where
 * none is configured or it cannot be loaded: the notes then compare words, and are made all the same.
 */
export async function workerEmbedder(deps: ActivityDeps): Promise<SentenceEmbedder | null> {
  try {
    return (await deps.embedder?.()) ?? null;
  } catch {
    return null;
  }
}

/** Attempts that may still fail on a chat-model error before the extractive fallback is used. */
export const LLM_ATTEMPTS = 3;

export interface SummaryWithRun {
  summary: Summary;
  /** Absent in a summary staged by a worker from before runs were recorded. */
  run?: SummaryRun;
}

interface StagedSummary extends SummaryWithRun {
  digest: string;
}

/**
 * The summary of `sentences` by the configured summarizer, and its run. A retryable chat-model failure
 * throws (Temporal tries again) until the last attempt, which falls back to the extractive summary.
 */
export async function summarizeSentences(
  deps: ActivityDeps,
  sentences: readonly Sentence[],
  options: SummarizeOptions,
  tryNumber = attempt(),
): Promise<Required<SummaryWithRun>> {
  const summarizer = createSummarizer(deps.config, { fallback: tryNumber >= LLM_ATTEMPTS ? 'extractive' : 'throw' });
  try {
    return await summarizer.summarizeWithRun(sentences, options);
  } catch (e) {
    if (isRetryable(e)) throw e; // Temporal tries again; the last attempt falls back
    return extractiveRun(sentences, options, { model: deps.config.llm.model, error: (e as Error).message });
  }
}

export async function computeSummary(
  deps: ActivityDeps,
  meetingId: string,
  sentences: Sentence[],
  tryNumber = attempt(),
): Promise<Required<SummaryWithRun>> {
  const meeting = await loadIngestMeeting(deps.db, meetingId);
  const embedder = await workerEmbedder(deps);
  const options: SummarizeOptions = meeting
    ? {
        embedder,
        title: meeting.title,
        meetingDate: new Date(meeting.date).toISOString(),
        participants: (meeting.upload_options.attendees ?? []).map((a) => ({
          name: a.displayName ?? a.email,
          email: a.email,
        })),
        language: meeting.language,
      }
    : { embedder };
  return summarizeSentences(deps, sentences, options, tryNumber);
}

/** The summary of these very sentences: staged when its digest matches, else computed now. */
export async function summaryFor(
  deps: ActivityDeps,
  input: StepInput,
  sentences: { digest: string; sentences: Sentence[] },
): Promise<SummaryWithRun> {
  const stage = stageOf(deps, input.meetingId);
  const staged = await stage.readJson<StagedSummary>('summary');
  if (staged?.digest === sentences.digest) return { summary: staged.summary, run: staged.run };
  const { summary, run } = await computeSummary(deps, input.meetingId, sentences.sentences);
  await stage.writeJson('summary', { digest: sentences.digest, summary, run } satisfies StagedSummary);
  return { summary, run };
}

export function summarizeActivity(deps: ActivityDeps) {
  return (input: StepInput): Promise<SummarizeResult> =>
    runStep('summarize', async () => {
      const sentences = await sentencesFor(deps, input.meetingId, input.media, input.transcript);
      const { summary } = await summaryFor(deps, input, sentences);
      return {
        digest: sentences.digest,
        source: summary.source,
        meetingType: summary.meeting_type,
        actionItems: summary.action_items.length,
      };
    });
}
