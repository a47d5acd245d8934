/**
 * Who gets what (docs/webhooks.md, Who gets what), end to end: real uploads of a caption fixture through GraphQL
 * uploadAudio → TranscriptionWorkflow → its post-processing starts one WebhookDeliveryWorkflow per
 * target → a real https receiver. The organizer's saved webhook fires, a participant's does not; the
 * team-wide webhook fires for every meeting of its team and no other; a per-upload webhook fires for
 * its upload only.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { makeTeam, makeUser, TestUser } from '../../../support/factory';
import { GraphqlHarness, startGraphql, UPLOAD_AUDIO } from '../../../support/graphql';
import { startTestWorker, TestWorker, waitForRun } from '../../../support/worker';
import { startWebhookReceiver, WebhookReceiver } from '../../../support/webhook-receiver';
import { MediaServer, startMediaServer } from '../ingest/media-server';
import { DELIVERIES, eventually, ok, refused, SAVE_URL, SET_SECRET, SET_TEAM } from './support';

const VTT = readFileSync(
  join(__dirname, '..', '..', '..', '..', 'services', 'cli', 'demo', 'meetings', '2026-10-05-engineering-standup.vtt'),
);

describe('webhook targets of real uploads', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let worker: TestWorker;
  let rx: WebhookReceiver;
  let media: MediaServer;
  let olga: TestUser; // organizer
  let pete: TestUser; // a participant of Olga's meeting, with a saved webhook of his own
  let sam: TestUser; // super admin: sets the team-wide webhook
  let xavier: TestUser; // another Enterprise team
  const secrets: Record<string, string> = {};
  const queue = testTaskQueue('webhook-routing');
  const meetings: Record<'olgaWithHook' | 'olgaPlain' | 'pete' | 'otherTeam', string> = {
    olgaWithHook: '',
    olgaPlain: '',
    pete: '',
    otherTeam: '',
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'enterprise', name: 'Routing' });
    olga = await makeUser(t.db, team, { name: 'Olga Organizer' });
    pete = await makeUser(t.db, team, { name: 'Pete Participant' });
    sam = await makeUser(t.db, team, { role: 'super_admin' });
    xavier = await makeUser(t.db, await makeTeam(t.db, { tier: 'enterprise', name: 'Elsewhere' }), {
      role: 'super_admin',
    });
    rx = await startWebhookReceiver();
    media = await startMediaServer();
    const env = { WEBHOOK_RETRY_SCHEDULE: '0s,200ms,400ms', WEBHOOK_TIMEOUT: '2s' };
    gql = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: queue, ...env });
    worker = await startTestWorker(t.db, { taskQueue: queue, env });

    // Developer settings, the way users make them.
    for (const [u, path] of [
      [olga, '/olga'],
      [pete, '/pete'],
    ] as const) {
      await ok(gql, u.key, SAVE_URL, { url: rx.url(path) });
      secrets[path] = (await ok(gql, u.key, SET_SECRET, { generate: true })).setWebhookSecret.secret;
    }
    secrets['/team'] = (await ok(gql, sam.key, SET_TEAM, { url: rx.url('/team') })).setTeamWebhook.secret;
    secrets['/team-x'] = (await ok(gql, xavier.key, SET_TEAM, { url: rx.url('/team-x') })).setTeamWebhook.secret;

    const url = media.serve('/standup.vtt', { body: VTT, contentType: 'text/vtt' });
    const upload = async (u: TestUser, input: Record<string, unknown>) => {
      const data = await ok(gql, u.key, UPLOAD_AUDIO, { input: { url, ...input } });
      return data.uploadAudio.meetingId as string;
    };
    meetings.olgaWithHook = await upload(olga, {
      title: 'Olga with a webhook',
      webhook: rx.url('/upload-1'),
      client_reference_id: 'olga-1',
      attendees: [{ displayName: pete.name, email: pete.email }],
    });
    meetings.olgaPlain = await upload(olga, {
      title: 'Olga without a webhook',
      attendees: [{ displayName: pete.name, email: pete.email }],
    });
    meetings.pete = await upload(pete, { title: 'Pete organizes' });
    meetings.otherTeam = await upload(xavier, { title: 'Another team' });
    for (const id of Object.values(meetings))
      expect(await waitForRun(gql.temporal, id, 120_000)).toMatchObject({ status: 'completed' });
    // Every delivery prepared by the runs has settled.
    await eventually(async () => {
      const pending = await t.db('webhook_deliveries').where({ status: 'pending' }).count({ n: '*' });
      return pending[0].n === '0' ? true : undefined;
    }, 120_000);
    // Four uploads through the whole pipeline: generous on a busy machine.
  }, 240_000);
  afterAll(async () => {
    await worker?.stop();
    await gql?.close();
    await media?.close();
    await rx?.close();
    await t?.drop();
  });

  const meetingIdsAt = (path: string) =>
    rx.requests(path).map((r) => JSON.parse(r.rawBody.toString()).meetingId as string);
  const signedWith = (path: string) =>
    rx.requests(path).every(
      (r) =>
        r.headers['x-hub-signature'] ===
        createHmac('sha256', secrets[path] ?? secrets['/olga'])
          .update(r.rawBody)
          .digest('hex'),
    );

  it('starts one delivery per target from the transcription run', async () => {
    const run = await waitForRun(gql.temporal, meetings.olgaWithHook);
    expect(run.status).toBe('completed');
    const children = (run as { result: { children: string[] } }).result.children;
    const id = meetings.olgaWithHook;
    expect(children).toEqual(
      expect.arrayContaining([`webhook-${id}-upload`, `webhook-${id}-owner`, `webhook-${id}-team`]),
    );
    const rows = await t.db('webhook_deliveries').where({ meeting_id: id }).orderBy('target');
    expect(rows.map((r) => [r.target, r.status])).toEqual([
      ['owner', 'delivered'],
      ['team', 'delivered'],
      ['upload', 'delivered'],
    ]);
    expect(rows.find((r) => r.target === 'upload').user_id).toBe(olga.id);
    expect(rows.find((r) => r.target === 'team').user_id).toBeNull();
  });

  it("fires the organizer's saved webhook for each meeting she organizes, and never for another's", async () => {
    expect(meetingIdsAt('/olga').sort()).toEqual([meetings.olgaWithHook, meetings.olgaPlain].sort());
    expect(signedWith('/olga')).toBe(true);
  });

  it("does not fire a participant's saved webhook for meetings he merely attended", async () => {
    const participants = await t.db('meeting_participants').where({ meeting_id: meetings.olgaWithHook }).pluck('email');
    expect(participants).toContain(pete.email);
    expect(meetingIdsAt('/pete')).toEqual([meetings.pete]);
    expect(signedWith('/pete')).toBe(true);
    expect(await t.db('webhook_deliveries').where({ user_id: pete.id }).pluck('meeting_id')).toEqual([meetings.pete]);
  });

  it("fires the team-wide webhook for every meeting of the team, signed with its secret, and no other team's", async () => {
    expect(meetingIdsAt('/team').sort()).toEqual([meetings.olgaWithHook, meetings.olgaPlain, meetings.pete].sort());
    expect(signedWith('/team')).toBe(true);
    expect(meetingIdsAt('/team-x')).toEqual([meetings.otherTeam]);
    expect(signedWith('/team-x')).toBe(true);
  });

  it("fires a per-upload webhook for its upload only, with the exact payload, signed with the uploader's secret", async () => {
    const seen = rx.requests('/upload-1');
    expect(seen).toHaveLength(1);
    expect(seen[0].rawBody.toString()).toBe(
      `{"meetingId":"${meetings.olgaWithHook}","eventType":"Transcription completed","clientReferenceId":"olga-1"}`,
    );
    expect(seen[0].headers['x-hub-signature']).toBe(
      createHmac('sha256', secrets['/olga']).update(seen[0].rawBody).digest('hex'),
    );
    expect(await t.db('webhook_deliveries').where({ target: 'upload' }).pluck('meeting_id')).toEqual([
      meetings.olgaWithHook,
    ]);
  });

  it('delivers each target exactly once', async () => {
    const perDelivery = new Map<string, number>();
    for (const r of rx.requests())
      perDelivery.set(
        String(r.headers['x-delivery-id']),
        (perDelivery.get(String(r.headers['x-delivery-id'])) ?? 0) + 1,
      );
    expect([...perDelivery.values()].every((n) => n === 1)).toBe(true);
    expect(perDelivery.size).toBe(
      await t
        .db('webhook_deliveries')
        .count({ n: '*' })
        .then((r) => Number(r[0].n)),
    );
  });

  it("lists the team webhook's deliveries to the team's super admin only", async () => {
    const page = (await ok(gql, sam.key, DELIVERIES, { scope: 'team', limit: 50 })).webhookDeliveries;
    expect(page.deliveries.map((d: any) => d.meeting_id).sort()).toEqual(
      [meetings.olgaWithHook, meetings.olgaPlain, meetings.pete].sort(),
    );
    expect(
      page.deliveries.every((d: any) => d.target === 'team' && d.status === 'delivered' && d.attempts.length === 1),
    ).toBe(true);
    // Sam's own (user) ledger is empty; Olga sees her own deliveries but not the team's.
    expect((await ok(gql, sam.key, DELIVERIES, {})).webhookDeliveries.deliveries).toEqual([]);
    expect(
      (await ok(gql, olga.key, DELIVERIES, { limit: 50 })).webhookDeliveries.deliveries
        .map((d: any) => d.target)
        .sort(),
    ).toEqual(['owner', 'owner', 'upload']);
    expect((await refused(gql, olga.key, DELIVERIES, { scope: 'team' })).extensions!.code).toBe(
      'require_elevated_privilege',
    );
  });
});
