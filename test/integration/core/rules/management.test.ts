/**
 * Managing automation rules over real GraphQL HTTP: who may (Enterprise, then admin), never across
 * teams, every limit on both sides with the refusal naming the field as written (input.actions.0.emails)
 * and nothing stored, the per-team cap, updates (the updater becomes the author), enable, delete.
 */
import { newId } from '../../../../services/core/input';
import { createRule } from '../../../../services/core/rules';
import { makeChannel, makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import { GraphqlHarness, startGraphql } from '../../../support/graphql';
import { createTestDatabase, TestDatabase } from '../../../support/testDb';
import {
  CREATE_RULE,
  DELETE_RULE,
  ok,
  refusedWith,
  RULE,
  RULES,
  SET_RULE_ENABLED,
  snapshot,
  TEST_RULE,
  UPDATE_RULE,
} from './support';

describe('automation rules: management over GraphQL', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let admin: TestUser;
  let superAdmin: TestUser;
  let member: TestUser;
  let proAdmin: TestUser;
  let foreignAdmin: TestUser;
  let channel: string;
  let privateChannel: string;
  let foreignChannel: string;
  let meeting: string;

  const share = { type: 'share', emails: ['x@y.test'], expiry_days: 7 };
  const input = (over: Record<string, unknown> = {}) => ({
    name: 'Board meetings',
    conditions: [{ type: 'title_contains', text: 'Board' }],
    actions: [share],
    ...over,
  });
  const emails = (n: number) => Array.from({ length: n }, (_, i) => `guest${i}@partner.test`);

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'enterprise' });
    admin = await makeUser(t.db, team, { role: 'admin', email: 'admin@corp.test' });
    superAdmin = await makeUser(t.db, team, { role: 'super_admin', email: 'boss@corp.test' });
    member = await makeUser(t.db, team, { email: 'member@corp.test' });
    proAdmin = await makeUser(t.db, await makeTeam(t.db, { tier: 'pro' }), {
      role: 'super_admin',
      email: 'admin@pro.test',
    });
    const other = await makeTeam(t.db, { tier: 'enterprise' });
    foreignAdmin = await makeUser(t.db, other, { role: 'super_admin', email: 'admin@other.test' });
    channel = (await makeChannel(t.db, team.id, 'Board', [])).id;
    privateChannel = (await makeChannel(t.db, team.id, 'Secret', [], true)).id;
    foreignChannel = (await makeChannel(t.db, other.id, 'Elsewhere', [])).id;
    meeting = (await makeMeeting(t.db, { organizer: member, title: 'Board review' })).id;
    gql = await startGraphql(t.db);
  });
  afterAll(async () => {
    await gql?.close();
    await t?.drop();
  });

  async function create(over: Record<string, unknown> = {}, user = admin) {
    return (await ok(gql, user.key, CREATE_RULE, { input: input(over) })).createRule;
  }

  /** A refusal with this code (and field) that stores nothing. */
  async function refused(
    user: TestUser,
    query: string,
    variables: Record<string, unknown>,
    code: string,
    field?: string,
    message?: RegExp,
  ) {
    const before = await snapshot(t.db);
    const err = await refusedWith(gql, user.key, query, variables);
    expect(err.extensions).toMatchObject({ code, ...(field ? { field } : {}) });
    if (message) expect(err.message).toMatch(message);
    expect(await snapshot(t.db)).toEqual(before);
    return err;
  }

  describe('a full rule', () => {
    it('is saved with every kind of condition and action, and read back the same', async () => {
      const all = {
        name: '  Customer board reviews  ',
        conditions: [
          { type: 'title_contains', text: 'Board' },
          { type: 'organizer', domain: '@CORP.test' },
          { type: 'participant', email: 'CFO@Partner.test' },
          { type: 'keyword', text: 'quarterly budget' },
          { type: 'meeting_type', meeting_type: 'planning' },
          { type: 'channel', channel_id: privateChannel },
          { type: 'min_duration', minutes: 15 },
        ],
        actions: [
          { type: 'share', emails: ['x@y.test', 'X@Y.test', 'cfo@partner.test'], expiry_days: 30 },
          { type: 'move', channel_id: channel },
          { type: 'privacy', privacy: 'teammates' },
          { type: 'share', emails: ['forever@partner.test'] },
        ],
        dry_run: true,
      };
      const rule = (await ok(gql, admin.key, CREATE_RULE, { input: all })).createRule;
      expect(rule).toMatchObject({
        name: 'Customer board reviews',
        enabled: true,
        dry_run: true,
        author_id: admin.id,
        author_email: admin.email,
        conditions: [
          { type: 'title_contains', text: 'Board', email: null, domain: null },
          { type: 'organizer', domain: 'corp.test', email: null },
          { type: 'participant', email: 'cfo@partner.test', domain: null },
          { type: 'keyword', text: 'quarterly budget' },
          { type: 'meeting_type', meeting_type: 'planning' },
          { type: 'channel', channel_id: privateChannel },
          { type: 'min_duration', minutes: 15 },
        ],
        actions: [
          { type: 'share', emails: ['x@y.test', 'cfo@partner.test'], expiry_days: 30, channel_id: null, privacy: null },
          { type: 'move', channel_id: channel, emails: null },
          { type: 'privacy', privacy: 'teammates' },
          { type: 'share', emails: ['forever@partner.test'], expiry_days: null },
        ],
      });
      expect((await ok(gql, superAdmin.key, RULE, { id: rule.id })).rule).toEqual(rule);
      expect((await ok(gql, admin.key, RULES)).rules).toContainEqual(rule);
      const audit = await t.db('audit_log').where({ action: 'rule.create', target_id: rule.id });
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ actor_user_id: admin.id, team_id: admin.teamId, target_type: 'rule' });
    });

    it("lists the team's rules oldest first (the order they run in), and only the team's", async () => {
      const first = await create({ name: 'First' });
      const second = await create({ name: 'Second' }, superAdmin);
      const foreign = (await ok(gql, foreignAdmin.key, CREATE_RULE, { input: input({ name: 'Foreign' }) })).createRule;
      const ids = (await ok(gql, admin.key, RULES)).rules.map((r: { id: string }) => r.id);
      expect(ids.indexOf(first.id)).toBeLessThan(ids.indexOf(second.id));
      expect(ids).not.toContain(foreign.id);
      expect((await ok(gql, foreignAdmin.key, RULES)).rules.map((r: { id: string }) => r.id)).toEqual([foreign.id]);
    });
  });

  describe('who may', () => {
    let ruleId: string;
    beforeAll(async () => {
      ruleId = (await create({ name: 'Guarded' })).id;
    });

    const operations = () =>
      [
        ['rules', RULES, {}],
        ['rule', RULE, { id: ruleId }],
        ['createRule', CREATE_RULE, { input: input() }],
        ['updateRule', UPDATE_RULE, { id: ruleId, input: { name: 'Renamed' } }],
        ['setRuleEnabled', SET_RULE_ENABLED, { id: ruleId, enabled: false }],
        ['deleteRule', DELETE_RULE, { id: ruleId }],
        ['testRule', TEST_RULE, { ruleId, meetingId: meeting }],
      ] as [string, string, Record<string, unknown>][];

    it('a team below Enterprise gets paid_required for every operation, admins included', async () => {
      for (const [, query, variables] of operations()) {
        const err = await refused(proAdmin, query, variables, 'paid_required');
        expect(err.message).toMatch(/Enterprise tier; your team is on pro/);
      }
    });

    it('a member of an Enterprise team gets require_elevated_privilege for every operation', async () => {
      for (const [, query, variables] of operations()) {
        const err = await refused(member, query, variables, 'require_elevated_privilege');
        expect(err.message).toMatch(/requires a team admin/);
      }
    });

    it("another team's admin cannot see or touch the rule (object_not_found)", async () => {
      for (const [name, query, variables] of operations().filter(([n]) => !['rules', 'createRule'].includes(n))) {
        const err = await refused(foreignAdmin, query, variables, 'object_not_found');
        expect([name, err.message]).toEqual([name, expect.stringContaining(ruleId)]);
      }
      expect((await ok(gql, admin.key, RULE, { id: ruleId })).rule.name).toBe('Guarded');
    });

    it('super admins manage rules like admins', async () => {
      const r = (await ok(gql, superAdmin.key, UPDATE_RULE, { id: ruleId, input: { name: 'Guarded too' } })).updateRule;
      expect(r).toMatchObject({ name: 'Guarded too', author_id: superAdmin.id });
    });
  });

  describe('limits, both sides, through GraphQL', () => {
    it('name: 1 and 120 characters saved, empty and 121 refused', async () => {
      expect((await create({ name: 'N' })).name).toBe('N');
      expect((await create({ name: 'n'.repeat(120) })).name).toBe('n'.repeat(120));
      await refused(
        admin,
        CREATE_RULE,
        { input: input({ name: 'n'.repeat(121) }) },
        'invalid_arguments',
        'input.name',
        /input\.name must be 1 to 120/,
      );
      await refused(admin, CREATE_RULE, { input: input({ name: ' ' }) }, 'invalid_arguments', 'input.name');
    });

    it('share emails: 100 saved, 101 refused; a bad address named by position', async () => {
      const r = await create({ actions: [{ type: 'share', emails: emails(100), expiry_days: 14 }] });
      expect(r.actions[0].emails).toHaveLength(100);
      await refused(
        admin,
        CREATE_RULE,
        { input: input({ actions: [{ type: 'share', emails: emails(101) }] }) },
        'invalid_arguments',
        'input.actions.0.emails',
        /1 to 100/,
      );
      await refused(
        admin,
        CREATE_RULE,
        { input: input({ actions: [share, { type: 'share', emails: ['ok@x.test', 'broken'] }] }) },
        'invalid_arguments',
        'input.actions.1.emails.1',
      );
    });

    it('share expiry: 7, 14 and 30 saved, 10 refused', async () => {
      for (const expiry_days of [7, 14, 30]) {
        expect(
          (await create({ actions: [{ type: 'share', emails: ['x@y.test'], expiry_days }] })).actions[0].expiry_days,
        ).toBe(expiry_days);
      }
      await refused(
        admin,
        CREATE_RULE,
        { input: input({ actions: [{ type: 'share', emails: ['x@y.test'], expiry_days: 10 }] }) },
        'invalid_arguments',
        'input.actions.0.expiry_days',
        /one of 7, 14, 30/,
      );
    });

    it('keyword and title text: 255 saved, 256 refused', async () => {
      for (const type of ['keyword', 'title_contains']) {
        const text = `budget ${'k'.repeat(248)}`;
        expect(text).toHaveLength(255);
        expect((await create({ conditions: [{ type, text }] })).conditions[0].text).toBe(text);
        await refused(
          admin,
          CREATE_RULE,
          { input: input({ conditions: [{ type, text: `${text}k` }] }) },
          'invalid_arguments',
          'input.conditions.0.text',
          /1 to 255/,
        );
      }
    });

    it('a keyword of stop words only is refused (it could never match)', async () => {
      await refused(
        admin,
        CREATE_RULE,
        { input: input({ conditions: [{ type: 'keyword', text: 'the and of' }] }) },
        'invalid_arguments',
        'input.conditions.0.text',
        /stop words/,
      );
    });

    it('conditions: 20 saved, 21 refused; actions: 10 saved, 0 and 11 refused', async () => {
      const c = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'min_duration', minutes: i }));
      expect((await create({ conditions: c(20) })).conditions).toHaveLength(20);
      await refused(
        admin,
        CREATE_RULE,
        { input: input({ conditions: c(21) }) },
        'invalid_arguments',
        'input.conditions',
        /at most 20/,
      );
      expect((await create({ actions: Array(10).fill(share) })).actions).toHaveLength(10);
      await refused(
        admin,
        CREATE_RULE,
        { input: input({ actions: Array(11).fill(share) }) },
        'invalid_arguments',
        'input.actions',
        /1 to 10/,
      );
      await refused(
        admin,
        CREATE_RULE,
        { input: input({ actions: [] }) },
        'invalid_arguments',
        'input.actions',
        /1 to 10/,
      );
    });

    it('minutes: 0 and 1440 saved, 1441 and -1 refused', async () => {
      expect((await create({ conditions: [{ type: 'min_duration', minutes: 0 }] })).conditions[0].minutes).toBe(0);
      expect((await create({ conditions: [{ type: 'min_duration', minutes: 1440 }] })).conditions[0].minutes).toBe(
        1440,
      );
      await refused(
        admin,
        CREATE_RULE,
        { input: input({ conditions: [{ type: 'min_duration', minutes: 1441 }] }) },
        'invalid_arguments',
        'input.conditions.0.minutes',
      );
      await refused(
        admin,
        CREATE_RULE,
        { input: input({ conditions: [{ type: 'min_duration', minutes: -1 }] }) },
        'invalid_arguments',
        'input.conditions.0.minutes',
      );
    });

    it('channels must be channels of the team (a private one is fine for an admin)', async () => {
      expect((await create({ actions: [{ type: 'move', channel_id: privateChannel }] })).actions[0].channel_id).toBe(
        privateChannel,
      );
      await refused(
        admin,
        CREATE_RULE,
        { input: input({ actions: [share, { type: 'move', channel_id: foreignChannel }] }) },
        'invalid_arguments',
        'input.actions.1.channel_id',
        /not a channel of your team/,
      );
      await refused(
        admin,
        CREATE_RULE,
        { input: input({ conditions: [{ type: 'channel', channel_id: newId() }] }) },
        'invalid_arguments',
        'input.conditions.0.channel_id',
        /not a channel of your team/,
      );
    });

    it('values outside the enums and fields a type does not use are refused', async () => {
      await refused(admin, CREATE_RULE, { input: input({ conditions: [{ type: 'weather' }] }) }, 'invalid_arguments');
      await refused(
        admin,
        CREATE_RULE,
        { input: input({ conditions: [{ type: 'meeting_type', meeting_type: 'party' }] }) },
        'invalid_arguments',
        'input.conditions.0.meeting_type',
      );
      await refused(
        admin,
        CREATE_RULE,
        { input: input({ actions: [{ type: 'privacy', privacy: 'public' }] }) },
        'invalid_arguments',
        'input.actions.0.privacy',
      );
      await refused(
        admin,
        CREATE_RULE,
        { input: input({ actions: [{ type: 'move', channel_id: channel, emails: ['x@y.test'] }] }) },
        'invalid_arguments',
        'input.actions.0.emails',
        /not used by a move action/,
      );
      await refused(
        admin,
        CREATE_RULE,
        { input: input({ conditions: [{ type: 'organizer' }] }) },
        'invalid_arguments',
        'input.conditions.0.email',
        /exactly one/,
      );
    });
  });

  describe('the per-team cap', () => {
    it('takes the 100th rule and refuses the 101st, storing nothing', async () => {
      const team = await makeTeam(t.db, { tier: 'enterprise' });
      const boss = await makeUser(t.db, team, { role: 'admin' });
      for (let i = 0; i < 99; i++) await createRule(t.db, boss.principal, { name: `Rule ${i}`, actions: [share] });
      expect((await create({ name: 'The hundredth' }, boss)).name).toBe('The hundredth');
      await refused(
        boss,
        CREATE_RULE,
        { input: input({ name: 'One too many' }) },
        'invalid_arguments',
        'input',
        /at most 100 rules per team/,
      );
      expect(Number((await t.db('rules').where({ team_id: team.id }).count({ n: '*' }))[0].n)).toBe(100);
    });
  });

  describe('update, enable, delete', () => {
    it('an update changes only what it names, and its admin becomes the author', async () => {
      const r = await create({ name: 'Before', dry_run: true });
      const u = (
        await ok(gql, superAdmin.key, UPDATE_RULE, {
          id: r.id,
          input: { actions: [{ type: 'privacy', privacy: 'owner' }] },
        })
      ).updateRule;
      expect(u).toMatchObject({
        id: r.id,
        name: 'Before',
        dry_run: true,
        conditions: r.conditions,
        author_id: superAdmin.id,
        author_email: superAdmin.email,
      });
      expect(u.actions).toEqual([
        { type: 'privacy', privacy: 'owner', emails: null, expiry_days: null, channel_id: null },
      ]);
      expect(new Date(u.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(r.updated_at).getTime());
      const u2 = (await ok(gql, admin.key, UPDATE_RULE, { id: r.id, input: { dry_run: false, conditions: [] } }))
        .updateRule;
      expect(u2).toMatchObject({ dry_run: false, conditions: [], author_id: admin.id });
      const audit = await t.db('audit_log').where({ action: 'rule.update', target_id: r.id }).orderBy('id');
      expect(audit.map((a) => a.actor_user_id)).toEqual([superAdmin.id, admin.id]);
    });

    it('an update is checked like a creation and stores nothing when refused', async () => {
      const r = await create({ name: 'Checked' });
      await refused(
        admin,
        UPDATE_RULE,
        { id: r.id, input: { actions: [{ type: 'share', emails: emails(101) }] } },
        'invalid_arguments',
        'input.actions.0.emails',
      );
      await refused(admin, UPDATE_RULE, { id: r.id, input: {} }, 'invalid_arguments', 'input', /at least one/);
      await refused(admin, UPDATE_RULE, { id: newId(), input: { name: 'Ghost' } }, 'object_not_found');
      expect((await ok(gql, admin.key, RULE, { id: r.id })).rule).toEqual(r);
    });

    it('setRuleEnabled switches a rule off and on', async () => {
      const r = await create({ name: 'Switch' });
      expect((await ok(gql, admin.key, SET_RULE_ENABLED, { id: r.id, enabled: false })).setRuleEnabled.enabled).toBe(
        false,
      );
      expect((await t.db('rules').where({ id: r.id }).first()).enabled).toBe(false);
      // Switching to the state it has changes nothing and writes no audit row.
      const audits = Number((await t.db('audit_log').where({ target_id: r.id }).count({ n: '*' }))[0].n);
      expect((await ok(gql, admin.key, SET_RULE_ENABLED, { id: r.id, enabled: false })).setRuleEnabled.enabled).toBe(
        false,
      );
      expect(Number((await t.db('audit_log').where({ target_id: r.id }).count({ n: '*' }))[0].n)).toBe(audits);
      expect((await ok(gql, admin.key, SET_RULE_ENABLED, { id: r.id, enabled: true })).setRuleEnabled.enabled).toBe(
        true,
      );
      expect(
        (await t.db('audit_log').where({ target_id: r.id }).orderBy('id').select('action')).map((a) => a.action),
      ).toEqual(['rule.create', 'rule.disable', 'rule.enable']);
    });

    it('deleteRule removes the rule and keeps its executions in the log', async () => {
      const r = await create({ name: 'Short-lived' });
      const tested = (await ok(gql, admin.key, TEST_RULE, { ruleId: r.id, meetingId: meeting })).testRule;
      expect(tested.execution.rule_id).toBe(r.id);
      expect((await ok(gql, admin.key, DELETE_RULE, { id: r.id })).deleteRule).toEqual({
        success: true,
        id: r.id,
        name: 'Short-lived',
      });
      await refused(admin, RULE, { id: r.id }, 'object_not_found');
      await refused(admin, DELETE_RULE, { id: r.id }, 'object_not_found');
      expect(await t.db('rule_executions').where({ rule_id: r.id }).first()).toMatchObject({
        rule_name: 'Short-lived',
        dry_run: true,
      });
    });
  });
});
