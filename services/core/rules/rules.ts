/**
 * Automation rules (README "Automation rules"; Enterprise tier): "when a meeting's transcript
 * is ready and it matches these conditions, do these actions". A team admin manages them over
 * GraphQL; RuleExecutionWorkflow runs them after every transcript (and when a live meeting ends).
 *
 * Who may: access.requireRuleManager (Enterprise, then admin). A rule acts as its author, the admin
 * who last saved it (created_by); access.ruleAuthorRefusal says when it no longer may.
 *
 * A run, per meeting (run key `meeting:<meetingId>`):
 *   1. planRuleRun: the team's enabled rules, oldest first, each evaluated against the meeting as it
 *      is before any rule acts, so one rule's action never decides whether another matches;
 *   2. executeRule, per matching rule in order: its actions as its author (actions.ts), or for
 *      a dry-run rule what they would do; then one rule_executions row.
 * The log row is keyed by (run_key, rule_id), so a retried or repeated run updates the row instead of
 * adding one, and idempotent actions never share twice.
 *
 * What is recorded, with which status:
 *   success: every action done · partial: some done, the others failed (each error recorded) ·
 *   failed: none done, or the rule could not act at all (its author is gone or no longer an admin,
 *   the run kept failing) · skipped: a test run (testRule) of a rule whose conditions do not hold.
 * A real run records nothing for a rule whose conditions do not hold (else every meeting would log
 * every rule), nor for a rule disabled or deleted between matching and running.
 */
import type { Knex } from 'knex';
import { channelVisibleTo, managedBy, requireRuleManager, ruleAuthorRefusal, rulesManagedBy } from '../access';
import { audit } from '../audit';
import { invalid, notFound } from '../../platform/errors';
import { newId } from '../ids';
import type { Principal } from '../principal';
import { ActionOutcome, dryRunActions, errorsOf, notRun, runActions, statusOf } from './actions';
import { allHeld, ConditionOutcome, evaluateConditions, loadMeetingFacts, matchesNothing, unmetReason } from './conditions';
import { RuleExecutionRecord, summarizeActions } from './executions';
import {
  channelRefs,
  checkRuleInput,
  checkRuleUpdate,
  CheckedRule,
  RULE_LIMITS,
  RuleAction,
  RuleCondition,
  RuleInput,
  RuleUpdateInput,
} from './validation';
import { keywordQuery } from '../meetings';
import { ruleExecutions as ruleExecutionsMetric } from '../../platform/metrics';

export type { RuleInput, RuleUpdateInput, RuleCondition, RuleAction } from './validation';

/** The run key of a meeting's automatic run: one log row per rule per meeting, however often it runs. */
export const meetingRunKey = (meetingId: string) => `meeting:${meetingId}`;
/** The run key of testRule: one dry-run row per rule per meeting, replaced by the next test. */
export const testRunKey = (meetingId: string) => `test:${meetingId}`;

export type ExecutionStatus = 'success' | 'partial' | 'failed' | 'skipped';

// ---------------------------------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------------------------------

export interface RuleRecord {
  id: string;
  name: string;
  enabled: boolean;
  dry_run: boolean;
  conditions: RuleCondition[];
  actions: RuleAction[];
  /** The admin the rule acts as: whoever last created or updated it (null when that user is gone). */
  author_id: string | null;
  author_email: string | null;
  created_at: string;
  updated_at: string;
}

interface RuleRow {
  id: string;
  team_id: string;
  name: string;
  enabled: boolean;
  dry_run: boolean;
  conditions: RuleCondition[];
  actions: RuleAction[];
  created_by: string | null;
  author_email?: string | null;
  created_at: Date;
  updated_at: Date;
}

