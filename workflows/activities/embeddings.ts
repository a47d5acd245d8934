/**
 * The embedding activities (search by meaning): one meeting after its transcript is saved, and steps
 * of the backfill over the meetings the current model has not embedded. Each needs the worker's
 * embedder; a worker without one (no model configured) answers that nothing can be done, and the
 * workflows end without retrying.
 */
import { Context } from '@temporalio/activity';
import {
  embedLiveSentences,
  embeddingProgress,
  embedMeeting,
  liveMeetingsBehind,
  meetingsToEmbed,
  type EmbedOutcome,
} from '../../services/core/passages';
import { logger } from '../../services/platform/logger';
import { embeddingBacklog, meetingEmbeddings } from '../../services/platform/metrics';
import type { ActivityDeps } from './context';

export interface EmbedMeetingInput {
  meetingId: string;
}

export interface EmbedStepInput {
  /** The last meeting id a previous step did ('' at the start). */
  afterId: string;
  /** Meetings per step at most. */
  batchSize: number;
  /** How long one step keeps taking meetings. */
  budgetMs: number;
}

export interface EmbedStepResult {
  /** The model that embedded (null: no embedder on this worker). */
  model: string | null;
  embedded: number;
  failed: number;
  lastId: string;
  /** Nothing after lastId is left to embed. */
  done: boolean;
  /** Milliseconds the step worked (the workflow rests in proportion, so uploads keep their pace). */
  workedMs: number;
}

export interface EmbeddingActivities {
  embedMeetingStep(input: EmbedMeetingInput): Promise<EmbedOutcome | 'no-embedder'>;
  embedBackfillStep(input: EmbedStepInput): Promise<EmbedStepResult>;
  /** The new sentences of every live meeting; answers how many sentences were embedded. */
  embedLiveStep(): Promise<number>;
}

function heartbeat(details: unknown): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    // outside an activity (tests calling the function directly)
  }
}

export function createEmbeddingActivities(deps: ActivityDeps): EmbeddingActivities {
  return {
    async embedMeetingStep({ meetingId }) {
      const embedder = await deps.embedder?.();
      if (!embedder) return 'no-embedder';
      const outcome = await embedMeeting(deps.db, embedder, meetingId);
      meetingEmbeddings.inc({ outcome });
      return outcome;
    },

    async embedBackfillStep({ afterId, batchSize, budgetMs }) {
      const started = Date.now();
      const embedder = await deps.embedder?.();
      const result: EmbedStepResult = { model: null, embedded: 0, failed: 0, lastId: afterId, done: true, workedMs: 0 };
      if (!embedder) return result;
      const model = embedder.info.name;
      result.model = model;
      const ids = await meetingsToEmbed(deps.db, model, afterId, batchSize);
      result.done = ids.length < batchSize;
      for (const id of ids) {
        try {
          const outcome = await embedMeeting(deps.db, embedder, id);
          meetingEmbeddings.inc({ outcome });
          if (outcome === 'embedded') result.embedded++;
        } catch (e) {
          // One meeting that cannot be embedded must not stop the rest; the next backfill tries it again.
          result.failed++;
          meetingEmbeddings.inc({ outcome: 'failed' });
          logger.warn({ err: e, meetingId: id }, 'embedding a meeting failed; it stays searchable by keyword');
        }
        result.lastId = id;
        heartbeat(result.lastId);
        if (Date.now() - started >= budgetMs) {
          result.done = false;
          break;
        }
      }
      const progress = await embeddingProgress(deps.db, model);
      embeddingBacklog.set({ model }, progress.remaining);
      result.workedMs = Date.now() - started;
      return result;
    },

    async embedLiveStep() {
      const embedder = await deps.embedder?.();
      if (!embedder) return 0;
      let sentences = 0;
      for (const id of await liveMeetingsBehind(deps.db, embedder.info.name)) {
        sentences += await embedLiveSentences(deps.db, embedder, id);
        heartbeat(id);
      }
      return sentences;
    },
  };
}
