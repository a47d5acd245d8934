/**
 * LanguageReindexWorkflow: every meeting waiting for its language's index (uploaded with a language
 * before meetings had one, or indexed word for word before its language's dictionary was added;
 * services/core/languages/reindex.ts), in steps of a few batches in id order. It rests after each
 * step as long as the step worked, so it takes at most about half of one database connection's time
 * and uploads keep their pace. PostgreSQL keeps what is left (a meeting waits until its index is its
 * language's): killed, the activity's retry or the next run goes on from there, and continue-as-new
 * carries the position so a long re-index's history stays small.
 *
 * A pass goes once through the meetings in id order; meetings it could not take (another transaction
 * held them) or that started waiting behind it are taken by another pass from the start, until a pass
 * from the start finds none it can take.
 *
 * Deterministic: the activity does the reading and writing.
 */
import { continueAsNew, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { LanguageActivities, ReindexStepResult } from './activities/languages';
import { LANGUAGE_REINDEX_BATCH, languageReindexProgressQuery } from './contracts';

const { reindexLanguagesStep } = proxyActivities<LanguageActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 20 },
});

export interface LanguageReindexInput {
  /** The last meeting id done in this pass (continue-as-new carries it). */
  afterId?: string;
  /** Meetings per transaction; default LANGUAGE_REINDEX_BATCH. */
  batchSize?: number;
  /** Rest after a step, as a share of the time it worked; default 1 (half the time working), 0 never rests. */
  restRatio?: number;
  /** How long one step keeps taking batches; default STEP_BUDGET_MS. */
  stepBudgetMs?: number;
  /** Totals so far. */
  meetings?: number;
  sentences?: number;
  /** Whether this pass started from the first meeting. */
  fromStart?: boolean;
  /** Meetings this pass took so far. */
  passMeetings?: number;
}

export interface LanguageReindexResult {
  meetings: number;
  sentences: number;
  /** Meetings still waiting when it ended (held by other transactions through a whole pass). */
  remaining: number;
}

/** Steps in one run before it continues as new. */
const STEPS_PER_RUN = 200;
/** How long one step keeps taking batches. */
const STEP_BUDGET_MS = 10_000;

export async function LanguageReindexWorkflow(input: LanguageReindexInput = {}): Promise<LanguageReindexResult> {
  const batchSize = input.batchSize ?? LANGUAGE_REINDEX_BATCH;
  const restRatio = input.restRatio ?? 1;
  const stepBudgetMs = input.stepBudgetMs ?? STEP_BUDGET_MS;
  let afterId = input.afterId ?? '';
  let meetings = input.meetings ?? 0;
  let sentences = input.sentences ?? 0;
  let fromStart = input.fromStart ?? afterId === '';
  let passMeetings = input.passMeetings ?? 0;
  let remaining: number | null = null;
  setHandler(languageReindexProgressQuery, () => ({ meetings, sentences, remaining }));
  let steps = 0;
  for (;;) {
    const r: ReindexStepResult = await reindexLanguagesStep({ afterId, batchSize, budgetMs: stepBudgetMs });
    meetings += r.meetings;
    sentences += r.sentences;
    passMeetings += r.meetings;
    afterId = r.lastId;
    remaining = r.remaining;
    if (r.done) {
      if (r.remaining === 0 || (fromStart && passMeetings === 0))
        return { meetings, sentences, remaining: r.remaining };
      // Some wait behind this pass: another from the start.
      afterId = '';
      fromStart = true;
      passMeetings = 0;
    }
    if (restRatio > 0) await sleep(Math.round(r.workedMs * restRatio));
    if (++steps >= STEPS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      return continueAsNew<typeof LanguageReindexWorkflow>({
        afterId,
        batchSize,
        restRatio,
        stepBudgetMs,
        meetings,
        sentences,
        fromStart,
        passMeetings,
      });
    }
  }
}
