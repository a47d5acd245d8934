/**
 * A meeting's notes written again (ResummaryWorkflow): `resummarize` reads the stored transcript,
 * asks the configured summarizer (the chat model at LLM_URL, else the built-in one) and replaces the
 * summary in one transaction (services/core/summaries), which also records meeting.summarized in the
 * webhook events' outbox, keyed by this run: a retried activity sends it once, the next re-summary
 * again.
 */
import { Context } from '@temporalio/activity';
import { replaceSummary, storedMeetingText } from '../../services/core/summaries';
import { ActivityDeps, runStep } from './context';
import { summarizeSentences, workerEmbedder } from './summarize';

export interface ResummaryInput {
  meetingId: string;
  /** The user who asked (recorded with the run); null for a system request. */
  requestedBy: string | null;
}

export interface ResummaryOutcome {
  /** False when the meeting is gone or no longer completed: nothing was written. */
  replaced: boolean;
  source: 'extractive' | 'llm' | null;
  /** The summary_runs row of this summary. */
  runId: string | null;
  fallbackFields: string[];
  actionItems: { created: number; kept: number; removed: number };
}

export interface ResummaryActivities {
  resummarize(input: ResummaryInput): Promise<ResummaryOutcome>;
}

/** This re-summary's name for its meeting.summarized event: its workflow run, the same on every retry. */
function resummaryKey(): string {
  const { workflowExecution, activityId } = Context.current().info;
  return `resummary:${workflowExecution?.runId ?? activityId}`;
}

const NOTHING: ResummaryOutcome = {
  replaced: false,
  source: null,
  runId: null,
  fallbackFields: [],
  actionItems: { created: 0, kept: 0, removed: 0 },
};

export function createResummaryActivities(deps: ActivityDeps): ResummaryActivities {
  return {
    resummarize: (input) =>
      runStep('resummarize', async () => {
        const text = await storedMeetingText(deps.db, input.meetingId);
        if (!text || text.status !== 'completed') return NOTHING;
        const options = { ...text.options, embedder: await workerEmbedder(deps) };
        const { summary, run } = await summarizeSentences(deps, text.sentences, options);
        const r = await replaceSummary(deps.db, {
          meetingId: input.meetingId,
          summary,
          run,
          requestedBy: input.requestedBy,
          changeKey: resummaryKey(),
        });
        if (!r.replaced) return NOTHING;
        return {
          replaced: true,
          source: summary.source,
          runId: r.runId,
          fallbackFields: run.fallback_fields,
          actionItems: r.actionItems,
        };
      }),
  };
}
