/**
 * The activities of RuleExecutionWorkflow: plan (which enabled rules match the meeting), execute one
 * matched rule (its actions as its author, then its log row), and record a rule whose execution kept
 * failing. Each is idempotent: the plan only reads; an execution's actions are idempotent and its log
 * row is keyed by (run_key, rule_id), so a retried attempt updates what the first one wrote.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { executeRule, planRuleRun, recordRuleFailure, RulePlan, RuleRunOutcome } from '../../services/core/rules';
import { logger } from '../../services/platform/logger';
import type { ActivityDeps } from './context';

export type { RulePlan, RuleRunOutcome } from '../../services/core/rules';

export interface RuleStepInput {
  meetingId: string;
  runKey: string;
}

export interface RuleActivities {
  planRuleRun(input: RuleStepInput): Promise<RulePlan>;
  executeRule(input: RuleStepInput & { ruleId: string }): Promise<RuleRunOutcome>;
  recordRuleFailure(input: RuleStepInput & { ruleId: string; reason: string }): Promise<boolean>;
}

/**
 * Whatever went wrong here is ours (the database, a bug): retried by the workflow's policy, with a
 * message fit for the execution log (the details go to the worker's log, never to a caller).
 */
async function step<T>(name: string, context: Record<string, unknown>, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof ApplicationFailure) throw e;
    logger.error({ err: e, step: name, ...context }, 'automation rule step failed');
    throw ApplicationFailure.retryable(`${name} failed on the server side (logged)`, 'RuleStepFailed');
  }
}

export function createRuleActivities(deps: ActivityDeps): RuleActivities {
  return {
    planRuleRun: (input) =>
      step('planning the rules', { meetingId: input.meetingId }, () =>
        planRuleRun(deps.db, input.meetingId, input.runKey),
      ),
    executeRule: (input) =>
      step('running the rule', { meetingId: input.meetingId, ruleId: input.ruleId }, () => executeRule(deps.db, input)),
    recordRuleFailure: (input) =>
      step('recording the failed rule', { meetingId: input.meetingId, ruleId: input.ruleId }, () =>
        recordRuleFailure(deps.db, input),
      ),
  };
}
