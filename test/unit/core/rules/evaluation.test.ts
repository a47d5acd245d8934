/**
 * Conditions decided from a meeting's facts (keyword conditions ask PostgreSQL and are tested in
 * test/integration/core/rules), the status of an execution from its actions, and the workflow helpers.
 */
import type { Knex } from 'knex';
import { errorsOf, statusOf, ActionOutcome } from '../../../../services/core/rules/actions';
import { allHeld, evaluateConditions, MeetingFacts, unmetReason } from '../../../../services/core/rules/conditions';
import type { RuleCondition } from '../../../../services/core/rules/validation';
import {
  ruleExecutionWorkflowId as coreWorkflowId,
  RULE_EXECUTION_WORKFLOW as CORE_TYPE,
} from '../../../../workflows/contracts';
import { postProcessingChildren } from '../../../../workflows/post-processing';
import { RULE_EXECUTION_WORKFLOW, ruleExecutionWorkflowId } from '../../../../workflows/contracts';
import { ruleExecutionChild } from '../../../../workflows/post-processing';

/** No keyword condition reaches the database in these tests. */
const noDb = null as unknown as Knex;

const facts: MeetingFacts = {
  id: 'M1',
  team_id: 'T1',
  title: 'Q1 Board Review',
  organizer_email: 'Ana@Example.com',
  channel_id: 'C1',
  duration_seconds: 1800,
  status: 'completed',
  meeting_type: 'planning',
  participants: ['ana@example.com', 'bo@partner.test', 'cy@eu.partner.test'],
};

async function holds(c: RuleCondition, f: MeetingFacts = facts): Promise<boolean> {
  const [o] = await evaluateConditions(noDb, f, [c]);
  return o.held;
}

describe('conditions against a meeting', () => {
  it('title_contains ignores case and matches inside words', async () => {
    expect(await holds({ type: 'title_contains', text: 'board' })).toBe(true);
    expect(await holds({ type: 'title_contains', text: 'BOARD REV' })).toBe(true);
    expect(await holds({ type: 'title_contains', text: 'Boardroom' })).toBe(false);
  });

  it('organizer by email (any case) or by exact domain', async () => {
    expect(await holds({ type: 'organizer', email: 'ana@example.com' })).toBe(true);
    expect(await holds({ type: 'organizer', email: 'bo@partner.test' })).toBe(false);
    expect(await holds({ type: 'organizer', domain: 'example.com' })).toBe(true);
    expect(await holds({ type: 'organizer', domain: 'ample.com' })).toBe(false);
  });

  it('participant by email or by domain, a subdomain not counting as the domain', async () => {
    expect(await holds({ type: 'participant', email: 'bo@partner.test' })).toBe(true);
    expect(await holds({ type: 'participant', email: 'zed@partner.test' })).toBe(false);
    expect(await holds({ type: 'participant', domain: 'partner.test' })).toBe(true);
    expect(await holds({ type: 'participant', domain: 'eu.partner.test' })).toBe(true);
    expect(await holds({ type: 'participant', domain: 'other.test' })).toBe(false);
    expect(
      await holds({ type: 'participant', domain: 'partner.test' }, { ...facts, participants: ['cy@eu.partner.test'] }),
    ).toBe(false);
  });

  it('meeting_type, channel', async () => {
    expect(await holds({ type: 'meeting_type', meeting_type: 'planning' })).toBe(true);
    expect(await holds({ type: 'meeting_type', meeting_type: 'sales' })).toBe(false);
    expect(await holds({ type: 'meeting_type', meeting_type: 'general' }, { ...facts, meeting_type: null })).toBe(
      false,
    );
    expect(await holds({ type: 'channel', channel_id: 'C1' })).toBe(true);
    expect(await holds({ type: 'channel', channel_id: 'C2' })).toBe(false);
    expect(await holds({ type: 'channel', channel_id: 'C1' }, { ...facts, channel_id: null })).toBe(false);
  });

  it('min_duration on both sides of the boundary (30 min = 1800 s)', async () => {
    expect(await holds({ type: 'min_duration', minutes: 30 })).toBe(true);
    expect(await holds({ type: 'min_duration', minutes: 30 }, { ...facts, duration_seconds: 1799.9 })).toBe(false);
    expect(await holds({ type: 'min_duration', minutes: 31 })).toBe(false);
    expect(await holds({ type: 'min_duration', minutes: 0 }, { ...facts, duration_seconds: 0 })).toBe(true);
  });

  it('stops at the first unmet condition unless asked for all, and says why', async () => {
    const conditions: RuleCondition[] = [
      { type: 'title_contains', text: 'board' },
      { type: 'channel', channel_id: 'C9' },
      { type: 'min_duration', minutes: 5 },
    ];
    const some = await evaluateConditions(noDb, facts, conditions);
    expect(some.map((o) => o.held)).toEqual([true, false]);
    expect(allHeld(some, conditions)).toBe(false);
    const all = await evaluateConditions(noDb, facts, conditions, { all: true });
    expect(all.map((o) => o.held)).toEqual([true, false, true]);
    expect(unmetReason(all)).toBe(
      'conditions not met: condition 1 (channel) does not hold: not (meeting is in channel C9): meeting is in channel C1',
    );
    expect(allHeld([], [])).toBe(true);
    expect(unmetReason(await evaluateConditions(noDb, facts, [conditions[0]]))).toBeNull();
  });
});

describe('execution status', () => {
  const o = (status: ActionOutcome['status'], error?: string): ActionOutcome => ({
    type: 'privacy',
    privacy: 'owner',
    status,
    ...(error ? { error } : {}),
  });

  it('is success when every action is done (or would be), failed when none, partial otherwise', () => {
    expect(statusOf([o('done'), o('done')])).toBe('success');
    expect(statusOf([o('would_do')])).toBe('success');
    expect(statusOf([o('done'), o('failed', 'x')])).toBe('partial');
    expect(statusOf([o('would_fail', 'x'), o('would_do')])).toBe('partial');
    expect(statusOf([o('failed', 'x')])).toBe('failed');
    expect(statusOf([o('not_run')])).toBe('failed');
  });

  it('names each failed action by position in the error', () => {
    expect(errorsOf([o('done'), o('failed', 'channel "C" was not found')])).toBe(
      'actions.1 (privacy): channel "C" was not found',
    );
    expect(errorsOf([o('done')])).toBeNull();
  });
});

describe('workflow helpers', () => {
  it('agree with core on the workflow type and id', () => {
    expect(RULE_EXECUTION_WORKFLOW).toBe(CORE_TYPE);
    expect(ruleExecutionWorkflowId('01ABC')).toBe(coreWorkflowId('01ABC'));
    expect(ruleExecutionWorkflowId('01ABC')).toBe('rules-01ABC');
  });

  it('are started after every transcript, with an id derived from the meeting', () => {
    const children = postProcessingChildren({ meetingId: '01ABC' });
    expect(children).toContainEqual(ruleExecutionChild({ meetingId: '01ABC' }));
    expect(children.find((c) => c.workflowType === 'RuleExecutionWorkflow')).toEqual({
      workflowType: 'RuleExecutionWorkflow',
      workflowId: 'rules-01ABC',
      args: [{ meetingId: '01ABC' }],
    });
  });
});
