/**
 * RuleExecutionWorkflow: the team's automation rules on one meeting, after its transcript is
 * persisted or after a live meeting ends (a child of TranscriptionWorkflow or LiveMeetingWorkflow,
 * started by post-processing.ts). Workflow id `rules-<meetingId>`; parent-close policy ABANDON.
 *
 *   planRuleRun → for each matching rule, in order: executeRule (its actions, then its log row)
 *
 * A rule that fails does not stop the others: an action core refuses is recorded in the rule's own
 * execution (`partial`/`failed`); a rule whose activity runs out of retries is recorded `failed` by
 * recordRuleFailure and the run goes on. Every step is idempotent and the log is keyed by the run key
 * (`meeting:<meetingId>`), so running the workflow again for a meeting updates its log rows and never
 * shares twice.
 *
 * Deterministic: it only orders activities (imported as types).
 */
import { log, proxyLocalActivities } from '@temporalio/workflow';
import { failureMessage } from './contracts';
import type { RuleActivities, RulePlan, RuleRunOutcome } from './activities/rules';

export interface RuleExecutionInput {
  meetingId: string;
  /** Log rows of one run key are updated rather than added; default `meeting:<meetingId>`. */
  runKey?: string;
}

export interface RuleExecutionResult {
  meetingId: string;
  runKey: string;
  /** Why no rule ran at all (meeting gone, team not on Enterprise); null otherwise. */
  skipped: string | null;
  evaluated: number;
  matched: number;
  executions: RuleRunOutcome[];
}

/*
 * Local activities: each step is a few short queries (tens of milliseconds), so a round trip through
 * the Temporal server per step would cost more than the step itself (test/bench/rules.bench.ts).
 * They run in the worker that runs the workflow task and are recorded in history like any activity;
 * a retry waiting up to localRetryThreshold backs off inside the worker, a longer one on a server
 * timer (so a workflow task is never held open for long).
 */
const retry = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' } as const;

/** Reads only (every enabled rule against the meeting): retried for a while, a database restart must not lose a meeting's rules. */
const { planRuleRun } = proxyLocalActivities<Pick<RuleActivities, 'planRuleRun'>>({
  startToCloseTimeout: '1 minute',
  localRetryThreshold: '3 seconds',
  retry: { ...retry, maximumAttempts: 10 },
});

/** A few actions, each one short transaction. */
const { executeRule, recordRuleFailure } = proxyLocalActivities<
  Pick<RuleActivities, 'executeRule' | 'recordRuleFailure'>
>({
  startToCloseTimeout: '1 minute',
  localRetryThreshold: '3 seconds',
  retry: { ...retry, maximumAttempts: 5 },
});

const reasonOf = (e: unknown) => failureMessage(e);

export async function RuleExecutionWorkflow(input: RuleExecutionInput): Promise<RuleExecutionResult> {
  const { meetingId } = input;
  const runKey = input.runKey ?? `meeting:${meetingId}`;
  const plan: RulePlan = await planRuleRun({ meetingId, runKey });
  const result: RuleExecutionResult = {
    meetingId,
    runKey,
    skipped: plan.skipped,
    evaluated: plan.evaluated,
    matched: plan.matched.length,
    executions: [],
  };
  for (const ruleId of plan.matched) {
    try {
      result.executions.push(await executeRule({ meetingId, runKey, ruleId }));
    } catch (e) {
      const reason = reasonOf(e);
      log.warn('automation rule failed', { meetingId, ruleId, reason });
      let recorded = false;
      try {
        recorded = await recordRuleFailure({ meetingId, runKey, ruleId, reason });
      } catch (again) {
        log.error('could not record the failed rule', { meetingId, ruleId, reason: reasonOf(again) });
      }
      result.executions.push({ ruleId, status: recorded ? 'failed' : 'not_run', executionId: null, dryRun: false });
    }
  }
  return result;
}
