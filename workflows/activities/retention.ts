/**
 * The retention activities, bound to their dependencies: batches of the daily retention run, each a
 * short transaction (services/core/retention), repeated within one activity for up to a time budget
 * so a large backlog costs few workflow events; the workflow calls again until nothing is left.
 */
import { Context } from '@temporalio/activity';
import { pruneChanges } from '../../services/core/changes';
import { deleteExpiredMeetings, pruneReadAudit } from '../../services/core/retention';
import type { ActivityDeps } from './context';

export interface RetentionStepInput {
  /** The run's instant (ISO 8601): what is older than a period before it goes. */
  now: string;
  /** Rows (meetings, or read-audit rows) per transaction. */
  batchSize: number;
  /** How long one activity keeps taking batches before it answers. */
  budgetMs: number;
}

export interface RetentionStepResult {
  deleted: number;
  /** Nothing left to delete as of `now`. */
  done: boolean;
}

export interface RetentionActivities {
  deleteExpiredMeetingsStep(input: RetentionStepInput): Promise<RetentionStepResult>;
  pruneReadAuditStep(input: RetentionStepInput): Promise<RetentionStepResult>;
}

function heartbeat(details: number): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    // outside an activity (tests calling the function directly)
  }
}

async function batches(
  input: RetentionStepInput,
  one: (now: Date, batch: number) => Promise<number>,
): Promise<RetentionStepResult> {
  const now = new Date(input.now);
  const started = Date.now();
  let deleted = 0;
  for (;;) {
    const n = await one(now, input.batchSize);
    deleted += n;
    heartbeat(deleted);
    if (n < input.batchSize) return { deleted, done: true };
    if (Date.now() - started >= input.budgetMs) return { deleted, done: false };
  }
}

export function createRetentionActivities(deps: ActivityDeps): RetentionActivities {
  return {
    deleteExpiredMeetingsStep: (input) => batches(input, (now, batch) => deleteExpiredMeetings(deps.db, now, batch)),
    // The logs' pruning: the read audit, then the change log (one activity, so the workflow's history
    // is the one released workflows replay).
    pruneReadAuditStep: async (input) => {
      const reads = await batches(input, (now, batch) =>
        pruneReadAudit(deps.db, now, deps.config.readAudit.retentionMs, batch),
      );
      if (!reads.done) return reads;
      const changes = await batches(input, (now, batch) =>
        pruneChanges(deps.db, now, deps.config.changesRetentionMs, batch),
      );
      return { deleted: reads.deleted + changes.deleted, done: changes.done };
    },
  };
}
