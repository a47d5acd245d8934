/**
 * The worker's side of automation rules: RuleExecutionWorkflow's activities run the team's rules on a
 * meeting after every transcript (and when a live meeting ends). Managing and testing rules is the
 * API's side (rules.ts).
 *
 * A run, per meeting (run key `meeting:<meetingId>`):
 *   1. planRuleRun: the team's enabled rules, oldest first, each evaluated against the meeting as it
 *      is before any rule acts, so one rule's action never decides whether another matches;
 *   2. executeRule, per matching rule in order: its actions as its author (actions.ts), or for
 *      a dry-run rule what they would do; then one rule_executions row (executions.ts).
 * The log row is keyed by (run_key, rule_id), so a retried or repeated run updates the row instead of
 * adding one, and idempotent actions never share twice.
 *
 * A real run records nothing for a rule whose conditions do not hold (else every meeting would log
 * every rule), nor for a rule disabled or deleted between matching and running.
 */
import type { Knex } from 'knex';
import { actAsAuthor, notRun } from './actions';
import { allHeld, evaluateConditions, loadMeetingFacts } from './conditions';
import { recordExecution, type ExecutionStatus } from './executions';
import type { RuleRow } from './rules';

/** The run key of a meeting's automatic run: one log row per rule per meeting, however often it runs. */
export const meetingRunKey = (meetingId: string) => `meeting:${meetingId}`;

export interface RulePlan {
  meetingId: string;
  runKey: string;
  /** Why nothing runs: the meeting is gone, or its team is not on the Enterprise tier. */
  skipped: string | null;
  /** Enabled rules evaluated. */
  evaluated: number;
  /** Ids of the rules whose conditions hold, in the order they run (oldest rule first). */
  matched: string[];
}

/** Which of the team's enabled rules match the meeting, evaluated before any of them acts. */
export async function planRuleRun(db: Knex, meetingId: string, runKey = meetingRunKey(meetingId)): Promise<RulePlan> {
  const base = { meetingId, runKey, evaluated: 0, matched: [] as string[] };
  const facts = await loadMeetingFacts(db, meetingId);
  if (!facts) return { ...base, skipped: 'the meeting no longer exists' };
  const team = await db('teams').where('id', facts.team_id).first('tier');
  if (team?.tier !== 'enterprise')
    return { ...base, skipped: `automation rules need the Enterprise tier; the team is on ${team?.tier ?? 'no tier'}` };
  const rules: RuleRow[] = await db('rules')
    .where({ team_id: facts.team_id, enabled: true })
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select('*');
  const matched: string[] = [];
  for (const rule of rules) {
    const outcomes = await evaluateConditions(db, facts, rule.conditions);
    if (allHeld(outcomes, rule.conditions)) matched.push(rule.id);
  }
  return { ...base, skipped: null, evaluated: rules.length, matched };
}

export interface RuleRunOutcome {
  ruleId: string;
  /** not_run: the rule was disabled or deleted after it matched; nothing recorded. */
  status: ExecutionStatus | 'not_run';
  executionId: string | null;
  dryRun: boolean;
}

/** Run one matched rule on the meeting (its actions, or a dry run) and record the execution. */
export async function executeRule(
  db: Knex,
  input: { meetingId: string; ruleId: string; runKey: string },
): Promise<RuleRunOutcome> {
  const rule: RuleRow | undefined = await db('rules').where({ id: input.ruleId }).first();
  const meeting = await db('meetings').where({ id: input.meetingId }).first('id', 'team_id');
  if (!rule || !rule.enabled || !meeting || meeting.team_id !== rule.team_id) {
    return { ruleId: input.ruleId, status: 'not_run', executionId: null, dryRun: false };
  }
  const acted = await actAsAuthor(db, rule, input.meetingId, rule.dry_run);
  const execution = await recordExecution(db, {
    teamId: rule.team_id,
    rule: { id: rule.id, name: rule.name },
    meetingId: input.meetingId,
    runKey: input.runKey,
    ...acted,
    dryRun: rule.dry_run,
  });
  return { ruleId: rule.id, status: acted.status, executionId: execution.id, dryRun: rule.dry_run };
}

/**
 * The last word on a rule whose run kept failing (its activity ran out of retries): `failed` with the
 * reason, unless the rule or meeting is gone by now. Its actions are listed as not known.
 */
export async function recordRuleFailure(
  db: Knex,
  input: { meetingId: string; ruleId: string; runKey: string; reason: string },
): Promise<boolean> {
  const rule: RuleRow | undefined = await db('rules').where({ id: input.ruleId }).first();
  const meeting = await db('meetings').where({ id: input.meetingId }).first('id', 'team_id');
  if (!rule || !meeting || meeting.team_id !== rule.team_id) return false;
  await recordExecution(db, {
    teamId: rule.team_id,
    rule: { id: rule.id, name: rule.name },
    meetingId: input.meetingId,
    runKey: input.runKey,
    status: 'failed',
    // The rule may be what failed (its stored actions unreadable): list them only when they are a list.
    actions: Array.isArray(rule.actions) ? notRun(rule.actions) : [],
    error: `the rule could not be run: ${input.reason}; some of its actions may have been done`,
    dryRun: rule.dry_run,
  });
  return true;
}
