/**
 * A rule's actions, run in order through the same core functions as the MCP tools (../meetings/admin.ts:
 * shareMeeting, moveMeetings, updateMeetingPrivacy), as the rule's author, so their permission rules,
 * limits and audit rows are those of a person doing it by hand.
 *
 * Each action is idempotent: sharing again with an email renews its share instead of adding one,
 * moving into the channel the meeting is in and setting the privacy it has change nothing. A retried
 * run therefore never shares twice.
 *
 * An action refused by core (a channel deleted since the rule was saved, a meeting the author may no
 * longer manage) is recorded as `failed` with core's message, and the next action still runs. Any
 * other error (the database is down) is thrown, so the activity is retried as a whole.
 *
 * A dry run runs the very same calls inside one transaction that is rolled back: every check core
 * makes is made, and nothing changes (not even an audit row).
 */
import type { Knex } from 'knex';
import { ruleAuthorRefusal, type Principal } from '../access';
import { isServiceError } from '../../platform/errors';
import { moveMeetings, shareMeeting, updateMeetingPrivacy } from '../meetings';
import type { RuleAction } from './validation';

/**
 * done / failed: what a real run did. would_do / would_fail: what a dry run found would happen.
 * not_run: the rule's author may not act, or (test runs) its conditions did not hold.
 */
export type ActionStatus = 'done' | 'failed' | 'would_do' | 'would_fail' | 'not_run';

/**
 * One action as the execution log stores it (rule_executions.actions). svc_get_rule_executions shows
 * it as one clause: `share(emails=a@x.com b@y.com, expiry_days=7) -> done`.
 */
export type ActionOutcome = ActionDescription & { status: ActionStatus; error?: string };

export type ActionDescription =
  | { type: 'share'; emails: string[]; expiry_days: number | null }
  | { type: 'move'; channel_id: string }
  | { type: 'privacy'; privacy: string };

export function describeAction(a: RuleAction): ActionDescription {
  switch (a.type) {
    case 'share':
      return { type: 'share', emails: a.emails, expiry_days: a.expiry_days };
    case 'move':
      return { type: 'move', channel_id: a.channel_id };
    case 'privacy':
      return { type: 'privacy', privacy: a.privacy };
  }
}

/** Run one action as `author` against `db` (the pool, or a transaction for a dry run). */
async function perform(db: Knex, author: Principal, meetingId: string, a: RuleAction): Promise<void> {
  switch (a.type) {
    case 'share':
      await shareMeeting(db, author, {
        meetingId,
        emails: a.emails,
        ...(a.expiry_days !== null ? { expiryDays: a.expiry_days } : {}),
      });
      return;
    case 'move':
      await moveMeetings(db, author, { meetingIds: [meetingId], channelId: a.channel_id });
      return;
    case 'privacy':
      await updateMeetingPrivacy(db, author, { meetingId, privacy: a.privacy });
      return;
  }
}

async function runEach(
  db: Knex,
  author: Principal,
  meetingId: string,
  actions: RuleAction[],
  ok: ActionStatus,
  bad: ActionStatus,
): Promise<ActionOutcome[]> {
  const out: ActionOutcome[] = [];
  for (const a of actions) {
    try {
      await perform(db, author, meetingId, a);
      out.push({ ...describeAction(a), status: ok } as ActionOutcome);
    } catch (e) {
      if (!isServiceError(e) || e.code === 'internal_error') throw e;
      out.push({ ...describeAction(a), status: bad, error: e.message } as ActionOutcome);
    }
  }
  return out;
}

class DryRunDone extends Error {
  constructor(readonly outcomes: ActionOutcome[]) {
    super('dry run: rolled back');
  }
}

/** Run the actions for real, each in its own transaction (an action that fails leaves the others done). */
export function runActions(
  db: Knex,
  author: Principal,
  meetingId: string,
  actions: RuleAction[],
): Promise<ActionOutcome[]> {
  return runEach(db, author, meetingId, actions, 'done', 'failed');
}

/**
 * What the actions would do: the same calls in one transaction, each in a savepoint of its own (so
 * an action that would fail does not hide what the next would do), then all rolled back.
 */
export async function dryRunActions(
  db: Knex,
  author: Principal,
  meetingId: string,
  actions: RuleAction[],
): Promise<ActionOutcome[]> {
  try {
    await db.transaction(async (trx) => {
      throw new DryRunDone(await runEach(trx, author, meetingId, actions, 'would_do', 'would_fail'));
    });
  } catch (e) {
    if (e instanceof DryRunDone) return e.outcomes;
    throw e;
  }
  throw new Error('unreachable: a dry run always rolls back');
}

/** The actions listed as not run (author may not act; conditions not met in a test run). */
export const notRun = (actions: RuleAction[]): ActionOutcome[] =>
  actions.map((a) => ({ ...describeAction(a), status: 'not_run' }) as ActionOutcome);

/** success: every action done (or would be); failed: none; partial: some. */
export function statusOf(outcomes: ActionOutcome[]): 'success' | 'partial' | 'failed' {
  const good = outcomes.filter((o) => o.status === 'done' || o.status === 'would_do').length;
  if (good === outcomes.length) return 'success';
  return good === 0 ? 'failed' : 'partial';
}

/** The errors of the failed actions, one line: `actions.1 (move): channel "..." was not found ...`. */
export function errorsOf(outcomes: ActionOutcome[]): string | null {
  const lines = outcomes.flatMap((o, i) => (o.error ? [`actions.${i} (${o.type}): ${o.error}`] : []));
  return lines.length ? lines.join('; ') : null;
}

/** What acting as a rule's author needs of the rule: who saved it, its team, its actions. */
export interface RuleAuthorship {
  created_by: string | null;
  team_id: string;
  actions: RuleAction[];
}

/** The rule's author as a principal (as if they called the MCP tools themselves), or undefined when gone. */
async function authorOf(db: Knex, rule: RuleAuthorship): Promise<Principal | undefined> {
  if (!rule.created_by) return undefined;
  const u = await db('users as u')
    .join('teams as t', 't.id', 'u.team_id')
    .where('u.id', rule.created_by)
    .first('u.id', 'u.email', 'u.name', 'u.role', 't.id as team_id', 't.tier', 't.feature_flags');
  if (!u) return undefined;
  return {
    userId: u.id,
    teamId: u.team_id,
    email: u.email,
    name: u.name,
    role: u.role,
    tier: u.tier,
    flags: u.feature_flags,
  };
}

/** What a rule's actions came to: the execution's status, each action's outcome, the errors. */
export interface Acted {
  status: 'success' | 'partial' | 'failed';
  actions: ActionOutcome[];
  error: string | null;
}

/** Run (or dry-run) a rule's actions on a meeting as its author; a refused author runs nothing. */
export async function actAsAuthor(db: Knex, rule: RuleAuthorship, meetingId: string, dryRun: boolean): Promise<Acted> {
  const author = await authorOf(db, rule);
  const refusal = ruleAuthorRefusal(author, rule.team_id);
  if (refusal) return { status: 'failed', actions: notRun(rule.actions), error: refusal };
  const actions = dryRun
    ? await dryRunActions(db, author!, meetingId, rule.actions)
    : await runActions(db, author!, meetingId, rule.actions);
  return { status: statusOf(actions), actions, error: errorsOf(actions) };
}
