/**
 * Rules at work, on a real Temporal dev server with a worker in this process and real PostgreSQL:
 * an upload through GraphQL runs TranscriptionWorkflow, whose child RuleExecutionWorkflow shares,
 * moves and changes privacy as the rule's author; the log is read back through the real MCP client
 * (svc_get_rule_executions). Then what goes wrong: a failing action (partial), a retried run (no
 * duplicate shares or log rows), an author who is gone or demoted, dry runs, disabled rules, a team
 * below Enterprise, testRule, keyword conditions matching exactly as the search does, and paging
 * through 120 meetings' real executions.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { newId } from '../../../../services/core/input';
import { executeRule, planRuleRun, recordRuleFailure } from '../../../../services/core/rules';
import { meetingRunKey } from '../../../../services/core/rules/run';
import { startRuleExecution } from '../../../../workflows/client';
import { registry } from '../../../../services/platform/metrics';
import { makeChannel, makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import { GraphqlHarness, startGraphql, UPLOAD_AUDIO } from '../../../support/graphql';
import { McpHarness, startMcp } from '../../../support/mcp';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { startTestWorker, TestWorker, waitForRun } from '../../../support/worker';
import { whileCapturing } from '../../../support/logs';
import { MediaServer, startMediaServer } from '../ingest/media-server';
import type { RuleExecutionResult } from '../../../../workflows/rule-execution';
import { CREATE_RULE, ok, SET_RULE_ENABLED, snapshot, TEST_RULE, UPDATE_RULE } from './support';

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'services', 'cli', 'demo', 'meetings');
const KICKOFF = readFileSync(join(FIXTURES, '2026-11-05-q1-planning-kickoff.vtt'));
const TOOL = 'svc_get_rule_executions';
const DAY = 86_400_000;

describe('automation rules: execution', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let mcp: McpHarness;
  let worker: TestWorker;
  let media: MediaServer;
  let grace: TestUser; // admin: writes the rules
  let priya: TestUser; // member: uploads
  let boardChannel: string;
  let boardMeeting: string;
  let boardRuleId: string;
  const taskQueue = testTaskQueue('rules');

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'enterprise', name: 'Ledgerly' });
    grace = await makeUser(t.db, team, { role: 'admin', email: 'grace@demo.example', name: 'Grace Okafor' });
    priya = await makeUser(t.db, team, { email: 'priya@demo.example', name: 'Priya Raman' });
    await makeUser(t.db, team, { email: 'ada@demo.example', name: 'Ada Park' });
    await makeUser(t.db, team, { email: 'tom@demo.example', name: 'Tom Becker' });
    boardChannel = (await makeChannel(t.db, team.id, 'Board', [])).id;
    media = await startMediaServer();
    gql = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: taskQueue });
    mcp = await startMcp(t.db);
    worker = await startTestWorker(t.db, { taskQueue });
  });
  afterAll(async () => {
    await worker?.stop();
    await mcp?.close();
    await gql?.close();
    await media?.close();
    await t?.drop();
  });

  const rules = (meetingId: string): WorkflowHandle => gql.temporal.workflow.getHandle(`rules-${meetingId}`);

  /** Run RuleExecutionWorkflow for a meeting (again, if it ran before) and wait for its result. */
  async function runRules(meetingId: string): Promise<RuleExecutionResult> {
    return gql.temporal.workflow.execute('RuleExecutionWorkflow', {
      taskQueue,
      workflowId: `rules-${meetingId}`,
      args: [{ meetingId }],
      workflowExecutionTimeout: '1 minute',
    });
  }

  async function createRule(input: Record<string, unknown>, user = grace): Promise<string> {
    return (await ok(gql, user.key, CREATE_RULE, { input })).createRule.id;
  }

  const executionsOf = (meetingId: string) =>
    t.db('rule_executions').where({ meeting_id: meetingId }).orderBy('executed_at');
  const sharesOf = (meetingId: string) => t.db('meeting_shares').where({ meeting_id: meetingId }).orderBy('email');
  const counter = async (status: string) => {
    const m = await registry.getSingleMetric('rule_executions_total')!.get();
    return m.values.find((v) => v.labels.status === status)?.value ?? 0;
  };

  describe('after an upload', () => {
    let successesBefore = 0;

    beforeAll(async () => {
      boardRuleId = await createRule({
        name: 'Board meetings',
        conditions: [{ type: 'title_contains', text: 'Board' }],
        actions: [
          { type: 'share', emails: ['x@y.test'], expiry_days: 7 },
          { type: 'move', channel_id: boardChannel },
          { type: 'privacy', privacy: 'teammates' },
        ],
      });
      successesBefore = await counter('success');
      const url = media.serve('/recordings/q1-board-kickoff.vtt', { body: KICKOFF, contentType: 'text/vtt' });
      const res = await gql.request(priya.key, UPLOAD_AUDIO, {
        input: { url, title: 'Q1 Board planning kickoff', meeting_date: '2026-11-05T15:00:00Z' },
      });
      expect(res.body.errors).toBeUndefined();
      boardMeeting = res.body.data.uploadAudio.meetingId;
    });

    it('runs RuleExecutionWorkflow as a child once the transcript is persisted', async () => {
      const run = await waitForRun(gql.temporal, boardMeeting);
      expect(run).toMatchObject({ status: 'completed', result: { status: 'completed' } });
      expect(run.status === 'completed' && run.result.children).toContain(`rules-${boardMeeting}`);
      const result: RuleExecutionResult = await rules(boardMeeting).result();
      expect(result).toMatchObject({
        meetingId: boardMeeting,
        runKey: meetingRunKey(boardMeeting),
        skipped: null,
        evaluated: 1,
        matched: 1,
      });
      expect(result.executions).toEqual([
        { ruleId: boardRuleId, status: 'success', executionId: expect.any(String), dryRun: false },
      ]);
      // The child outlives its parent (parent-close policy ABANDON) and was started by it.
      const description = await rules(boardMeeting).describe();
      expect(description.parentExecution?.workflowId).toBe(`transcription-${boardMeeting}`);
    });

    it("leaves the meeting shared for 7 days, in the channel, open to teammates, done by the rule's author", async () => {
      const m = await t.db('meetings').where({ id: boardMeeting }).first();
      expect(m).toMatchObject({
        status: 'completed',
        privacy: 'teammates',
        channel_id: boardChannel,
        organizer_email: priya.email,
      });
      const shares = await sharesOf(boardMeeting);
      expect(shares).toHaveLength(1);
      expect(shares[0]).toMatchObject({ email: 'x@y.test', shared_by: grace.id, revoked_at: null });
      const expires = new Date(shares[0].expires_at).getTime();
      expect(Math.abs(expires - (Date.now() + 7 * DAY))).toBeLessThan(5 * 60_000);
      const audit = await t
        .db('audit_log')
        .where({ target_id: boardMeeting })
        .whereIn('action', ['meeting.share', 'meeting.move', 'meeting.update_privacy'])
        .orderBy('id');
      expect(audit.map((a) => [a.action, a.actor_user_id])).toEqual([
        ['meeting.share', grace.id],
        ['meeting.move', grace.id],
        ['meeting.update_privacy', grace.id],
      ]);
      expect(await counter('success')).toBe(successesBefore + 1);
    });

    it('shows one success entry with the three actions through svc_get_rule_executions', async () => {
      const res = await mcp.call(grace.key, TOOL, { meetingId: boardMeeting });
      expect(res.isError).toBe(false);
      expect(res.data).toMatchObject({ has_more: false, next_cursor: null });
      expect(res.data.meetings).toHaveLength(1);
      const group = res.data.meetings[0];
      expect(group).toMatchObject({
        meeting_id: boardMeeting,
        meeting: 'Q1 Board planning kickoff',
        execution_count: 1,
        executions_has_more: false,
      });
      expect(group.executions).toEqual([
        {
          id: expect.any(String),
          rule_id: boardRuleId,
          rule_name: 'Board meetings',
          status: 'success',
          actions: `share(emails=x@y.test, expiry_days=7) -> done; move(channel_id=${boardChannel}) -> done; privacy(privacy=teammates) -> done`,
          error: null,
          dry_run: false,
          executed_at: expect.any(String),
        },
      ]);
    });

    it('a retried run neither shares twice nor adds a log row; it updates the one it wrote', async () => {
      const [before] = await executionsOf(boardMeeting);
      const sharesBefore = await sharesOf(boardMeeting);
      const auditShares = async () =>
        Number(
          (await t.db('audit_log').where({ target_id: boardMeeting, action: 'meeting.share' }).count({ n: '*' }))[0].n,
        );
      const again = await runRules(boardMeeting);
      expect(again.executions).toEqual([
        { ruleId: boardRuleId, status: 'success', executionId: before.id, dryRun: false },
      ]);
      // And once more through the helper API pods and the live-meeting issue use.
      await startRuleExecution(gql.temporal, taskQueue, boardMeeting);
      await rules(boardMeeting).result();

      const after = await executionsOf(boardMeeting);
      expect(after).toHaveLength(1);
      expect(after[0]).toMatchObject({ id: before.id, status: 'success', run_key: `meeting:${boardMeeting}` });
      expect(new Date(after[0].executed_at).getTime()).toBeGreaterThan(new Date(before.executed_at).getTime());
      const shares = await sharesOf(boardMeeting);
      expect(shares.map((s) => [s.id, s.email])).toEqual(sharesBefore.map((s) => [s.id, s.email]));
      // Sharing again renews the expiry (and is audited as such), never a second row.
      expect(new Date(shares[0].expires_at).getTime()).toBeGreaterThanOrEqual(
        new Date(sharesBefore[0].expires_at).getTime(),
      );
      expect(await auditShares()).toBe(3);
      expect(await counter('success')).toBe(successesBefore + 1);
    });

    it('records nothing for a meeting the rule does not match', async () => {
      const other = (await makeMeeting(t.db, { organizer: priya, title: 'Engineering stand-up' })).id;
      const result = await runRules(other);
      expect(result).toMatchObject({ evaluated: 1, matched: 0, executions: [] });
      expect(await executionsOf(other)).toEqual([]);
      expect((await t.db('meetings').where({ id: other }).first()).privacy).toBe('teammatesandparticipants');
    });
  });

  describe('when things go wrong', () => {
    let rulesToDisable: string[] = [];
    afterAll(async () => {
      for (const id of rulesToDisable) await ok(gql, grace.key, SET_RULE_ENABLED, { id, enabled: false });
    });

    it('a failing action makes the execution partial with its error; the other actions and the next rule still run', async () => {
      const finance = (await makeChannel(t.db, grace.teamId, 'Finance', [])).id;
      const first = await createRule({
        name: 'Finance reviews',
        conditions: [{ type: 'title_contains', text: 'finance' }],
        actions: [
          { type: 'privacy', privacy: 'owner' },
          { type: 'move', channel_id: finance },
          { type: 'share', emails: ['cfo@partner.test'], expiry_days: 14 },
        ],
      });
      const second = await createRule({
        name: 'Finance copy',
        conditions: [{ type: 'title_contains', text: 'Finance' }],
        actions: [{ type: 'share', emails: ['audit@partner.test'] }],
      });
      rulesToDisable = [first, second];
      // The channel is deleted between the rule's creation and its run.
      await t.db('channels').where({ id: finance }).delete();
      const meeting = (await makeMeeting(t.db, { organizer: priya, title: 'Finance review' })).id;

      const result = await runRules(meeting);
      expect(result.executions.map((e) => [e.ruleId, e.status])).toEqual([
        [first, 'partial'],
        [second, 'success'],
      ]);
      const [partial, success] = await t.db('rule_executions').where({ meeting_id: meeting }).orderBy('rule_id');
      expect(partial).toMatchObject({ rule_id: first, status: 'partial' });
      expect(partial.error).toMatch(/^actions\.1 \(move\): channel ".+" was not found/);
      expect(partial.actions).toEqual([
        { type: 'privacy', privacy: 'owner', status: 'done' },
        { type: 'move', channel_id: finance, status: 'failed', error: expect.stringContaining('was not found') },
        { type: 'share', emails: ['cfo@partner.test'], expiry_days: 14, status: 'done' },
      ]);
      expect(success).toMatchObject({ rule_id: second, status: 'success', error: null });
      expect((await t.db('meetings').where({ id: meeting }).first()).privacy).toBe('owner');
      expect((await sharesOf(meeting)).map((s) => s.email)).toEqual(['audit@partner.test', 'cfo@partner.test']);

      const log = await mcp.call(grace.key, TOOL, { meetingId: meeting });
      const byRule = Object.fromEntries(log.data.meetings[0].executions.map((e: any) => [e.rule_id, e]));
      expect(byRule[first]).toMatchObject({ status: 'partial', error: partial.error });
      const clauses = byRule[first].actions.split('; ');
      expect(clauses[0]).toBe('privacy(privacy=owner) -> done');
      expect(clauses[1]).toMatch(/^move\(.*error=channel ".+" was not found/);
      expect(clauses[1]).toContain(`channel_id=${finance}`);
      expect(clauses[1]).toMatch(/\) -> failed$/);
      expect(clauses[2]).toBe('share(emails=cfo@partner.test, expiry_days=14) -> done');
    });

    it('a rule whose author is gone or no longer an admin is recorded failed with the reason, and does nothing', async () => {
      const team = await t.db('teams').where({ id: grace.teamId }).first();
      const lena = await makeUser(t.db, team, { role: 'admin', email: 'lena@demo.example' });
      const sam = await makeUser(t.db, team, { role: 'admin', email: 'sam@demo.example' });
      const byLena = await createRule(
        {
          name: "Lena's rule",
          conditions: [{ type: 'title_contains', text: 'Audit' }],
          actions: [{ type: 'privacy', privacy: 'link' }],
        },
        lena,
      );
      const bySam = await createRule(
        {
          name: "Sam's rule",
          conditions: [{ type: 'title_contains', text: 'Audit' }],
          actions: [{ type: 'share', emails: ['sam-guest@partner.test'] }],
        },
        sam,
      );
      rulesToDisable.push(byLena, bySam);
      await t.db('users').where({ id: lena.id }).update({ role: 'member' });
      await t.db('users').where({ id: sam.id }).delete();
      const meeting = (await makeMeeting(t.db, { organizer: priya, title: 'Audit prep' })).id;
      const before = await snapshot(t.db);

      const result = await runRules(meeting);
      expect(result.executions.map((e) => e.status)).toEqual(['failed', 'failed']);
      const rows = Object.fromEntries((await executionsOf(meeting)).map((r) => [r.rule_id, r]));
      expect(rows[byLena]).toMatchObject({
        status: 'failed',
        actions: [{ type: 'privacy', privacy: 'link', status: 'not_run' }],
      });
      expect(rows[byLena].error).toMatch(/lena@demo\.example is no longer a team admin/);
      expect(rows[bySam].error).toMatch(/author no longer exists/);
      expect((await t.db('meetings').where({ id: meeting }).first()).privacy).toBe('teammatesandparticipants');
      const after = await snapshot(t.db);
      expect(after).toEqual({ ...before, executions: before.executions + 2 });

      // Saving the rule again makes the saving admin its author: the next run acts.
      await ok(gql, grace.key, UPDATE_RULE, { id: byLena, input: { name: "Lena's rule (Grace)" } });
      await runRules(meeting);
      expect((await t.db('rule_executions').where({ meeting_id: meeting, rule_id: byLena }).first()).status).toBe(
        'success',
      );
      expect((await t.db('meetings').where({ id: meeting }).first()).privacy).toBe('link');
    });

    it('a rule that keeps failing is recorded failed once its retries run out, and the next rule still runs', async () => {
      const broken = await createRule({
        name: 'Broken',
        conditions: [{ type: 'title_contains', text: 'Retention' }],
        actions: [{ type: 'privacy', privacy: 'owner' }],
      });
      const fine = await createRule({
        name: 'Fine',
        conditions: [{ type: 'title_contains', text: 'Retention' }],
        actions: [{ type: 'share', emails: ['keeper@partner.test'] }],
      });
      rulesToDisable.push(fine);
      // Stored actions no code can read: running the rule throws (not a refusal), every attempt.
      await t
        .db('rules')
        .where({ id: broken })
        .update({ actions: JSON.stringify({ not: 'a list' }) });
      const meeting = (await makeMeeting(t.db, { organizer: priya, title: 'Retention review' })).id;
      const { result, logs } = await whileCapturing('error', () => runRules(meeting));
      // The details go to the worker's log, once for each of the five attempts the retry policy makes.
      const logged = logs.find('error', /^automation rule step failed$/);
      expect(logged).toHaveLength(5);
      for (const line of logged) {
        expect(line).toMatchObject({
          step: 'running the rule',
          meetingId: meeting,
          ruleId: broken,
          err: { type: 'TypeError', message: 'actions is not iterable' },
        });
        expect(line.err!.stack).toMatch(/services\/core\/rules\//);
      }
      expect(result.executions).toEqual([
        { ruleId: broken, status: 'failed', executionId: null, dryRun: false },
        { ruleId: fine, status: 'success', executionId: expect.any(String), dryRun: false },
      ]);
      const row = await t.db('rule_executions').where({ meeting_id: meeting, rule_id: broken }).first();
      expect(row).toMatchObject({ status: 'failed', actions: [] });
      expect(row.error).toBe(
        'the rule could not be run: running the rule failed on the server side (logged); some of its actions may have been done',
      );
      expect((await sharesOf(meeting)).map((s) => s.email)).toEqual(['keeper@partner.test']);
      await t.db('rules').where({ id: broken }).update({ enabled: false });
    }, 60_000);

    it("a rule that could not be run at all is recorded failed by the workflow's last step", async () => {
      const meeting = (await makeMeeting(t.db, { organizer: priya, title: 'Unrelated' })).id;
      expect(
        await recordRuleFailure(t.db, {
          meetingId: meeting,
          ruleId: boardRuleId,
          runKey: meetingRunKey(meeting),
          reason: 'running the rule failed on the server side (logged)',
        }),
      ).toBe(true);
      const row = await t.db('rule_executions').where({ meeting_id: meeting }).first();
      expect(row).toMatchObject({ rule_id: boardRuleId, status: 'failed', rule_name: 'Board meetings' });
      expect(row.error).toBe(
        'the rule could not be run: running the rule failed on the server side (logged); some of its actions may have been done',
      );
      expect(
        await recordRuleFailure(t.db, {
          meetingId: meeting,
          ruleId: newId(),
          runKey: meetingRunKey(meeting),
          reason: 'x',
        }),
      ).toBe(false);
    });
  });

  describe('dry runs, disabled rules, tiers', () => {
    it('a dry-run rule logs what it would do (dry_run true) and changes nothing', async () => {
      const id = await createRule({
        name: 'Preview: lock retros',
        conditions: [{ type: 'title_contains', text: 'retro' }],
        actions: [
          { type: 'privacy', privacy: 'owner' },
          { type: 'share', emails: ['coach@partner.test'], expiry_days: 30 },
        ],
        dry_run: true,
      });
      const meeting = (await makeMeeting(t.db, { organizer: priya, title: 'Sprint 44 retro' })).id;
      const before = await snapshot(t.db);
      const result = await runRules(meeting);
      expect(result.executions).toEqual([
        { ruleId: id, status: 'success', executionId: expect.any(String), dryRun: true },
      ]);
      const [row] = await executionsOf(meeting);
      expect(row).toMatchObject({ dry_run: true, status: 'success', error: null });
      expect(row.actions.map((a: { status: string }) => a.status)).toEqual(['would_do', 'would_do']);
      expect(await snapshot(t.db)).toEqual({ ...before, executions: before.executions + 1 });
      expect((await t.db('meetings').where({ id: meeting }).first()).privacy).toBe('teammatesandparticipants');
      const log = await mcp.call(grace.key, TOOL, { meetingId: meeting });
      expect(log.data.meetings[0].executions[0]).toMatchObject({
        dry_run: true,
        actions: 'privacy(privacy=owner) -> would_do; share(emails=coach@partner.test, expiry_days=30) -> would_do',
      });
      await ok(gql, grace.key, SET_RULE_ENABLED, { id, enabled: false });
    });

    it('a disabled rule does not run', async () => {
      const id = await createRule({
        name: 'Off',
        conditions: [{ type: 'title_contains', text: 'Quiet' }],
        actions: [{ type: 'privacy', privacy: 'owner' }],
      });
      await ok(gql, grace.key, SET_RULE_ENABLED, { id, enabled: false });
      const meeting = (await makeMeeting(t.db, { organizer: priya, title: 'Quiet hour' })).id;
      const result = await runRules(meeting);
      expect(result.matched).toBe(0);
      expect(await executionsOf(meeting)).toEqual([]);
    });

    it('a team below Enterprise runs no rules, even ones saved while it was Enterprise', async () => {
      const team = await makeTeam(t.db, { tier: 'enterprise' });
      const boss = await makeUser(t.db, team, { role: 'admin' });
      await createRule({ name: 'Everything', actions: [{ type: 'privacy', privacy: 'owner' }] }, boss);
      await t.db('teams').where({ id: team.id }).update({ tier: 'business' });
      const meeting = (await makeMeeting(t.db, { organizer: boss, title: 'Any meeting' })).id;
      const result = await runRules(meeting);
      expect(result).toMatchObject({
        skipped: 'automation rules need the Enterprise tier; the team is on business',
        evaluated: 0,
        matched: 0,
        executions: [],
      });
      expect(await executionsOf(meeting)).toEqual([]);
    });

    it('a meeting that no longer exists is skipped', async () => {
      expect(await runRules('01NOSUCHMEETING0000000000')).toMatchObject({
        skipped: 'the meeting no longer exists',
        executions: [],
      });
    });
  });

  describe('testRule', () => {
    it('says what the rule would do to a meeting, logs it as a dry run, and changes nothing', async () => {
      const meeting = (await makeMeeting(t.db, { organizer: priya, title: 'Board prep', privacy: 'owner' })).id;
      const before = await snapshot(t.db);
      const first = (await ok(gql, grace.key, TEST_RULE, { ruleId: boardRuleId, meetingId: meeting })).testRule;
      expect(first).toMatchObject({
        matched: true,
        conditions: [{ index: 0, type: 'title_contains', held: true, detail: 'title contains "Board"' }],
        actions: [
          { type: 'share', status: 'would_do', emails: ['x@y.test'], expiry_days: 7, error: null },
          { type: 'move', status: 'would_do', channel_id: boardChannel },
          { type: 'privacy', status: 'would_do', privacy: 'teammates' },
        ],
        execution: { rule_id: boardRuleId, rule_name: 'Board meetings', status: 'success', dry_run: true, error: null },
      });
      expect(await snapshot(t.db)).toEqual({ ...before, executions: before.executions + 1 });
      expect(await t.db('meetings').where({ id: meeting }).first()).toMatchObject({
        privacy: 'owner',
        channel_id: null,
      });
      // Testing again replaces the entry rather than adding one.
      const again = (await ok(gql, grace.key, TEST_RULE, { ruleId: boardRuleId, meetingId: meeting })).testRule;
      expect(again.execution.id).toBe(first.execution.id);
      expect(await executionsOf(meeting)).toHaveLength(1);
    });

    it('reports every condition and a skipped entry when they do not hold', async () => {
      const id = await createRule({
        name: 'Long customer calls',
        conditions: [
          { type: 'participant', domain: 'customer.test' },
          { type: 'min_duration', minutes: 1 },
          { type: 'title_contains', text: 'call' },
        ],
        actions: [{ type: 'privacy', privacy: 'participants' }],
      });
      await ok(gql, grace.key, SET_RULE_ENABLED, { id, enabled: false });
      const meeting = (
        await makeMeeting(t.db, {
          organizer: priya,
          title: 'Customer call',
          participants: [{ email: 'buyer@customer.test' }],
        })
      ).id;
      const res = (await ok(gql, grace.key, TEST_RULE, { ruleId: id, meetingId: meeting })).testRule;
      expect(res.matched).toBe(false);
      expect(res.conditions.map((c: { held: boolean }) => c.held)).toEqual([true, false, true]);
      expect(res.conditions[1].detail).toBe('not (meeting lasts at least 1 min): meeting lasts 0.1 min');
      expect(res.actions).toEqual([
        {
          type: 'privacy',
          privacy: 'participants',
          status: 'not_run',
          error: null,
          emails: null,
          expiry_days: null,
          channel_id: null,
        },
      ]);
      expect(res.execution).toMatchObject({
        status: 'skipped',
        dry_run: true,
        actions: 'privacy(privacy=participants) -> not_run',
      });
      expect(res.execution.error).toBe(
        'conditions not met: condition 1 (min_duration) does not hold: not (meeting lasts at least 1 min): meeting lasts 0.1 min',
      );
    });

    it('predicts a failing action without doing the others', async () => {
      const doomed = (await makeChannel(t.db, grace.teamId, 'Doomed', [])).id;
      const id = await createRule({
        name: 'Doomed move',
        actions: [
          { type: 'move', channel_id: doomed },
          { type: 'privacy', privacy: 'link' },
        ],
      });
      await ok(gql, grace.key, SET_RULE_ENABLED, { id, enabled: false });
      await t.db('channels').where({ id: doomed }).delete();
      const meeting = (await makeMeeting(t.db, { organizer: priya, title: 'Anything' })).id;
      const res = (await ok(gql, grace.key, TEST_RULE, { ruleId: id, meetingId: meeting })).testRule;
      expect(res.actions.map((a: { status: string }) => a.status)).toEqual(['would_fail', 'would_do']);
      expect(res.execution).toMatchObject({ status: 'partial', dry_run: true });
      expect(res.execution.error).toMatch(/^actions\.0 \(move\): channel/);
      expect((await t.db('meetings').where({ id: meeting }).first()).privacy).toBe('teammatesandparticipants');
    });

    it('refuses a meeting of another team and an unknown one (object_not_found), storing nothing', async () => {
      const other = await makeTeam(t.db, { tier: 'enterprise' });
      const stranger = await makeUser(t.db, other, { role: 'admin' });
      const foreign = (await makeMeeting(t.db, { organizer: stranger, title: 'Board elsewhere' })).id;
      // Even shared with the caller: rules act on their own team's meetings only.
      await t.db('meeting_shares').insert({ id: newId(), meeting_id: foreign, email: grace.email });
      const before = await snapshot(t.db);
      for (const meetingId of [foreign, newId()]) {
        const res = await gql.request(grace.key, TEST_RULE, { ruleId: boardRuleId, meetingId });
        expect(res.body.errors?.[0].extensions).toMatchObject({ code: 'object_not_found' });
      }
      expect(await snapshot(t.db)).toEqual(before);
    });
  });

  describe('keyword conditions', () => {
    it('match exactly the meetings svc_get_transcripts finds with the same keyword in scope sentences', async () => {
      const id = await createRule({
        name: 'Keyword probe',
        conditions: [{ type: 'keyword', text: 'payments' }],
        actions: [{ type: 'privacy', privacy: 'owner' }],
      });
      await ok(gql, grace.key, SET_RULE_ENABLED, { id, enabled: false });
      const keywords: [string, boolean][] = [
        ['partial payments', true],
        ['"partial payments"', true],
        ['"payments partial"', false],
        ['payment', true], // stemmed
        ['PayBridge migration', true],
        ['candidates DentalDesk', true], // words in different sentences
        ['"candidates DentalDesk"', false], // a phrase must be within one sentence
        ['kubernetes', false],
        ['payments -paybridge', false],
        ['kubernetes or dentaldesk', true],
        ['Board', false], // in the title, never said
      ];
      for (const [keyword, expected] of keywords) {
        await ok(gql, grace.key, UPDATE_RULE, { id, input: { conditions: [{ type: 'keyword', text: keyword }] } });
        const tested = (await ok(gql, grace.key, TEST_RULE, { ruleId: id, meetingId: boardMeeting })).testRule;
        const search = await mcp.call(grace.key, 'svc_get_transcripts', {
          keyword,
          scope: 'sentences',
          limit: 50,
          format: 'json',
        });
        expect(search.isError).toBe(false);
        const found = search.data.meetings.some((m: { id: string }) => m.id === boardMeeting);
        expect([keyword, tested.matched, found]).toEqual([keyword, expected, expected]);
      }
    });
  });

  describe('the log over many meetings', () => {
    it('pages through 120 meetings of real executions, each group exactly once', async () => {
      const team = await makeTeam(t.db, { tier: 'enterprise' });
      const boss = await makeUser(t.db, team, { role: 'admin' });
      const ruleId = await createRule(
        { name: 'Open to the team', actions: [{ type: 'privacy', privacy: 'teammates' }] },
        boss,
      );
      const ids = Array.from({ length: 120 }, () => newId());
      await t.db('meetings').insert(
        ids.map((id, i) => ({
          id,
          team_id: team.id,
          organizer_id: boss.id,
          organizer_email: boss.email,
          title: `Weekly ${i}`,
          date: new Date('2026-11-02T10:00:00Z'),
          status: 'completed',
          privacy: 'owner',
        })),
      );
      for (const id of ids) {
        // What the workflow's activities do, without 120 workflow round trips.
        const plan = await planRuleRun(t.db, id);
        expect(plan.matched).toEqual([ruleId]);
        expect((await executeRule(t.db, { meetingId: id, ruleId, runKey: plan.runKey })).status).toBe('success');
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: any = await mcp.call(boss.key, TOOL, { limit: 50, ...(cursor ? { cursor } : {}) });
        expect(res.isError).toBe(false);
        pages++;
        for (const g of res.data.meetings) {
          expect(g).toMatchObject({
            execution_count: 1,
            executions: [{ rule_id: ruleId, status: 'success', actions: 'privacy(privacy=teammates) -> done' }],
          });
          seen.push(g.meeting_id);
        }
        cursor = res.data.next_cursor;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual([...ids].reverse());
      expect(
        Number((await t.db('meetings').where({ team_id: team.id, privacy: 'teammates' }).count({ n: '*' }))[0].n),
      ).toBe(120);
    }, 120_000);
  });
});
