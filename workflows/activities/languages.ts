/**
 * The language re-index's activity: steps of reindexStep (services/core/languages) over the meetings
 * waiting for their language's index, for as long as the step's budget, in id order after the last
 * meeting the workflow finished. What is left is kept by PostgreSQL itself (a meeting waits until its
 * configuration is its language's), so a step retried after a kill redoes nothing already committed.
 */
import { Context } from '@temporalio/activity';
import { reindexProgress, reindexStep } from '../../services/core/languages';
import { languageReindexBacklog, languageReindexSentences } from '../../services/platform/metrics';
import type { ActivityDeps } from './context';

export interface ReindexStepInput {
  /** The last meeting id a previous step did ('' at the start of a pass). */
  afterId: string;
  /** Meetings per transaction. */
  batchSize: number;
  /** How long one step keeps taking batches. */
  budgetMs: number;
}

export interface ReindexStepResult {
  meetings: number;
  sentences: number;
  lastId: string;
  /** No meeting after lastId waits (the pass reached the end). */
  done: boolean;
  /** Meetings still waiting anywhere (before or after lastId), counted at the end of the step. */
  remaining: number;
  /** Milliseconds the step worked (the workflow rests in proportion, so uploads keep their pace). */
  workedMs: number;
}

export interface LanguageActivities {
  reindexLanguagesStep(input: ReindexStepInput): Promise<ReindexStepResult>;
}

function heartbeat(details: unknown): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    // outside an activity (tests calling the function directly)
  }
}

export function createLanguageActivities(deps: ActivityDeps): LanguageActivities {
  return {
    async reindexLanguagesStep({ afterId, batchSize, budgetMs }) {
      const started = Date.now();
      const result: ReindexStepResult = {
        meetings: 0,
        sentences: 0,
        lastId: afterId,
        done: false,
        remaining: 0,
        workedMs: 0,
      };
      while (!result.done && Date.now() - started < budgetMs) {
        const step = await reindexStep(deps.db, batchSize, result.lastId);
        result.meetings += step.meetings;
        result.sentences += step.sentences;
        result.lastId = step.lastId;
        result.done = step.done;
        languageReindexSentences.inc(step.sentences);
        heartbeat(result.lastId);
      }
      // Counting reads every meeting: once a step, not once a batch.
      result.remaining = (await reindexProgress(deps.db)).remaining;
      languageReindexBacklog.set(result.remaining);
      result.workedMs = Date.now() - started;
      return result;
    },
  };
}
