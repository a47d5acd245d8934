/**
 * A meeting's notes written again (ResummaryWorkflow): `resummarize` reads the stored transcript,
 * asks the configured summarizer (the chat model at LLM_URL, else the built-in one) and replaces the
 * summary in one transaction (services/core/summaries); `prepareSummaryWebhooks` records the
 * meeting.summarized deliveries of the new notes in the webhook ledger.
 */
import { replaceSummary, storedMeetingText } from '../../services/core/summaries';
import { ActivityDeps, runStep } from './context';
import { summarizeSentences, workerEmbedder } from './summarize';
import { prepareDeliveries, type PreparedDelivery } from './webhooks';

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
  prepareSummaryWebhooks(input: { meetingId: string }): Promise<PreparedDelivery[]>;
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
    prepareSummaryWebhooks: (input) =>
      runStep('webhook_prepare', () =>
        prepareDeliveries(deps.db, deps.config, input.meetingId, ['meeting.summarized']),
      ),
  };
}
