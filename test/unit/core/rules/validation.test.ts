/**
 * What a rule may say: every limit on both sides, every refusal naming the field as the caller wrote
 * it and the rule it broke. Pure checks (services/core/rules/validation.ts); the database checks are in
 * test/integration/core/rules/management.test.ts.
 */
import { ServiceError } from '../../../../services/platform/errors';
import { PRIVACIES } from '../../../../services/core/meetings';
import { RuleInput } from '../../../../services/core/rules';
import {
  ActionInput,
  channelRefs,
  checkRuleInput,
  checkRuleUpdate,
  ConditionInput,
  RULE_LIMITS,
} from '../../../../services/core/rules/validation';
import { MEETING_TYPES } from '../../../../services/intelligence/summarize/types';

const share: ActionInput = { type: 'share', emails: ['x@y.test'], expiry_days: 7 };
const rule = (over: Partial<RuleInput> = {}): RuleInput => ({
  name: 'Board meetings',
  conditions: [],
  actions: [share],
  ...over,
});
const withCondition = (c: ConditionInput) => rule({ conditions: [c] });
const withAction = (a: ActionInput) => rule({ actions: [a] });
const emails = (n: number) => Array.from({ length: n }, (_, i) => `person${i}@example.test`);

/** The ServiceError a check throws (fails the test when it does not throw one). */
function refusal(f: () => unknown): ServiceError {
  try {
    f();
  } catch (e) {
    if (e instanceof ServiceError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

function expectRefused(f: () => unknown, field: string, rule?: RegExp) {
  const e = refusal(f);
  expect(e.code).toBe('invalid_arguments');
  expect(e.details.field).toBe(field);
  if (rule) expect(e.details.rule).toMatch(rule);
  expect(e.message).toContain(field);
}

describe('rule name', () => {
  it.each([
    ['1 character', 'B'],
    ['120 characters', 'n'.repeat(120)],
  ])('accepts %s', (_, name) => {
    expect(checkRuleInput(rule({ name })).name).toBe(name);
  });

  it('trims the ends', () => {
    expect(checkRuleInput(rule({ name: '  Board  ' })).name).toBe('Board');
  });

  it.each([
    ['empty', ''],
    ['only spaces', '   '],
    ['121 characters', 'n'.repeat(121)],
  ])('refuses %s', (_, name) => {
    expectRefused(() => checkRuleInput(rule({ name })), 'name', /1 to 120/);
  });

  it('refuses a missing name', () => {
    expectRefused(() => checkRuleInput(rule({ name: undefined as unknown as string })), 'name', /required/);
  });
});

describe('condition and action counts', () => {
  const title = (i: number): ConditionInput => ({ type: 'title_contains', text: `t${i}` });

  it('accepts no conditions (every meeting) and null conditions', () => {
    expect(checkRuleInput(rule({ conditions: [] })).conditions).toEqual([]);
    expect(checkRuleInput(rule({ conditions: null })).conditions).toEqual([]);
  });

  it(`accepts ${RULE_LIMITS.conditionsMax} conditions and refuses ${RULE_LIMITS.conditionsMax + 1}`, () => {
    expect(
      checkRuleInput(rule({ conditions: Array.from({ length: 20 }, (_, i) => title(i)) })).conditions,
    ).toHaveLength(20);
    expectRefused(
      () => checkRuleInput(rule({ conditions: Array.from({ length: 21 }, (_, i) => title(i)) })),
      'conditions',
      /at most 20/,
    );
  });

  it('accepts 1 and 10 actions, refuses 0 and 11', () => {
    expect(checkRuleInput(rule({ actions: [share] })).actions).toHaveLength(1);
    expect(checkRuleInput(rule({ actions: Array(10).fill(share) })).actions).toHaveLength(10);
    expectRefused(() => checkRuleInput(rule({ actions: [] })), 'actions', /1 to 10/);
    expectRefused(() => checkRuleInput(rule({ actions: Array(11).fill(share) })), 'actions', /1 to 10/);
    expectRefused(() => checkRuleInput(rule({ actions: undefined as unknown as ActionInput[] })), 'actions', /1 to 10/);
  });
});

describe('conditions', () => {
  it.each(['title_contains', 'keyword'] as const)(
    '%s: text of 1 and 255 characters is accepted, 256 and empty refused',
    (type) => {
      expect(checkRuleInput(withCondition({ type, text: 'B' })).conditions).toEqual([{ type, text: 'B' }]);
      expect(checkRuleInput(withCondition({ type, text: 'k'.repeat(255) })).conditions[0]).toEqual({
        type,
        text: 'k'.repeat(255),
      });
      expectRefused(
        () => checkRuleInput(withCondition({ type, text: 'k'.repeat(256) })),
        'conditions.0.text',
        /1 to 255/,
      );
      expectRefused(() => checkRuleInput(withCondition({ type, text: '  ' })), 'conditions.0.text', /1 to 255/);
      expectRefused(() => checkRuleInput(withCondition({ type })), 'conditions.0.text', /required/);
    },
  );

  it.each(['organizer', 'participant'] as const)('%s: an email (lower-cased) or a domain, exactly one', (type) => {
    expect(checkRuleInput(withCondition({ type, email: 'Ana@Example.COM' })).conditions[0]).toEqual({
      type,
      email: 'ana@example.com',
    });
    expect(checkRuleInput(withCondition({ type, domain: '@Example.com' })).conditions[0]).toEqual({
      type,
      domain: 'example.com',
    });
    expect(checkRuleInput(withCondition({ type, domain: 'eu.example.co.uk' })).conditions[0]).toEqual({
      type,
      domain: 'eu.example.co.uk',
    });
    expectRefused(
      () => checkRuleInput(withCondition({ type, email: 'not-an-email' })),
      'conditions.0.email',
      /email address/,
    );
    expectRefused(
      () => checkRuleInput(withCondition({ type, domain: 'localhost' })),
      'conditions.0.domain',
      /email domain/,
    );
    expectRefused(
      () => checkRuleInput(withCondition({ type, domain: 'ana@example.com' })),
      'conditions.0.domain',
      /email domain/,
    );
    expectRefused(
      () => checkRuleInput(withCondition({ type, email: 'a@x.test', domain: 'x.test' })),
      'conditions.0.email',
      /exactly one/,
    );
    expectRefused(() => checkRuleInput(withCondition({ type })), 'conditions.0.email', /exactly one/);
  });

  it("meeting_type: each of the summarizer's types, nothing else", () => {
    for (const meeting_type of MEETING_TYPES) {
      expect(checkRuleInput(withCondition({ type: 'meeting_type', meeting_type })).conditions[0]).toEqual({
        type: 'meeting_type',
        meeting_type,
      });
    }
    expectRefused(
      () => checkRuleInput(withCondition({ type: 'meeting_type', meeting_type: 'party' })),
      'conditions.0.meeting_type',
      /one of standup, sales/,
    );
  });

  it('channel: an id of 1 to 64 characters', () => {
    expect(checkRuleInput(withCondition({ type: 'channel', channel_id: 'c'.repeat(64) })).conditions[0]).toEqual({
      type: 'channel',
      channel_id: 'c'.repeat(64),
    });
    expectRefused(
      () => checkRuleInput(withCondition({ type: 'channel', channel_id: 'c'.repeat(65) })),
      'conditions.0.channel_id',
      /64/,
    );
    expectRefused(
      () => checkRuleInput(withCondition({ type: 'channel', channel_id: '' })),
      'conditions.0.channel_id',
      /required/,
    );
  });

  it('min_duration: whole minutes 0 to 1440', () => {
    for (const minutes of [0, 1, 1440])
      expect(checkRuleInput(withCondition({ type: 'min_duration', minutes })).conditions[0]).toEqual({
        type: 'min_duration',
        minutes,
      });
    for (const minutes of [-1, 1441, 2.5])
      expectRefused(
        () => checkRuleInput(withCondition({ type: 'min_duration', minutes })),
        'conditions.0.minutes',
        /whole number 0 to 1440/,
      );
    expectRefused(() => checkRuleInput(withCondition({ type: 'min_duration' })), 'conditions.0.minutes');
  });

  it('refuses an unknown type and a field the type does not use, naming its position', () => {
    expectRefused(
      () => checkRuleInput(withCondition({ type: 'weather' })),
      'conditions.0.type',
      /one of title_contains/,
    );
    expectRefused(
      () =>
        checkRuleInput(
          rule({
            conditions: [
              { type: 'keyword', text: 'budget' },
              { type: 'title_contains', text: 'Board', email: 'a@b.test' },
            ],
          }),
        ),
      'conditions.1.email',
      /not used by type title_contains/,
    );
    expectRefused(
      () => checkRuleInput(withCondition({ type: 'min_duration', minutes: 5, text: 'x' })),
      'conditions.0.text',
      /not used/,
    );
  });

  it('treats null fields as absent (GraphQL sends nulls)', () => {
    expect(
      checkRuleInput(withCondition({ type: 'keyword', text: 'budget', email: null, minutes: null })).conditions[0],
    ).toEqual({ type: 'keyword', text: 'budget' });
  });
});

describe('actions', () => {
  it('share: 1 and 100 emails accepted, 0 and 101 refused, each address checked', () => {
    expect(checkRuleInput(withAction({ type: 'share', emails: emails(1) })).actions[0]).toEqual({
      type: 'share',
      emails: emails(1),
      expiry_days: null,
    });
    expect(
      (checkRuleInput(withAction({ type: 'share', emails: emails(100) })).actions[0] as { emails: string[] }).emails,
    ).toHaveLength(100);
    expectRefused(
      () => checkRuleInput(withAction({ type: 'share', emails: emails(101) })),
      'actions.0.emails',
      /1 to 100/,
    );
    expectRefused(() => checkRuleInput(withAction({ type: 'share', emails: [] })), 'actions.0.emails', /1 to 100/);
    expectRefused(() => checkRuleInput(withAction({ type: 'share' })), 'actions.0.emails', /1 to 100/);
    expectRefused(
      () => checkRuleInput(withAction({ type: 'share', emails: ['a@x.test', 'b@x.test', 'c@x.test', 'nope'] })),
      'actions.0.emails.3',
      /email address/,
    );
  });

  it('share: the same address twice (any case) is shared once', () => {
    expect(
      checkRuleInput(withAction({ type: 'share', emails: ['A@x.test', 'a@X.test', 'b@x.test'] })).actions[0],
    ).toMatchObject({ emails: ['a@x.test', 'b@x.test'] });
  });

  it.each([7, 14, 30])('share: expiry_days %i is accepted', (expiry_days) => {
    expect(checkRuleInput(withAction({ type: 'share', emails: ['x@y.test'], expiry_days })).actions[0]).toEqual({
      type: 'share',
      emails: ['x@y.test'],
      expiry_days,
    });
  });

  it.each([10, 0, 31, 6])('share: expiry_days %i is refused', (expiry_days) => {
    expectRefused(
      () => checkRuleInput(withAction({ type: 'share', emails: ['x@y.test'], expiry_days })),
      'actions.0.expiry_days',
      /one of 7, 14, 30/,
    );
  });

  it('move: a channel id', () => {
    expect(checkRuleInput(withAction({ type: 'move', channel_id: ' C1 ' })).actions[0]).toEqual({
      type: 'move',
      channel_id: 'C1',
    });
    expectRefused(() => checkRuleInput(withAction({ type: 'move' })), 'actions.0.channel_id', /required/);
  });

  it('privacy: each privacy of svc_update_meeting_privacy, nothing else', () => {
    for (const privacy of PRIVACIES)
      expect(checkRuleInput(withAction({ type: 'privacy', privacy })).actions[0]).toEqual({ type: 'privacy', privacy });
    expectRefused(
      () => checkRuleInput(withAction({ type: 'privacy', privacy: 'public' })),
      'actions.0.privacy',
      /one of link, owner/,
    );
  });

  it('refuses an unknown type and a field the type does not use', () => {
    expectRefused(
      () => checkRuleInput(withAction({ type: 'delete' })),
      'actions.0.type',
      /one of share, move, privacy/,
    );
    expectRefused(
      () => checkRuleInput(rule({ actions: [share, { type: 'move', channel_id: 'C', privacy: 'owner' }] })),
      'actions.1.privacy',
      /not used by type move/,
    );
  });
});

describe('dry_run and updates', () => {
  it('dry_run defaults to false and must be a boolean', () => {
    expect(checkRuleInput(rule()).dry_run).toBe(false);
    expect(checkRuleInput(rule({ dry_run: true })).dry_run).toBe(true);
    expectRefused(() => checkRuleInput(rule({ dry_run: 'yes' as unknown as boolean })), 'dry_run');
  });

  it('an update checks only what it changes and must change something', () => {
    expect(checkRuleUpdate({ name: 'New name' })).toEqual({ name: 'New name' });
    expect(checkRuleUpdate({ dry_run: false, conditions: null })).toEqual({ dry_run: false });
    expectRefused(() => checkRuleUpdate({}), 'input', /at least one/);
    expectRefused(() => checkRuleUpdate({ actions: [] }), 'actions', /1 to 10/);
    expectRefused(() => checkRuleUpdate({ name: 'x'.repeat(121) }), 'name');
  });

  it('lists the channels a rule refers to with their fields', () => {
    const r = checkRuleInput(
      rule({ conditions: [{ type: 'channel', channel_id: 'A' }], actions: [share, { type: 'move', channel_id: 'B' }] }),
    );
    expect(channelRefs(r)).toEqual([
      { field: 'conditions.0.channel_id', id: 'A' },
      { field: 'actions.1.channel_id', id: 'B' },
    ]);
  });
});
