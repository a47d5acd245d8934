/**
 * Upgrade and rollback with work in flight, as a platform team runs them: the previous release
 * (releases.json; its code checked out from this repository's history) migrates an empty database
 * and serves it: uploads of caption files (one of them downloading when its worker stops), a live
 * meeting, a rule that runs on every upload, webhook deliveries retrying against a receiver that
 * answers 503, and MCP calls the whole time. Then this
 * release migrates (the chart's pre-upgrade hook), its roles start beside the old ones, the old ones
 * leave their Services and stop (a rolling update). Then the rollback: the previous release's roles
 * start again on the new schema (nothing runs `migrate down`) and this release's stop.
 *
 * While this release serves, the saved webhook also subscribes to a V2 event and a team-wide webhook
 * to V2 events alone: the previous release, rolled back onto the schema that holds their deliveries,
 * still records and sends its V1 deliveries and lists its ledger without tripping over them.
 *
 * At the end: every upload has its transcript once, the live meeting's sentences are there once each,
 * every workflow the previous release started completed, every delivery was delivered, and no call
 * through a Service was answered 5xx.
 */
import { APPEND, END, said, START } from '../core/live/support';
import { MediaServer, startMediaServer } from '../core/ingest/media-server';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import knexFactory, { Knex } from 'knex';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, Connection } from '@temporalio/client';
import { RELEASE } from '../../../services/platform/release';
import { withDatabase } from '../../support/globalSetup';
import { RECEIVER_CERT_PATH, startWebhookReceiver, WebhookReceiver } from '../../support/webhook-receiver';
import {
  cli,
  checkOut,
  previousRelease,
  REPO,
  RoleName,
  RunningRole,
  Service,
  startRole,
  startService,
} from './release-roles';

const VTT = (n: number) =>
  `WEBVTT\n\n00:00:01.000 --> 00:00:03.000\n<v Rae>Board upload ${n}: ship it on Friday.\n\n00:00:03.500 --> 00:00:05.000\n<v Sol>Agreed, upload ${n}.\n`;
const UPLOAD = `mutation U($input: AudioUploadInput!) { uploadAudio(input: $input) { success meetingId } }`;
const CREATE_RULE = `mutation R($input: RuleInput!) { createRule(input: $input) { id } }`;
const SAVE_WEBHOOK = `mutation S($url: String!) { saveWebhookUrl(url: $url) { url } }`;
const SET_SECRET = `mutation K($secret: String) { setWebhookSecret(secret: $secret) { secret } }`;
const SAVE_WEBHOOK_EVENTS = `mutation S($url: String!, $events: [String!]) { saveWebhookUrl(url: $url, events: $events) { events } }`;
const SET_TEAM_WEBHOOK = `mutation T($url: String!, $events: [String!]) { setTeamWebhook(url: $url, events: $events) { secret } }`;
const LEDGER = `query L($scope: WebhookScope) { webhookDeliveries(scope: $scope, limit: 50) { deliveries { meeting_id target status payload } } }`;
const V1_EVENT = 'Transcription completed';

jest.setTimeout(8 * 60_000);