function toRuleRecord(r: RuleRow): RuleRecord {
  return {
    id: r.id,
    name: r.name,
    enabled: r.enabled,
    dry_run: r.dry_run,
    conditions: r.conditions,
    actions: r.actions,
    author_id: r.created_by,
    author_email: r.author_email ?? null,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

const ruleColumns = (db: Knex) => ['r.*', db.raw('(select u.email from users u where u.id = r.created_by) as author_email')];

async function findRule(db: Knex, p: Principal, id: string, field = 'id'): Promise<RuleRow> {
  const ruleId = (id ?? '').trim();
  if (!ruleId) throw invalid(field, 'required', `${field} is required: the id of one of your team's rules`);
  const row = await db('rules as r').modify(rulesManagedBy(p, 'r')).where('r.id', ruleId).first(ruleColumns(db));
  if (!row) throw notFound('rule', ruleId);
  return row;
}

// ---------------------------------------------------------------------------------------------------
// Managing rules
// ---------------------------------------------------------------------------------------------------

/** The checks that need the database: channels of the caller's team, keywords that can match. */
async function checkReferences(db: Knex, p: Principal, rule: Pick<CheckedRule, 'conditions' | 'actions'>): Promise<void> {
  const refs = channelRefs(rule);
  if (refs.length) {
    const found = new Set(
      (await db('channels as c').modify(channelVisibleTo(p, 'c')).whereIn('c.id', [...new Set(refs.map((r) => r.id))]).select('c.id')).map((r: { id: string }) => r.id),
    );
    const missing = refs.find((r) => !found.has(r.id));
    if (missing) {
      throw invalid(missing.field, 'must be a channel of your team', `${missing.field}: channel ${JSON.stringify(missing.id)} is not a channel of your team; list them with svc_list_channels`);
    }
  }
  for (const [i, c] of rule.conditions.entries()) {
    if (c.type === 'keyword' && matchesNothing(await keywordQuery(db, c.text))) {
      throw invalid(`conditions.${i}.text`, 'must contain a word that is not a stop word', `conditions.${i}.text: ${JSON.stringify(c.text)} has only stop words (like "the", "and"), which the search ignores, so it could never match`);
    }
  }
}

export async function listRules(db: Knex, p: Principal): Promise<RuleRecord[]> {
  requireRuleManager(p);
  const rows: RuleRow[] = await db('rules as r').modify(rulesManagedBy(p, 'r')).orderBy([{ column: 'r.created_at' }, { column: 'r.id' }]).select(ruleColumns(db));
  return rows.map(toRuleRecord);
}

export async function getRule(db: Knex, p: Principal, id: string): Promise<RuleRecord> {
  requireRuleManager(p);
  return toRuleRecord(await findRule(db, p, id));
}

export async function createRule(db: Knex, p: Principal, input: RuleInput): Promise<RuleRecord> {
  requireRuleManager(p);
  const rule = checkRuleInput(input);
  await checkReferences(db, p, rule);
  const id = await db.transaction(async (trx) => {
    // The team row lock serializes creations, so the per-team cap holds under concurrency.
    await trx('teams').where('id', p.teamId).forUpdate().first('id');
    const [{ n }] = await trx('rules').where('team_id', p.teamId).count({ n: '*' });
    if (Number(n) >= RULE_LIMITS.rulesPerTeam) {
      throw invalid('input', `at most ${RULE_LIMITS.rulesPerTeam} rules per team`, `your team has ${n} rules: at most ${RULE_LIMITS.rulesPerTeam} rules per team; delete or combine rules first`);
    }
    const row = {
      id: newId(),
      team_id: p.teamId,
      name: rule.name,
      enabled: true,
      dry_run: rule.dry_run,
      conditions: JSON.stringify(rule.conditions),
      actions: JSON.stringify(rule.actions),
      created_by: p.userId,
    };
    await trx('rules').insert(row);
    await audit(trx, p, 'rule.create', { type: 'rule', id: row.id }, { name: rule.name, dry_run: rule.dry_run });
    return row.id;
  });
  return getRule(db, p, id);
}

/** Change a rule's name, conditions, actions or dry_run (absent keeps them); the caller becomes its author. */
export async function updateRule(db: Knex, p: Principal, id: string, input: RuleUpdateInput): Promise<RuleRecord> {
  requireRuleManager(p);
  const change = checkRuleUpdate(input);
  const existing = await findRule(db, p, id);
  await checkReferences(db, p, { conditions: change.conditions ?? [], actions: change.actions ?? [] });
  await db.transaction(async (trx) => {
    const updated = await trx('rules')
      .where({ id: existing.id, team_id: p.teamId })
      .update({
        ...(change.name !== undefined ? { name: change.name } : {}),
        ...(change.conditions !== undefined ? { conditions: JSON.stringify(change.conditions) } : {}),
        ...(change.actions !== undefined ? { actions: JSON.stringify(change.actions) } : {}),
        ...(change.dry_run !== undefined ? { dry_run: change.dry_run } : {}),
        created_by: p.userId,
        updated_at: trx.fn.now(),
      });
    if (!updated) throw notFound('rule', existing.id);
    await audit(trx, p, 'rule.update', { type: 'rule', id: existing.id }, { changed: Object.keys(change), previous_author: existing.created_by });
  });
  return getRule(db, p, existing.id);
}

export async function setRuleEnabled(db: Knex, p: Principal, id: string, enabled: boolean): Promise<RuleRecord> {
  requireRuleManager(p);
  if (typeof enabled !== 'boolean') throw invalid('enabled', 'true or false');
  const existing = await findRule(db, p, id);
  if (existing.enabled !== enabled) {
    await db.transaction(async (trx) => {
      await trx('rules').where({ id: existing.id, team_id: p.teamId }).update({ enabled, updated_at: trx.fn.now() });
      await audit(trx, p, enabled ? 'rule.enable' : 'rule.disable', { type: 'rule', id: existing.id });
    });
  }
  return getRule(db, p, existing.id);
}

/** Delete a rule. Its past executions stay in the log (they carry the rule's id and name). */
export async function deleteRule(db: Knex, p: Principal, id: string): Promise<{ success: true; id: string; name: string }> {
  requireRuleManager(p);
  const existing = await findRule(db, p, id);
  await db.transaction(async (trx) => {
    await trx('rules').where({ id: existing.id, team_id: p.teamId }).delete();
    await audit(trx, p, 'rule.delete', { type: 'rule', id: existing.id }, { name: existing.name });
  });
  return { success: true, id: existing.id, name: existing.name };
}

// ---------------------------------------------------------------------------------------------------
// The execution log
// ---------------------------------------------------------------------------------------------------

interface ExecutionWrite {
  teamId: string;
  rule: { id: string; name: string };
  meetingId: string;
  runKey: string;
  status: ExecutionStatus;
  actions: ActionOutcome[];
  error: string | null;
  dryRun: boolean;
}

/**
 * One execution, in the shape svc_get_rule_executions reads. Keyed by (run_key, rule_id): a retry
 * updates the row (keeping its id) and rule_executions_total counts each execution once.
 */
export async function recordExecution(db: Knex, w: ExecutionWrite): Promise<RuleExecutionRecord> {
  const [row] = await db('rule_executions')
    .insert({
      id: newId(),
      team_id: w.teamId,
      rule_id: w.rule.id,
      rule_name: w.rule.name,
      meeting_id: w.meetingId,
      run_key: w.runKey,
      status: w.status,
      actions: JSON.stringify(w.actions),
      error: w.error,
      dry_run: w.dryRun,
      executed_at: db.fn.now(),
    })
    .onConflict(['run_key', 'rule_id'])
    .merge(['rule_name', 'status', 'actions', 'error', 'dry_run', 'executed_at'])
    .returning(['id', 'rule_id', 'rule_name', 'status', 'actions', 'error', 'dry_run', 'executed_at', db.raw('(xmax = 0) as inserted')]);
  if (row.inserted) ruleExecutionsMetric.inc({ status: w.status });
  return {
    id: row.id,
    rule_id: row.rule_id,
    rule_name: row.rule_name,
    status: row.status,
    actions: summarizeActions(row.actions),
    error: row.error ?? null,
    dry_run: row.dry_run,
    executed_at: new Date(row.executed_at).toISOString(),
  };
}

/** The rule's author as a principal (as if they called the MCP tools themselves), or undefined when gone. */
async function authorOf(db: Knex, rule: RuleRow): Promise<Principal | undefined> {
  if (!rule.created_by) return undefined;
  const u = await db('users as u')
    .join('teams as t', 't.id', 'u.team_id')
    .where('u.id', rule.created_by)
    .first('u.id', 'u.email', 'u.name', 'u.role', 't.id as team_id', 't.tier', 't.feature_flags');
  if (!u) return undefined;
  return { userId: u.id, teamId: u.team_id, email: u.email, name: u.name, role: u.role, tier: u.tier, flags: u.feature_flags };
}

interface Acted {
  status: ExecutionStatus;
  actions: ActionOutcome[];
  error: string | null;
}

/** Run (or dry-run) a rule's actions on a meeting as its author; a refused author runs nothing. */
async function act(db: Knex, rule: RuleRow, meetingId: string, dryRun: boolean): Promise<Acted> {
  const author = await authorOf(db, rule);
  const refusal = ruleAuthorRefusal(author, rule.team_id);
  if (refusal) return { status: 'failed', actions: notRun(rule.actions), error: refusal };
  const actions = dryRun ? await dryRunActions(db, author!, meetingId, rule.actions) : await runActions(db, author!, meetingId, rule.actions);
  return { status: statusOf(actions), actions, error: errorsOf(actions) };
}

// ---------------------------------------------------------------------------------------------------
// Test a rule (GraphQL testRule)
// ---------------------------------------------------------------------------------------------------

export interface RuleTestResult {
  /** All conditions hold for the meeting (an empty list always does). */
  matched: boolean;
  conditions: ConditionOutcome[];
  /** Each action with would_do, would_fail (and why) or not_run. */
  actions: ActionOutcome[];
  /** The log entry recorded (dry_run true; status skipped when the conditions do not hold). */
  execution: RuleExecutionRecord;
}

/**
 * What the rule would do to one meeting of the team right now, changing nothing: every condition is
 * evaluated (not only up to the first that fails), the actions run as the rule's author inside a
 * transaction that is rolled back, and the outcome is logged with dry_run true under the run key
 * `test:<meetingId>` (the next test of the same rule and meeting replaces it). Works on disabled rules.
 */
export async function testRule(db: Knex, p: Principal, input: { ruleId: string; meetingId: string }): Promise<RuleTestResult> {
  requireRuleManager(p);
  const rule = await findRule(db, p, input.ruleId, 'ruleId');
  const meetingId = (input.meetingId ?? '').trim();
  if (!meetingId) throw invalid('meetingId', 'required', 'meetingId is required');
  // Rules act on their team's meetings only (never on one shared from another team).
  const own = await db('meetings as m').modify(managedBy(p, 'm')).where('m.id', meetingId).first('m.id');
  const facts = own ? await loadMeetingFacts(db, meetingId) : undefined;
  if (!facts) throw notFound('meeting', meetingId);

  const conditions = await evaluateConditions(db, facts, rule.conditions, { all: true });
  const matched = allHeld(conditions, rule.conditions);
  const acted: Acted = matched ? await act(db, rule, facts.id, true) : { status: 'skipped', actions: notRun(rule.actions), error: unmetReason(conditions) };
  const execution = await recordExecution(db, {
    teamId: rule.team_id,
    rule: { id: rule.id, name: rule.name },
    meetingId: facts.id,
    runKey: testRunKey(facts.id),
    ...acted,
    dryRun: true,
  });
  return { matched, conditions, actions: acted.actions, execution };
}

// ---------------------------------------------------------------------------------------------------
// Runs (RuleExecutionWorkflow's activities call these)
// ---------------------------------------------------------------------------------------------------

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
  if (team?.tier !== 'enterprise') return { ...base, skipped: `automation rules need the Enterprise tier; the team is on ${team?.tier ?? 'no tier'}` };
  const rules: RuleRow[] = await db('rules').where({ team_id: facts.team_id, enabled: true }).orderBy([{ column: 'created_at' }, { column: 'id' }]).select('*');
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
export async function executeRule(db: Knex, input: { meetingId: string; ruleId: string; runKey: string }): Promise<RuleRunOutcome> {
  const rule: RuleRow | undefined = await db('rules').where({ id: input.ruleId }).first();
  const meeting = await db('meetings').where({ id: input.meetingId }).first('id', 'team_id');
  if (!rule || !rule.enabled || !meeting || meeting.team_id !== rule.team_id) {
    return { ruleId: input.ruleId, status: 'not_run', executionId: null, dryRun: false };
  }
  const acted = await act(db, rule, input.meetingId, rule.dry_run);
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
export async function recordRuleFailure(db: Knex, input: { meetingId: string; ruleId: string; runKey: string; reason: string }): Promise<boolean> {
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
