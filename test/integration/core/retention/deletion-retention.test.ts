/**
 * Deleting meetings and keeping them: deleteMeeting (owner or admin), legal holds (admins), the
 * team's retention period and the daily retention run (RetentionWorkflow on the Temporal schedule the
 * worker role creates at start). A deleted meeting is gone from every tool, page and search, and no
 * webhook is sent for it afterwards.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { createTestDatabase, testTaskQueue, TestDatabase } from '../../../support/testDb';
import { makeMeeting, makeTeam, makeUser, shareMeeting, TestUser } from '../../../support/factory';
import { McpHarness, startMcp } from '../../../support/mcp';
import { GraphqlHarness, startGraphql } from '../../../support/graphql';
import { testConfig } from '../../../support/config';
import { startWebhookReceiver, WebhookReceiver } from '../../../support/webhook-receiver';
import { createSoundbite } from '../../../../services/core/soundbites';
import { startSession } from '../../../../services/core/people';
import { createTemporalClient } from '../../../../services/platform/temporal';
import { startWorkerRole } from '../../../../services/worker/main';
// support/worker installs the Temporal Runtime the worker role logs through (silent in tests).
import { sharedBundle } from '../../../support/worker';
import { temporalWorkflows } from '../../../../workflows/client';
import { retentionScheduleId, webhookWorkflowId } from '../../../../workflows/contracts';
import { RetentionWorkflow } from '../../../../workflows/retention';
import { ok, refused, eventually } from '../webhooks/support';

const DELETE = 'mutation D($id: ID!) { deleteMeeting(id: $id) { id deleted } }';
const HOLD = 'mutation H($id: ID!) { setLegalHold(meetingId: $id) { id legal_hold_at legal_hold_by } }';
const LIFT = 'mutation L($id: ID!) { liftLegalHold(meetingId: $id) { id legal_hold_at legal_hold_by } }';
const RETENTION = 'mutation R($days: Int) { setTeamRetention(days: $days) { team_id retention_days } }';
const TRANSCRIPT = 'query T($id: ID!) { transcript(id: $id) { id title } }';
const DAY = 86_400_000;

const MEETING_TABLES = [
  'sentences',
  'summaries',
  'speaker_analytics',
  'meeting_analytics',
  'meeting_participants',
  'meeting_shares',
  'soundbites',
  'webhook_deliveries',
];

describe('deletion, legal hold and retention', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let gql: GraphqlHarness;
  let admin: TestUser;
  let ana: TestUser;
  let bob: TestUser;
  let outsider: TestUser;
  let outsiderAdmin: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db);
    const other = await makeTeam(t.db);
    admin = await makeUser(t.db, team, { role: 'admin' });
    ana = await makeUser(t.db, team);
    bob = await makeUser(t.db, team);
    outsider = await makeUser(t.db, other);
    outsiderAdmin = await makeUser(t.db, other, { role: 'admin' });
    mcp = await startMcp(t.db);
    gql = await startGraphql(t.db);
  });

  afterAll(async () => {
    await mcp?.close();
    await gql?.close();
    await t?.drop();
  });

  async function leftovers(id: string): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const table of MEETING_TABLES)
      out[table] = Number((await t.db(table).where({ meeting_id: id }).count({ n: '*' }))[0].n);
    out.meetings = Number((await t.db('meetings').where({ id }).count({ n: '*' }))[0].n);
    return out;
  }
  const nothingLeft = Object.fromEntries([...MEETING_TABLES, 'meetings'].map((k) => [k, 0]));

  it('the organizer deletes a meeting: everything of it goes at once, and it is gone from every tool, page and search', async () => {
    const m = await makeMeeting(t.db, {
      organizer: ana,
      title: 'Zanzibar pricing review',
      sentences: [{ speaker: 'Ana', text: 'The zanzibar discount ends in March.', start: 0, end: 3 }],
      summary: { overview: 'Zanzibar pricing.', keywords: ['zanzibar'] },
    });
    await t.db('meeting_analytics').insert({
      meeting_id: m.id,
      duration_seconds: 3,
      silence_seconds: 0,
      talk_listen_ratio: 1,
      positive_pct: 0,
      neutral_pct: 100,
      negative_pct: 0,
    });
    await shareMeeting(t.db, m.id, outsider.email);
    await createSoundbite(t.db, mcp.config, ana.principal, {
      transcriptId: m.id,
      startTime: 0,
      endTime: 3,
      name: 'Zanzibar',
      privacies: ['public'],
    });
    // Before: found by keyword, readable.
    expect(
      (await mcp.call(bob.key, 'svc_get_transcripts', { format: 'json', keyword: 'zanzibar' })).data.meetings.map(
        (x: { id: string }) => x.id,
      ),
    ).toEqual([m.id]);

    expect((await refused(gql, bob.key, DELETE, { id: m.id })).extensions?.code).toBe('forbidden');
    expect((await refused(gql, outsiderAdmin.key, DELETE, { id: m.id })).extensions?.code).toBe('object_not_found');
    expect(await ok(gql, ana.key, DELETE, { id: m.id })).toEqual({ deleteMeeting: { id: m.id, deleted: true } });

    expect(await leftovers(m.id)).toEqual(nothingLeft);
    expect(await t.db('audit_log').where({ action: 'meeting.delete', target_id: m.id }).first('actor_user_id')).toEqual(
      { actor_user_id: ana.id },
    );
    for (const [tool, args] of [
      ['svc_get_transcript', { transcriptId: m.id }],
      ['svc_get_summary', { transcriptId: m.id }],
      ['svc_fetch', { id: m.id }],
      ['svc_get_soundbites', { transcript_id: m.id }],
    ] as const) {
      expect((await mcp.call(ana.key, tool, args)).text).toContain('object_not_found');
    }
    expect(
      (await mcp.call(ana.key, 'svc_get_transcripts', { format: 'json', keyword: 'zanzibar' })).data.meetings,
    ).toEqual([]);
    expect(
      (await mcp.call(ana.key, 'svc_search', { format: 'json', query: 'zanzibar scope:all' })).data.meetings,
    ).toEqual([]);
    expect((await mcp.call(outsider.key, 'svc_get_transcripts', { format: 'json' })).data.meetings).toEqual([]);
    expect((await refused(gql, ana.key, TRANSCRIPT, { id: m.id })).extensions?.code).toBe('object_not_found');
    const { token } = await startSession(t.db, ana.principal, { method: 'api_key', apiKeyId: null, ttlMs: 60_000 });
    const base = mcp.url.replace(/\/mcp$/, '');
    expect((await fetch(`${base}/meetings/${m.id}`, { headers: { cookie: `mi_session=${token}` } })).status).toBe(404);
    const list = await (
      await fetch(`${base}/meetings?q=zanzibar`, { headers: { cookie: `mi_session=${token}` } })
    ).text();
    expect(list).not.toContain('Zanzibar pricing review');
    // Deleting again: it is not there.
    expect((await refused(gql, ana.key, DELETE, { id: m.id })).extensions?.code).toBe('object_not_found');
  });

  it("an admin deletes a teammate's meeting; a legal hold (admins only) stops every deletion until lifted, with audit rows", async () => {
    const m = await makeMeeting(t.db, { organizer: ana, title: 'Contract dispute call' });
    expect((await refused(gql, ana.key, HOLD, { id: m.id })).extensions?.code).toBe('require_elevated_privilege');
    expect((await refused(gql, outsiderAdmin.key, HOLD, { id: m.id })).extensions?.code).toBe('object_not_found');
    const held = (await ok(gql, admin.key, HOLD, { id: m.id })).setLegalHold;
    expect(held).toMatchObject({ id: m.id, legal_hold_by: admin.id });
    expect(Date.parse(held.legal_hold_at)).toBeGreaterThan(Date.now() - 60_000);
    // Setting it again changes nothing.
    expect((await ok(gql, admin.key, HOLD, { id: m.id })).setLegalHold).toEqual(held);
    for (const who of [ana, admin])
      expect((await refused(gql, who.key, DELETE, { id: m.id })).extensions?.code).toBe('invariant_violation');
    expect((await leftovers(m.id)).meetings).toBe(1);
    expect((await refused(gql, ana.key, LIFT, { id: m.id })).extensions?.code).toBe('require_elevated_privilege');
    expect((await ok(gql, admin.key, LIFT, { id: m.id })).liftLegalHold).toEqual({
      id: m.id,
      legal_hold_at: null,
      legal_hold_by: null,
    });
    expect(await ok(gql, admin.key, DELETE, { id: m.id })).toEqual({ deleteMeeting: { id: m.id, deleted: true } });
    const actions = await t.db('audit_log').where({ target_id: m.id }).orderBy('id').select('action', 'actor_user_id');
    expect(actions).toEqual([
      { action: 'meeting.legal_hold_set', actor_user_id: admin.id },
      { action: 'meeting.legal_hold_lifted', actor_user_id: admin.id },
      { action: 'meeting.delete', actor_user_id: admin.id },
    ]);
  });

  it("admins set the team's retention period (1 to 36500 days, or null), with an audit row; members may not", async () => {
    expect((await refused(gql, ana.key, RETENTION, { days: 30 })).extensions?.code).toBe('require_elevated_privilege');
    expect((await refused(gql, admin.key, RETENTION, { days: 0 })).extensions?.code).toBe('invalid_arguments');
    expect(await ok(gql, admin.key, RETENTION, { days: 30 })).toEqual({
      setTeamRetention: { team_id: admin.teamId, retention_days: 30 },
    });
    expect(await ok(gql, admin.key, 'query { teamRetention { retention_days } }')).toEqual({
      teamRetention: { retention_days: 30 },
    });
    expect(await ok(gql, admin.key, RETENTION, { days: null })).toEqual({
      setTeamRetention: { team_id: admin.teamId, retention_days: null },
    });
    const rows = await t
      .db('audit_log')
      .where({ action: 'team.retention_set', target_id: admin.teamId })
      .orderBy('id')
      .pluck('details');
    expect(rows).toEqual([
      { from: null, to: 30 },
      { from: 30, to: null },
    ]);
  });

  describe('with the worker role', () => {
    let worker: Awaited<ReturnType<typeof startWorkerRole>>;
    let client: Client;
    let connection: Connection;
    let rx: WebhookReceiver;
    const queue = testTaskQueue('governance');
    const dir = mkdtempSync(join(tmpdir(), 'mi-bundle-'));

    beforeAll(async () => {
      const bundlePath = join(dir, 'workflows.js');
      writeFileSync(bundlePath, (await sharedBundle()).code);
      process.env.MI_WORKFLOW_BUNDLE = bundlePath;
      const config = testConfig(
        {
          DATABASE_URL: t.url,
          TEMPORAL_TASK_QUEUE: queue,
          WORKER_METRICS_PORT: '0',
          HOST: '127.0.0.1',
          SHUTDOWN_GRACE_MS: '500',
          // No embedding backfill beside the run: a meeting it holds at that moment is left for the
          // next run (retention skips locked rows), and this test counts one run's deletions exactly.
          EMBEDDING_MODEL_DIR: 'off',
        },
        'worker',
      );
      worker = await startWorkerRole(config);
      ({ client, connection } = createTemporalClient(config));
      rx = await startWebhookReceiver();
    }, 120_000);

    afterAll(async () => {
      delete process.env.MI_WORKFLOW_BUNDLE;
      await client?.schedule
        .getHandle(retentionScheduleId(queue))
        .delete()
        .catch(() => undefined);
      await connection?.close();
      await worker?.close();
      await rx?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("the schedule exists after the worker starts (daily, RetentionWorkflow on the worker's queue), and triggering it deletes exactly the meetings past the period, not those on hold", async () => {
      const schedule = await client.schedule.getHandle(retentionScheduleId(queue)).describe();
      expect(schedule.action).toMatchObject({
        type: 'startWorkflow',
        workflowType: 'RetentionWorkflow',
        taskQueue: queue,
      });
      expect(schedule.spec.calendars?.length).toBeGreaterThan(0);

      await ok(gql, admin.key, RETENTION, { days: 30 });
      const now = Date.now();
      const at = (ms: number) => new Date(now - ms);
      const mk = (title: string, date: Date, organizer = ana) => makeMeeting(t.db, { organizer, title, date });
      const past = await mk('31 days old', at(31 * DAY));
      const justPast = await mk('30 days and an hour old', at(30 * DAY + 3_600_000));
      const justWithin = await mk('29 days and 23 hours old', at(30 * DAY - 3_600_000));
      const recent = await mk('yesterday', at(DAY));
      const held = await mk('held, a year old', at(365 * DAY));
      await ok(gql, admin.key, HOLD, { id: held.id });
      const otherTeam = await mk('another team, no retention, a year old', at(365 * DAY), outsider);
      // A backlog bigger than one batch (the schedule's run uses 100 a batch).
      const backlog = await Promise.all(Array.from({ length: 130 }, (_, i) => mk(`old ${i}`, at((40 + i) * DAY))));

      await client.schedule.getHandle(retentionScheduleId(queue)).trigger();
      const run = await eventually(
        async () => {
          const d = await client.schedule.getHandle(retentionScheduleId(queue)).describe();
          const recent = d.info.recentActions.at(-1);
          return recent ? recent.action.workflow : undefined;
        },
        30_000,
        'the triggered run',
      );
      const result = await client.workflow.getHandle(run.workflowId, run.firstExecutionRunId).result();
      expect(result).toMatchObject({ deletedMeetings: 132 });

      const left = new Set(await t.db('meetings').pluck('id'));
      for (const gone of [past, justPast, ...backlog]) expect(left.has(gone.id)).toBe(false);
      for (const kept of [justWithin, recent, held, otherTeam]) expect(left.has(kept.id)).toBe(true);
      expect(await leftovers(past.id)).toEqual(nothingLeft);
      expect(await t.db('audit_log').where({ action: 'meeting.delete_by_retention' }).count({ n: '*' })).toEqual([
        { n: '132' },
      ]);
    }, 90_000);

    it('the boundary: a run at a fixed instant deletes meetings dated before it minus the period, keeps those at or after', async () => {
      // A team of its own, so only its meetings are at stake; the first team keeps its meetings for ever again.
      await ok(gql, admin.key, RETENTION, { days: null });
      const team = await makeTeam(t.db);
      const boss = await makeUser(t.db, team, { role: 'admin' });
      await ok(gql, boss.key, RETENTION, { days: 10 });
      const now = new Date('2026-11-20T12:00:00Z');
      const mk = (title: string, offsetMs: number) =>
        makeMeeting(t.db, { organizer: boss, title, date: new Date(now.getTime() - 10 * DAY + offsetMs) });
      const before = await mk('a second past the period', -1000);
      const exactly = await mk('exactly the period', 0);
      const after = await mk('a second within the period', 1000);
      const result = await client.workflow.execute(RetentionWorkflow, {
        taskQueue: queue,
        workflowId: `retention-boundary-${queue}`,
        args: [{ now: now.toISOString(), batchSize: 1 }],
      });
      expect(result).toEqual({ now: now.toISOString(), deletedMeetings: 1, prunedReads: 0 });
      const left = new Set(await t.db('meetings').pluck('id'));
      expect([left.has(before.id), left.has(exactly.id), left.has(after.id)]).toEqual([false, true, true]);
    }, 60_000);

    it('old read-audit rows are pruned by the run (READ_AUDIT_RETENTION, default 365d)', async () => {
      await t.db('read_audit').insert([
        {
          team_id: ana.teamId,
          user_id: ana.id,
          meeting_id: 'm1',
          surface: 'mcp:test',
          read_at: new Date(Date.now() - 366 * DAY),
        },
        {
          team_id: ana.teamId,
          user_id: ana.id,
          meeting_id: 'm2',
          surface: 'mcp:test',
          read_at: new Date(Date.now() - 364 * DAY),
        },
      ]);
      const result = await client.workflow.execute(RetentionWorkflow, {
        taskQueue: queue,
        workflowId: `retention-prune-${queue}`,
        args: [{}],
      });
      expect(result.prunedReads).toBe(1);
      expect(await t.db('read_audit').whereIn('meeting_id', ['m1', 'm2']).pluck('meeting_id')).toEqual(['m2']);
    }, 60_000);

    it('no webhook is sent for a meeting deleted while its delivery waits to retry: the run ends skipped', async () => {
      const m = await makeMeeting(t.db, { organizer: ana, title: 'Webhook then delete' });
      rx.script('/gone', [503]);
      const [delivery] = await t
        .db('webhook_deliveries')
        .insert({
          id: `d-${m.id}`,
          team_id: ana.teamId,
          meeting_id: m.id,
          target: 'upload',
          url: rx.url('/gone'),
          payload: JSON.stringify({ meetingId: m.id }),
          status: 'pending',
          ready_at: new Date(),
        })
        .returning('id');
      const port = temporalWorkflows(client, queue);
      await port.redeliverWebhook({
        deliveryId: delivery.id,
        meetingId: m.id,
        target: 'upload',
        scheduleMs: [0, 1500, 1500],
        timeoutMs: 2000,
      });
      await rx.waitFor('/gone', 1, 20_000);
      // The first attempt is on the ledger before the meeting goes (else that attempt itself ends skipped).
      const recorded = Date.now() + 20_000;
      while ((await t.db('webhook_deliveries').where({ id: delivery.id }).first('attempts_count')).attempts_count < 1) {
        if (Date.now() > recorded) throw new Error('the first attempt was not recorded within 20 s');
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(await ok(gql, ana.key, DELETE, { id: m.id })).toEqual({ deleteMeeting: { id: m.id, deleted: true } });
      const result = await client.workflow.getHandle(webhookWorkflowId(m.id, 'upload')).result();
      expect(result).toMatchObject({ status: 'skipped', attempts: 2 });
      await new Promise((r) => setTimeout(r, 500));
      expect(rx.requests('/gone')).toHaveLength(1);
    }, 60_000);
  });
});
