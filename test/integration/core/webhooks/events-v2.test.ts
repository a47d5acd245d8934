/**
 * Webhooks V2 beside V1 (docs/webhooks-v2.md), end to end: real uploads through GraphQL →
 * TranscriptionWorkflow → one WebhookDeliveryWorkflow per target and event → a real https receiver.
 * Payloads and signatures are checked with an HMAC computed here (node:crypto), not with the
 * service's own signing code.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordDeliveries } from '../../../../services/core/webhooks';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { makeTeam, makeUser, TestUser } from '../../../support/factory';
import { GraphqlHarness, startGraphql, UPLOAD_AUDIO } from '../../../support/graphql';
import { startTestWorker, TestWorker, waitForRun } from '../../../support/worker';
import { startWebhookReceiver, WebhookReceiver } from '../../../support/webhook-receiver';
import { newId } from '../../../../services/core/input';
import { MediaServer, startMediaServer } from '../ingest/media-server';
import {
  body,
  eventually,
  hmacHex,
  ok,
  refused,
  REDELIVER,
  SAVE_EVENTS,
  SET_SECRET,
  SET_TEAM_EVENTS,
  settled,
} from './support';

const VTT = readFileSync(
  join(__dirname, '..', '..', '..', '..', 'services', 'cli', 'demo', 'meetings', '2026-10-08-q4-roadmap-planning.vtt'),
);
const V2 = ['meeting.transcribed', 'meeting.summarized', 'action_items.created'];

describe('webhooks V2 beside V1', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let worker: TestWorker;
  let rx: WebhookReceiver;
  let media: MediaServer;
  let olga: TestUser; // saved webhook subscribed to the three V2 events
  let pete: TestUser; // saved webhook as before events existed: V1 only
  let sam: TestUser; // super admin: the team-wide webhook gets V1 and meeting.summarized
  const secrets: Record<string, string> = {};
  const queue = testTaskQueue('webhook-v2');
  let url: string;
  let olgaMeeting: string;
  let peteMeeting: string;
  let started: number;

  const upload = async (u: TestUser, input: Record<string, unknown>) =>
    (await ok(gql, u.key, UPLOAD_AUDIO, { input: { url, ...input } })).uploadAudio.meetingId as string;
  const allSettled = () =>
    eventually(
      async () =>
        (await t.db('webhook_deliveries').where({ status: 'pending' }).count({ n: '*' }))[0].n === '0'
          ? true
          : undefined,
      120_000,
    );

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'enterprise', name: 'V2' });
    olga = await makeUser(t.db, team, { name: 'Olga Organizer' });
    pete = await makeUser(t.db, team, { name: 'Pete Plain' });
    sam = await makeUser(t.db, team, { role: 'super_admin' });
    rx = await startWebhookReceiver();
    media = await startMediaServer();
    const env = { WEBHOOK_RETRY_SCHEDULE: '0s,200ms,400ms', WEBHOOK_TIMEOUT: '2s' };
    gql = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: queue, ...env });
    worker = await startTestWorker(t.db, { taskQueue: queue, env });

    expect((await ok(gql, olga.key, SAVE_EVENTS, { url: rx.url('/olga'), events: V2 })).saveWebhookUrl.events).toEqual(
      V2,
    );
    secrets['/olga'] = (await ok(gql, olga.key, SET_SECRET, { generate: true })).setWebhookSecret.secret;
    expect((await ok(gql, pete.key, SAVE_EVENTS, { url: rx.url('/pete') })).saveWebhookUrl.events).toEqual([
      'Transcription completed',
    ]);
    secrets['/pete'] = (await ok(gql, pete.key, SET_SECRET, { generate: true })).setWebhookSecret.secret;
    const teamHook = (
      await ok(gql, sam.key, SET_TEAM_EVENTS, {
        url: rx.url('/team'),
        events: ['meeting.summarized', 'Transcription completed'],
      })
    ).setTeamWebhook;
    expect(teamHook.settings.events).toEqual(['Transcription completed', 'meeting.summarized']);
    secrets['/team'] = teamHook.secret;

    url = media.serve('/planning.vtt', { body: VTT, contentType: 'text/vtt' });
    started = Date.now();
    olgaMeeting = await upload(olga, {
      title: 'Q4 planning',
      webhook: rx.url('/upload-1'),
      webhook_events: ['meeting.transcribed'],
      client_reference_id: 'ref-1',
    });
    peteMeeting = await upload(pete, { title: 'Pete plans' });
    for (const id of [olgaMeeting, peteMeeting])
      expect(await waitForRun(gql.temporal, id, 120_000)).toMatchObject({ status: 'completed' });
    await allSettled();
  }, 240_000);
  afterAll(async () => {
    await worker?.stop();
    await gql?.close();
    await media?.close();
    await rx?.close();
    await t?.drop();
  });

  it('sends each subscribed V2 event once, in the Fireflies V2 payload, signed sha256=<hex> of the raw body', async () => {
    const seen = rx.requests('/olga');
    expect(seen.map((r) => body(r).event).sort()).toEqual([...V2].sort());
    for (const r of seen) {
      const b = body(r);
      expect(Object.keys(b).slice(0, 4)).toEqual(['event', 'timestamp', 'meeting_id', 'client_reference_id']);
      expect(b).toMatchObject({ meeting_id: olgaMeeting, client_reference_id: 'ref-1' });
      expect(b.timestamp).toBeGreaterThanOrEqual(started);
      expect(b.timestamp).toBeLessThanOrEqual(Date.now());
      expect(r.headers['x-hub-signature']).toBe(`sha256=${hmacHex(secrets['/olga'], r.rawBody)}`);
      // The Standard Webhooks option keeps working: v1,<base64 HMAC of "id.timestamp.body">.
      const expected = createHmac('sha256', Buffer.from(secrets['/olga'], 'utf8'))
        .update(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.`)
        .update(r.rawBody)
        .digest('base64');
      expect(r.headers['webhook-signature']).toBe(`v1,${expected}`);
    }
    const created = body(seen.find((r) => body(r).event === 'action_items.created')!);
    const stored = await t
      .db('action_items')
      .where({ meeting_id: olgaMeeting })
      .orderBy(['sentence_index', 'id'])
      .select('id', 'text', 'start_time');
    expect(stored.length).toBeGreaterThan(0);
    expect(created.action_items.map((a: { id: string }) => a.id)).toEqual(stored.map((s) => s.id));
    expect(created.action_items[0].link).toBe(
      `${gql.config.publicBaseUrl}/meetings/${olgaMeeting}#t=${Math.floor(stored[0].start_time)}`,
    );
    // meeting.summarized carries the overview line by line, each with its moment: the lines the page shows.
    const summarized = body(seen.find((r) => body(r).event === 'meeting.summarized')!);
    const { overview_lines: lines } = await t
      .db('summaries')
      .where({ meeting_id: olgaMeeting })
      .first('overview_lines');
    expect(lines.length).toBeGreaterThan(1);
    expect(summarized.overview_lines).toEqual(
      lines.map((l: { text: string; index: number; start_time: number }) => ({
        ...l,
        link: `${gql.config.publicBaseUrl}/meetings/${olgaMeeting}#t=${Math.floor(l.start_time)}`,
      })),
    );
    for (const l of summarized.overview_lines) {
      const sentence = await t.db('sentences').where({ meeting_id: olgaMeeting, idx: l.index }).first('start_time');
      expect(Number(sentence.start_time)).toBe(l.start_time);
    }
  });

  it('keeps V1 exactly for V1 subscribers, beside V2 events on the same endpoint where both are chosen', async () => {
    const pete1 = rx.requests('/pete');
    expect(pete1).toHaveLength(1);
    expect(pete1[0].rawBody.toString()).toBe(`{"meetingId":"${peteMeeting}","eventType":"Transcription completed"}`);
    expect(pete1[0].headers['x-hub-signature']).toBe(hmacHex(secrets['/pete'], pete1[0].rawBody));

    const team = rx.requests('/team');
    const byMeeting = (id: string) =>
      team
        .filter((r) => (body(r).meetingId ?? body(r).meeting_id) === id)
        .map((r) => body(r).eventType ?? body(r).event)
        .sort();
    expect(byMeeting(olgaMeeting)).toEqual(['Transcription completed', 'meeting.summarized']);
    expect(byMeeting(peteMeeting)).toEqual(['Transcription completed', 'meeting.summarized']);
    for (const r of team) {
      const v1 = body(r).eventType !== undefined;
      expect(r.headers['x-hub-signature']).toBe(`${v1 ? '' : 'sha256='}${hmacHex(secrets['/team'], r.rawBody)}`);
    }

    // The upload's own webhook: only the event it chose, signed with the uploader's secret.
    const up = rx.requests('/upload-1');
    expect(up.map((r) => r.rawBody.toString())).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\{"event":"meeting\\.transcribed","timestamp":\\d+,"meeting_id":"${olgaMeeting}","client_reference_id":"ref-1"\\}$`,
        ),
      ),
    ]);
    expect(up[0].headers['x-hub-signature']).toBe(`sha256=${hmacHex(secrets['/olga'], up[0].rawBody)}`);
  });

  it('fires each event once per meeting and target: preparing again finds the same deliveries', async () => {
    const ledger = () =>
      t
        .db('webhook_deliveries')
        .where({ meeting_id: olgaMeeting })
        .orderBy('id')
        .select('id', 'target', 'event_target', 'event', 'status');
    const before = await ledger();
    // V1 rows keep their target where release 0.1.0 reads it; V2 rows beside it, out of 0.1.0's sight.
    expect(
      before.every((d) => (d.event === 'Transcription completed') === (d.target !== null && d.event_target === null)),
    ).toBe(true);
    expect(before.map((d) => `${d.target ?? d.event_target} ${d.event}`).sort()).toEqual(
      [
        'owner action_items.created',
        'owner meeting.summarized',
        'owner meeting.transcribed',
        'team Transcription completed',
        'team meeting.summarized',
        'upload meeting.transcribed',
      ].sort(),
    );
    const again = await recordDeliveries(t.db, gql.config, olgaMeeting);
    expect(again.map((d) => d.deliveryId).sort()).toEqual(before.map((d) => d.id).sort());
    expect(await ledger()).toEqual(before);
    const perDelivery = new Map<string, number>();
    for (const r of rx.requests())
      perDelivery.set(
        String(r.headers['x-delivery-id']),
        (perDelivery.get(String(r.headers['x-delivery-id'])) ?? 0) + 1,
      );
    expect([...perDelivery.values()].every((n) => n === 1)).toBe(true);
  });

  it('redelivers a V2 delivery with the same bytes, delivery id and V2 signature', async () => {
    const d = await t
      .db('webhook_deliveries')
      .where({ meeting_id: olgaMeeting, event_target: 'owner', event: 'meeting.summarized' })
      .first();
    const first = rx.requests('/olga').find((r) => r.headers['x-delivery-id'] === d.id)!;
    const again = await ok(gql, olga.key, REDELIVER, { deliveryId: d.id });
    expect(again.redeliverWebhook).toMatchObject({ id: d.id, status: 'pending' });
    await settled(t.db, d.id);
    const resent = rx.requests('/olga').filter((r) => r.headers['x-delivery-id'] === d.id);
    expect(resent).toHaveLength(2);
    expect(resent[1].rawBody.equals(first.rawBody)).toBe(true);
    expect(resent[1].headers['x-hub-signature']).toBe(`sha256=${hmacHex(secrets['/olga'], first.rawBody)}`);
  });

  it('a 410 answer to a V2 event disables the saved endpoint and ends its deliveries without retries', async () => {
    rx.script('/olga', [410]);
    const id = await upload(olga, { title: 'Gone', client_reference_id: 'ref-2' });
    expect(await waitForRun(gql.temporal, id, 120_000)).toMatchObject({ status: 'completed' });
    await allSettled();
    const rows = await t
      .db('webhook_deliveries')
      .where({ meeting_id: id })
      .whereRaw("coalesce(target, event_target) = 'owner'")
      .select('status', 'attempts_count');
    expect(rows.length).toBe(3);
    expect(rows.some((r) => r.status === 'disabled')).toBe(true);
    expect(rows.every((r) => ['disabled', 'skipped'].includes(r.status) && r.attempts_count <= 1)).toBe(true);
    expect((await t.db('webhook_endpoints').where({ user_id: olga.id }).first()).disabled_at).not.toBeNull();
  });

  it("records release 0.1.0's V1 deliveries beside V2 ones of the same meeting and target (a rollback)", async () => {
    // The statements of release 0.1.0 (services/core/webhooks: deliveries.ts, ledger.ts), run as it runs them.
    const asRollback = t.db.transaction(async (tx) => {
      const v2 = await tx('webhook_deliveries').where({ meeting_id: olgaMeeting, event_target: 'owner' }).select('id');
      expect(v2.length).toBe(3);
      const asOld = () =>
        tx('webhook_deliveries')
          .insert({
            id: newId(),
            team_id: olga.teamId,
            meeting_id: olgaMeeting,
            payload: '{}',
            ready_at: tx.fn.now(),
            target: 'owner',
            url: rx.url('/olga'),
            user_id: olga.id,
            endpoint_id: null,
            status: 'pending',
            last_error: null,
          })
          .onConflict(['meeting_id', 'target'])
          .ignore()
          .returning(['id']);
      const [made] = await asOld();
      expect(await asOld()).toEqual([]);
      expect(await tx('webhook_deliveries').where({ id: made.id }).first('event', 'event_target')).toEqual({
        event: 'Transcription completed',
        event_target: null,
      });
      const listed = await tx('webhook_deliveries as d')
        .where('d.user_id', olga.id)
        .whereNot('d.target', 'team')
        .pluck('d.id');
      expect(listed).toEqual([made.id]);
      throw new Error('roll back');
    });
    await expect(asRollback).rejects.toThrow('roll back');
  });

  it('refuses unknown or repeated events, naming the field', async () => {
    expect(
      (await refused(gql, olga.key, SAVE_EVENTS, { url: rx.url('/olga'), events: ['meeting.archived'] })).extensions,
    ).toMatchObject({ code: 'invalid_arguments', field: 'events.0' });
    expect((await refused(gql, olga.key, SAVE_EVENTS, { url: rx.url('/olga'), events: [] })).extensions).toMatchObject({
      field: 'events',
    });
    expect(
      (
        await refused(gql, olga.key, SAVE_EVENTS, {
          url: rx.url('/olga'),
          events: ['meeting.summarized', 'meeting.summarized'],
        })
      ).extensions,
    ).toMatchObject({ field: 'events' });
    const noHook = await refused(gql, olga.key, UPLOAD_AUDIO, {
      input: { url, webhook_events: ['meeting.summarized'] },
    });
    expect(noHook.extensions).toMatchObject({ code: 'invalid_arguments', field: 'input.webhook_events' });
  });
});
