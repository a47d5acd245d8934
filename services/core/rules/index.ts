/**
 * Automation rules: their rules of input, CRUD and test runs, the run the worker executes, the
 * execution log.
 *
 * The domain's API: what other layers and domains use. Tests that need more import the file itself.
 */

// A rule as a caller writes it.
export type { RuleInput, RuleUpdateInput } from './validation';

// Managing and testing rules (the API's side).
export { createRule, deleteRule, getRule, listRules, setRuleEnabled, testRule, updateRule } from './rules';

// Running the team's rules on a meeting (the worker's side).
export { executeRule, planRuleRun, recordRuleFailure } from './run';
export type { RulePlan, RuleRunOutcome } from './run';

// The execution log and its page limits.
export { DEFAULT_GROUP_LIMIT, listRuleExecutions, MAX_GROUP_LIMIT, RULE_LOG_TOKENS } from './executions';