describe(`upgrade from the previous release to ${RELEASE} and back, with work in flight`, () => {
  const previous = previousRelease();
  const work = mkdtempSync(join(tmpdir(), 'mi-upgrade-'));
  const dbName = `mi_t_${process.env.MI_TEST_RUN_ID}_upgrade_${randomBytes(4).toString('hex')}`;
  const databaseUrl = withDatabase(process.env.MI_TEST_ADMIN_URL!, dbName);
  const queue = `test-upgrade-${randomBytes(4).toString('hex')}`;
  let oldDir: string;
  let db: Knex;
  let media: MediaServer;
  let rx: WebhookReceiver;
  let temporal: Client;
  let connection: Connection;
  const services: Record<'mcp' | 'graphql', Service> = {} as never;
  const running: RunningRole[] = [];
  let env: Record<string, string>;
  let key = '';
  let teamKey = '';
  const uploads: { id: string; by: string }[] = [];
  let mcpLoop: Promise<void> | undefined;
  let stopMcpLoop = false;
  const mcpResults: { ok: boolean; error?: string }[] = [];

  const admin = () =>
    knexFactory({ client: 'pg', connection: process.env.MI_TEST_ADMIN_URL!, pool: { min: 0, max: 1 } });

  beforeAll(async () => {
    oldDir = checkOut(previous, join(work, previous.version));
    const a = admin();
    await a.raw(`create database ${dbName}`);
    await a.destroy();
    db = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 2 } });
    media = await startMediaServer();
    rx = await startWebhookReceiver();
    rx.script('/hook', [503]);
    connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS });
    temporal = new Client({ connection });
    services.mcp = await startService();
    services.graphql = await startService();
    env = {
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
      TEMPORAL_TASK_QUEUE: queue,
      SECRETS_KEY: '1'.repeat(64),
      ALLOW_PRIVATE_NETWORK: 'true',
      NODE_EXTRA_CA_CERTS: RECEIVER_CERT_PATH,
      PUBLIC_BASE_URL: services.mcp.url,
      // Retries every second for two minutes: attempts keep failing while the roles change.
      WEBHOOK_RETRY_SCHEDULE: ['0s', ...Array(120).fill('1s')].join(','),
      WEBHOOK_TIMEOUT: '5s',
      SHUTDOWN_GRACE_MS: '3000',
    };
  });

  afterAll(async () => {
    stopMcpLoop = true;
    await mcpLoop?.catch(() => {});
    await Promise.all(running.map((r) => r.stop()));
    await temporal?.schedule
      .getHandle(`retention-${queue}`)
      .delete()
      .catch(() => {});
    await connection?.close();
    await Promise.all([services.mcp?.close(), services.graphql?.close(), media?.close(), rx?.close()]);
    await db?.destroy();
    const a = admin();
    await a.raw(`drop database if exists ${dbName} with (force)`);
    await a.destroy();
    rmSync(work, { recursive: true, force: true });
  });

  const start = async (dir: string, release: string, roles: RoleName[]) => {
    const started = await Promise.all(roles.map((r) => startRole(dir, release, r, env)));
    running.push(...started);
    return started;
  };
  const stop = async (pods: RunningRole[]) => {
    const codes = await Promise.all(pods.map((p) => p.stop()));
    for (const p of pods) running.splice(running.indexOf(p), 1);
    return codes;
  };
  /**
   * A rolling update in one step: the new pods join the Services, the old ones leave, keep serving for
   * a moment (the chart's preStopSleepSeconds, shortened: requests routed to them just before they left
   * must reach them before they stop listening), then stop.
   */
  const rollTo = async (from: RunningRole[], to: RunningRole[]) => {
    for (const role of ['mcp', 'graphql'] as const) services[role].route(to.filter((p) => p.role === role));
    await new Promise((r) => setTimeout(r, 500));
    // Requests already sent to the old pods finish (graceful shutdown); new ones go to the new pods.
    expect(await stop(from)).toEqual(from.map(() => 0));
  };

  const gql = async (query: string, variables: Record<string, unknown>, as = key) => {
    const res = await fetch(`${services.graphql.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${as}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: any; errors?: unknown[] };
    if (res.status !== 200 || body.errors)
      throw new Error(`graphql answered ${res.status}: ${JSON.stringify(body.errors)}`);
    return body.data;
  };
  const upload = async (n: number, by: string, stall = false) => {
    const url = media.serve(`/board-${n}.vtt`, { body: VTT(n), contentType: 'text/vtt', stall });
    const { uploadAudio } = await gql(UPLOAD, { input: { url, title: `Board review ${n}` } });
    uploads.push({ id: uploadAudio.meetingId, by });
  };
  const closed = async (workflowId: string, timeoutMs = 120_000) => {
    const handle = temporal.workflow.getHandle(workflowId);
    const end = Date.now() + timeoutMs;
    for (;;) {
      const d = await handle.describe();
      if (d.status.name !== 'RUNNING') return d.status.name;
      if (Date.now() > end) return 'RUNNING';
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  /** MCP calls the whole time, through the Service, each with a fresh client as a stateless agent. */
  const loopMcp = async () => {
    while (!stopMcpLoop) {
      const c = new McpClient({ name: 'upgrade-test', version: RELEASE });
      try {
        await c.connect(
          new StreamableHTTPClientTransport(new URL(`${services.mcp.url}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${key}` } },
          }),
        );
        const res = (await c.callTool({ name: 'svc_get_active_meetings', arguments: {} })) as {
          isError?: boolean;
          content: { text: string }[];
        };
        mcpResults.push({ ok: !res.isError, error: res.isError ? res.content[0]?.text : undefined });
      } catch (e) {
        mcpResults.push({ ok: false, error: String(e) });
      } finally {
        await c.close().catch(() => {});
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  it('keeps every upload, transcript, workflow, delivery and call through upgrade and rollback', async () => {
    // --- the previous release, as installed: it migrates an empty database itself --------------------
    const migrated = cli(oldDir, ['migrate', 'up'], env);
    expect(migrated.applied.length).toBeGreaterThan(0);
    const team = cli(oldDir, ['team', 'create', '--name', 'Upgraders', '--tier', 'enterprise'], env).team;
    cli(
      oldDir,
      ['user', 'create', '--team', team.id, '--email', 'rae@upgrade.test', '--name', 'Rae', '--role', 'admin'],
      env,
    );
    key = cli(oldDir, ['apikey', 'create', '--email', 'rae@upgrade.test'], env).key;
    cli(
      oldDir,
      ['user', 'create', '--team', team.id, '--email', 'sam@upgrade.test', '--name', 'Sam', '--role', 'super_admin'],
      env,
    );
    teamKey = cli(oldDir, ['apikey', 'create', '--email', 'sam@upgrade.test'], env).key;

    let old = await start(oldDir, previous.version, ['mcp', 'graphql', 'worker']);
    services.mcp.route(old.filter((p) => p.role === 'mcp'));
    services.graphql.route(old.filter((p) => p.role === 'graphql'));
    mcpLoop = loopMcp();

    await gql(CREATE_RULE, {
      input: {
        name: 'Board shares',
        conditions: [{ type: 'title_contains', text: 'Board' }],
        actions: [{ type: 'share', emails: ['board@partner.test'], expiry_days: 7 }],
      },
    });
    await gql(SAVE_WEBHOOK, { url: rx.url('/hook') });
    await gql(SET_SECRET, { secret: 'upgrade-secret-12345' });
    const live: string = (await gql(START, { input: { title: 'Standup across the upgrade' } })).startLiveMeeting;
    await gql(APPEND, {
      id: live,
      sentences: [said(0, 'Rae', 'Before the upgrade.'), said(1, 'Sol', 'Still before it.')],
    });
    for (let n = 0; n < 3; n++) await upload(n, previous.version);
    // One more whose download hangs on the old worker: it is in the middle of an activity when the
    // worker is told to stop, and must be finished by a worker of the new release.
    await upload(3, previous.version, true);
    await media.waitForHit('/board-3.vtt');
    // The first upload done: its webhook is failing and retrying when the roles change.
    expect(await closed(`transcription-${uploads[0].id}`)).toBe('COMPLETED');
    await rx.waitFor('/hook', 2);

    // --- upgrade: migrate (the pre-upgrade hook), start this release, stop the previous one ------------
    // A pod of this release rolled out before the migration refuses, naming what to do.
    await expect(startRole(REPO, RELEASE, 'mcp', env)).rejects.toThrow(
      /exited 1: error: the database lacks \d+ migrations? of release [\d.]+ \(.*\): run `meeting-intel migrate up`/,
    );
    const up = cli(REPO, ['migrate', 'up'], env);
    expect(up).toMatchObject({ action: 'up', release: RELEASE, schemaRelease: RELEASE, runs: true });
    expect(up.applied.length).toBeGreaterThan(0);
    const current = await start(REPO, RELEASE, ['mcp', 'graphql', 'worker']);
    await rollTo(old, current);
    media.release('/board-3.vtt');

    await gql(APPEND, { id: live, sentences: [said(2, 'Rae', 'After the upgrade.')] });
    // Webhooks V2 beside V1: Rae's saved webhook adds a V2 event, the team-wide one takes V2 alone.
    expect(
      (await gql(SAVE_WEBHOOK_EVENTS, { url: rx.url('/hook'), events: [V1_EVENT, 'meeting.transcribed'] }))
        .saveWebhookUrl.events,
    ).toEqual([V1_EVENT, 'meeting.transcribed']);
    expect(
      (await gql(SET_TEAM_WEBHOOK, { url: rx.url('/team'), events: ['meeting.transcribed'] }, teamKey)).setTeamWebhook
        .secret,
    ).toEqual(expect.any(String));
    for (let n = 4; n < 6; n++) await upload(n, RELEASE);
    rx.script('/hook', [200]);
    for (const u of uploads)
      expect({ id: u.id, status: await closed(`transcription-${u.id}`) }).toEqual({ id: u.id, status: 'COMPLETED' });
    const upgraded = uploads.slice(4).map((u) => u.id);
    const v2Rows = () =>
      db('webhook_deliveries')
        .whereIn('meeting_id', upgraded)
        .whereNot({ event: V1_EVENT })
        .orderBy('id')
        .select('id', 'event_target', 'status', 'attempts_count');
    // This release's deliveries are sent before the rollback: a V2 delivery still retrying when the
    // previous release's worker takes it over ends `skipped`, since that release cannot sign it.
    const pending = async () =>
      Number((await db('webhook_deliveries').where({ status: 'pending' }).count({ n: '*' }))[0].n);
    for (const end = Date.now() + 120_000; (await pending()) > 0 && Date.now() < end;)
      await new Promise((r) => setTimeout(r, 250));
    expect(await pending()).toBe(0);
    const v2Sent = await v2Rows();
    expect(v2Sent.map((d) => `${d.event_target} ${d.status}`).sort()).toEqual([
      'owner delivered',
      'owner delivered',
      'team delivered',
      'team delivered',
    ]);

    // --- rollback: the previous release on the new schema; nothing reverts a migration ---------------
    expect(cli(REPO, ['migrate', 'status', '--release', previous.version], env)).toMatchObject({
      release: previous.version,
      schemaRelease: RELEASE,
      runs: true,
    });
    old = await start(oldDir, previous.version, ['mcp', 'graphql', 'worker']);
    await rollTo(current, old);
    const status = cli(REPO, ['migrate', 'status'], env);
    expect(status).toMatchObject({ pending: [], schemaRelease: RELEASE, runs: true });

    await gql(APPEND, { id: live, sentences: [said(3, 'Sol', 'After the rollback.')] });
    await upload(6, previous.version);
    await gql(END, { id: live });

    // The previous release records its V1 deliveries on the new schema: to Rae's saved webhook, and
    // to the team-wide one (it knows no subscriptions, so it sends the V1 event it always sent).
    const rolledBack = uploads[6].id;
    expect(await closed(`transcription-${rolledBack}`)).toBe('COMPLETED');
    expect(
      await db('webhook_deliveries')
        .where({ meeting_id: rolledBack })
        .orderBy('target')
        .select('target', 'event_target', 'event'),
    ).toEqual([
      { target: 'owner', event_target: null, event: V1_EVENT },
      { target: 'team', event_target: null, event: V1_EVENT },
    ]);
    const teamV1 = () => rx.requests('/team').filter((r) => JSON.parse(r.rawBody.toString()).meetingId === rolledBack);
    for (const end = Date.now() + 60_000; !teamV1().length && Date.now() < end;)
      await new Promise((r) => setTimeout(r, 250));
    expect(teamV1().map((r) => r.rawBody.toString())).toEqual([
      `{"meetingId":"${rolledBack}","eventType":"${V1_EVENT}"}`,
    ]);
    // Its ledger lists its own V1 deliveries and never a V2 one, whose target it has no name for.
    const mine = (await gql(LEDGER, { scope: 'user' })).webhookDeliveries.deliveries as {
      meeting_id: string;
      target: string;
      payload: string;
    }[];
    expect(mine.map((d) => d.target)).toContain('owner');
    expect(mine.filter((d) => !d.payload.includes(V1_EVENT))).toEqual([]);
    // The team-wide webhook: V1 deliveries of the meetings finished since the rollback (the upload, and
    // the live meeting once it ends); the V2 ones of this release's uploads are not its to list.
    const teams = (await gql(LEDGER, { scope: 'team' }, teamKey)).webhookDeliveries.deliveries as {
      meeting_id: string;
      target: string;
      payload: string;
    }[];
    expect(teams.map((d) => `${d.meeting_id} ${d.target}`)).toContain(`${rolledBack} team`);
    expect(teams.filter((d) => !d.payload.includes(V1_EVENT) || upgraded.includes(d.meeting_id))).toEqual([]);
    // The V2 deliveries this release made are as it left them.
    expect(await v2Rows()).toEqual(v2Sent);
    stopMcpLoop = true;
    await mcpLoop;

    // --- nothing lost, nothing twice ------------------------------------------------------------------
    for (const u of uploads)
      expect({ id: u.id, status: await closed(`transcription-${u.id}`) }).toEqual({ id: u.id, status: 'COMPLETED' });
    expect(await closed(`live-${live}`)).toBe('COMPLETED');
    // The download the old worker was in when it stopped was made again, by the new release.
    expect(media.hits('/board-3.vtt').length).toBeGreaterThanOrEqual(2);
    const meetings = await db('meetings')
      .whereIn(
        'id',
        uploads.map((u) => u.id),
      )
      .select('id', 'status');
    expect(meetings.map((m) => m.status)).toEqual(uploads.map(() => 'completed'));
    const sentences = await db('sentences')
      .whereIn('meeting_id', [...uploads.map((u) => u.id), live])
      .select('meeting_id', 'text')
      .orderBy(['meeting_id', 'idx']);
    const byMeeting = (id: string) => sentences.filter((s) => s.meeting_id === id).map((s) => s.text);
    for (const [i, u] of uploads.entries())
      expect(byMeeting(u.id)).toEqual([`Board upload ${i}: ship it on Friday.`, `Agreed, upload ${i}.`]);
    expect(byMeeting(live)).toEqual([
      'Before the upgrade.',
      'Still before it.',
      'After the upgrade.',
      'After the rollback.',
    ]);

    // Every workflow on the queue, whichever release started it, completed: none running, none failed.
    await Promise.all([...uploads.map((u) => closed(`rules-${u.id}`)), closed(`rules-${live}`)]);
    const workflows: { id: string; type: string; status: string }[] = [];
    for await (const w of temporal.workflow.list({ query: `TaskQueue = "${queue}"` }))
      workflows.push({ id: w.workflowId, type: w.type, status: w.status.name });
    const byType = (type: string) => workflows.filter((w) => w.type === type);
    expect(byType('TranscriptionWorkflow')).toHaveLength(uploads.length);
    // Rules run once per finished meeting: every upload, and the live meeting once it ended.
    expect(
      byType('RuleExecutionWorkflow')
        .map((w) => w.id)
        .sort(),
    ).toEqual([...uploads.map((u) => `rules-${u.id}`), `rules-${live}`].sort());
    expect(byType('LiveMeetingWorkflow')).toHaveLength(1);
    expect(byType('WebhookDeliveryWorkflow').length).toBeGreaterThanOrEqual(uploads.length);
    // A delivery still retrying when the test ends would be RUNNING: wait for the last ones.
    for (const w of byType('WebhookDeliveryWorkflow'))
      expect({ id: w.id, status: await closed(w.id) }).toEqual({ id: w.id, status: 'COMPLETED' });
    expect(workflows.filter((w) => !['COMPLETED', 'RUNNING'].includes(w.status))).toEqual([]);

    const deliveries = await db('webhook_deliveries').select('id', 'status');
    expect(deliveries.length).toBeGreaterThanOrEqual(uploads.length);
    expect(deliveries.filter((d) => d.status !== 'delivered')).toEqual([]);
    const shares = await db('meeting_shares')
      .whereIn(
        'meeting_id',
        uploads.map((u) => u.id),
      )
      .select('meeting_id');
    expect(shares.map((s) => s.meeting_id).sort()).toEqual(uploads.map((u) => u.id).sort());

    // No call answered 5xx, and the MCP calls made across both switches all succeeded.
    for (const s of [services.mcp, services.graphql]) expect(s.answers.filter((a) => a.status >= 500)).toEqual([]);
    expect(new Set(services.mcp.answers.map((a) => a.release))).toEqual(new Set([previous.version, RELEASE]));
    expect(mcpResults.filter((r) => !r.ok)).toEqual([]);
    expect(mcpResults.length).toBeGreaterThan(10);
  });
});
