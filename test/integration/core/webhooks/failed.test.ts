/**
 * meeting.failed (docs/webhooks-v2.md), end to end: an upload whose recording cannot be downloaded
 * fails in TranscriptionWorkflow, which starts one WebhookDeliveryWorkflow per target subscribed to
 * meeting.failed; a real https receiver gets it once, signed sha256=<hex> of the raw body, with the
 * reason every reader of the meeting is shown. V1 subscribers get nothing for a failed meeting, and a
 * completed meeting never fires meeting.failed. Signatures are checked with node:crypto here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordDeliveries } from '../../../../services/core/webhooks';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { makeTeam, makeUser, TestUser } from '../../../support/factory';
import { GraphqlHarness, startGraphql, UPLOAD_AUDIO } from '../../../support/graphql';
import { startTestWorker, TestWorker, waitForRun } from '../../../support/worker';
import { startWebhookReceiver, WebhookReceiver } from '../../../support/webhook-receiver';
import { MediaServer, startMediaServer } from '../ingest/media-server';
import { body, eventually, hmacHex, ok, SAVE_EVENTS, SET_SECRET, SET_TEAM_EVENTS } from './support';

const VTT = readFileSync(
  join(__dirname, '..', '..', '..', '..', 'services', 'cli', 'demo', 'meetings', '2026-10-08-q4-roadmap-planning.vtt'),
);

describe('meeting.failed', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let worker: TestWorker;
  let rx: WebhookReceiver;
  let media: MediaServer;
  let olga: TestUser; // saved webhook: meeting.failed and meeting.transcribed
  let pete: TestUser; // saved webhook as before events existed: V1 only
  let sam: TestUser; // super admin: the team-wide webhook, meeting.failed alone
  const secrets: Record<string, string> = {};
  const queue = testTaskQueue('webhook-failed');
  let failedOlga: string;
  let failedPete: string;
  let completedOlga: string;
  let started: number;

  const upload = async (u: TestUser, input: Record<string, unknown>) =>
    (await ok(gql, u.key, UPLOAD_AUDIO, { input })).uploadAudio.meetingId as string;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'enterprise', name: 'Failures' });
    olga = await makeUser(t.db, team, { name: 'Olga Organizer' });
    pete = await makeUser(t.db, team, { name: 'Pete Plain' });
    sam = await makeUser(t.db, team, { role: 'super_admin' });
    rx = await startWebhookReceiver();
    media = await startMediaServer();
    const env = { WEBHOOK_RETRY_SCHEDULE: '0s,200ms,400ms', WEBHOOK_TIMEOUT: '2s' };
    gql = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: queue, ...env });
    worker = await startTestWorker(t.db, { taskQueue: queue, env });

    await ok(gql, olga.key, SAVE_EVENTS, { url: rx.url('/olga'), events: ['meeting.failed', 'meeting.transcribed'] });
    secrets['/olga'] = (await ok(gql, olga.key, SET_SECRET, { generate: true })).setWebhookSecret.secret;
    await ok(gql, pete.key, SAVE_EVENTS, { url: rx.url('/pete') });
    secrets['/pete'] = (await ok(gql, pete.key, SET_SECRET, { generate: true })).setWebhookSecret.secret;
    secrets['/team'] = (
      await ok(gql, sam.key, SET_TEAM_EVENTS, { url: rx.url('/team'), events: ['meeting.failed'] })
    ).setTeamWebhook.secret;

    const missing = `${media.url}/gone.vtt`;
    started = Date.now();
    failedOlga = await upload(olga, {
      url: missing,
      title: 'Lost recording',
      webhook: rx.url('/upload'),
      webhook_events: ['meeting.failed'],
      client_reference_id: 'ref-lost',
    });
    failedPete = await upload(pete, { url: missing, title: 'Lost too' });
    completedOlga = await upload(olga, {
      url: media.serve('/planning.vtt', { body: VTT, contentType: 'text/vtt' }),
      title: 'Q4 planning',
    });
    for (const id of [failedOlga, failedPete]) expect(await waitForRun(gql.temporal, id, 120_000)).toBeTruthy();
    expect(await waitForRun(gql.temporal, completedOlga, 120_000)).toMatchObject({ status: 'completed' });
    await eventually(
      async () =>
        (await t.db('webhook_deliveries').where({ status: 'pending' }).count({ n: '*' }))[0].n === '0' &&
        rx.requests('/team').length >= 2
          ? true
          : undefined,
      120_000,
    );
  }, 240_000);

  afterAll(async () => {
    await worker?.stop();
    await gql?.close();
    await media?.close();
    await rx?.close();
    await t?.drop();
  });

  it("sends it once to each subscribed target, signed, with the reason the meeting's readers see", async () => {
    const reasons = new Map(
      (await t.db('meetings').whereIn('id', [failedOlga, failedPete]).select('id', 'status', 'failure_reason')).map(
        (m) => [m.id, m],
      ),
    );
    expect(reasons.get(failedOlga)).toMatchObject({ status: 'failed', failure_reason: expect.stringMatching(/404/) });

    const olgas = rx.requests('/olga').filter((r) => body(r).event === 'meeting.failed');
    expect(olgas).toHaveLength(1);
    const upload = rx.requests('/upload');
    expect(upload).toHaveLength(1);
    for (const r of [olgas[0], upload[0]]) {
      expect(r.rawBody.toString()).toBe(
        JSON.stringify({
          event: 'meeting.failed',
          timestamp: body(r).timestamp,
          meeting_id: failedOlga,
          client_reference_id: 'ref-lost',
          reason: reasons.get(failedOlga).failure_reason,
        }),
      );
      expect(body(r).timestamp).toBeGreaterThanOrEqual(started);
      // The upload's own webhook is signed with the uploader's saved secret.
      expect(r.headers['x-hub-signature']).toBe(`sha256=${hmacHex(secrets['/olga'], r.rawBody)}`);
    }

    const team = rx.requests('/team');
    expect(team.map((r) => [body(r).event, body(r).meeting_id]).sort()).toEqual(
      [
        ['meeting.failed', failedOlga],
        ['meeting.failed', failedPete],
      ].sort(),
    );
    for (const r of team) {
      expect(r.headers['x-hub-signature']).toBe(`sha256=${hmacHex(secrets['/team'], r.rawBody)}`);
      expect(body(r).reason).toBe(reasons.get(body(r).meeting_id).failure_reason);
    }
  });

  it('sends V1 subscribers nothing for a failed meeting, and never meeting.failed for a completed one', async () => {
    const pete1 = rx.requests('/pete');
    expect(pete1).toEqual([]);
    const olgas = rx.requests('/olga').map((r) => [body(r).event, body(r).meeting_id]);
    expect(olgas.sort()).toEqual(
      [
        ['meeting.failed', failedOlga],
        ['meeting.transcribed', completedOlga],
      ].sort(),
    );
    expect(await t.db('webhook_deliveries').where({ meeting_id: completedOlga, event: 'meeting.failed' })).toEqual([]);
  });

  it('fires once per failure: preparing again finds the same deliveries', async () => {
    const ledger = () =>
      t.db('webhook_deliveries').where({ meeting_id: failedOlga }).orderBy('id').select('id', 'event', 'status');
    const before = await ledger();
    expect(before.map((d) => [d.event, d.status])).toEqual([
      ['meeting.failed', 'delivered'],
      ['meeting.failed', 'delivered'],
      ['meeting.failed', 'delivered'],
    ]);
    const again = await recordDeliveries(t.db, gql.config, failedOlga);
    expect(again.map((d) => d.deliveryId).sort()).toEqual(before.map((d) => d.id).sort());
    expect(await ledger()).toEqual(before);
  });
});
