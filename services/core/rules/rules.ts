/**
 * Automation rules (docs/rules.md; Enterprise tier): "when a meeting's transcript
 * is ready and it matches these conditions, do these actions". This is the API's side: a team admin
 * lists, saves, enables, deletes and tests them over GraphQL. RuleExecutionWorkflow runs them after
 * every transcript (and when a live meeting ends): the worker's side is run.ts.
 *
 * Who may: access.requireRuleManager (Enterprise, then admin). A rule acts as its author, the admin
 * who last saved it (created_by); access.ruleAuthorRefusal says when it no longer may.
 *
 * What is recorded, with which status (executions.ts):
 *   success: every action done · partial: some done, the others failed (each error recorded) ·
 *   failed: none done, or the rule could not act at all (its author is gone or no longer an admin,
 *   the run kept failing) · skipped: a test run (testRule) of a rule whose conditions do not hold.
 */
import type { Knex } from 'knex';
import { channelVisibleTo, managedBy, requireRuleManager, rulesManagedBy, type Principal } from '../access';
import { audit } from '../audit';
import { invalid, notFound } from '../../platform/errors';
import { newId } from '../input';
import { ActionOutcome, actAsAuthor, notRun } from './actions';
import {
  allHeld,
  ConditionOutcome,
  evaluateConditions,
  loadMeetingFacts,
  matchesNothing,
  unmetReason,
} from './conditions';
import { recordExecution, type ExecutionWrite, type RuleExecutionRecord } from './executions';
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

export type { RuleInput, RuleUpdateInput, RuleCondition, RuleAction } from './validation';

/** The run key of testRule: one dry-run row per rule per meeting, replaced by the next test. */
export const testRunKey = (meetingId: string) => `test:${meetingId}`;

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

/** A rule as stored (rules). */
export interface RuleRow {
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

const ruleColumns = (db: Knex) => [
  'r.*',
  db.raw('(select u.email from users u where u.id = r.created_by) as author_email'),
];

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
async function checkReferences(
  db: Knex,
  p: Principal,
  rule: Pick<CheckedRule, 'conditions' | 'actions'>,
): Promise<void> {
  const refs = channelRefs(rule);
  if (refs.length) {
    const found = new Set(
      (
        await db('channels as c')
          .modify(channelVisibleTo(p, 'c'))
          .whereIn('c.id', [...new Set(refs.map((r) => r.id))])
          .select('c.id')
      ).map((r: { id: string }) => r.id),
    );
    const missing = refs.find((r) => !found.has(r.id));
    if (missing) {
      throw invalid(
        missing.field,
        'must be a channel of your team',
        `${missing.field}: channel ${JSON.stringify(missing.id)} is not a channel of your team; list them with svc_list_channels`,
      );
    }
  }
  for (const [i, c] of rule.conditions.entries()) {
    if (c.type === 'keyword' && matchesNothing(await keywordQuery(db, c.text))) {
      throw invalid(
        `conditions.${i}.text`,
        'must contain a word that is not a stop word',
        `conditions.${i}.text: ${JSON.stringify(c.text)} has only stop words (like "the", "and"), which the search ignores, so it could never match`,
      );
    }
  }
}

export async function listRules(db: Knex, p: Principal): Promise<RuleRecord[]> {
  requireRuleManager(p);
  const rows: RuleRow[] = await db('rules as r')
    .modify(rulesManagedBy(p, 'r'))
    .orderBy([{ column: 'r.created_at' }, { column: 'r.id' }])
    .select(ruleColumns(db));
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
      throw invalid(
        'input',
        `at most ${RULE_LIMITS.rulesPerTeam} rules per team`,
        `your team has ${n} rules: at most ${RULE_LIMITS.rulesPerTeam} rules per team; delete or combine rules first`,
      );
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
    await audit(
      trx,
      p,
      'rule.update',
      { type: 'rule', id: existing.id },
      { changed: Object.keys(change), previous_author: existing.created_by },
    );
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
export async function deleteRule(
  db: Knex,
  p: Principal,
  id: string,
): Promise<{ success: true; id: string; name: string }> {
  requireRuleManager(p);
  const existing = await findRule(db, p, id);
  await db.transaction(async (trx) => {
    await trx('rules').where({ id: existing.id, team_id: p.teamId }).delete();
    await audit(trx, p, 'rule.delete', { type: 'rule', id: existing.id }, { name: existing.name });
  });
  return { success: true, id: existing.id, name: existing.name };
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
export async function testRule(
  db: Knex,
  p: Principal,
  input: { ruleId: string; meetingId: string },
): Promise<RuleTestResult> {
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
  const acted: Pick<ExecutionWrite, 'status' | 'actions' | 'error'> = matched
    ? await actAsAuthor(db, rule, facts.id, true)
    : { status: 'skipped', actions: notRun(rule.actions), error: unmetReason(conditions) };
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
