/**
 * Events of a meeting's life (docs/webhooks-v2.md), end to end: changes made over MCP and GraphQL
 * (roles without Temporal) and by the retention run write the outbox in their own transaction; the
 * worker's WebhookEventsWorkflow starts one WebhookDeliveryWorkflow per change and target; a real
 * https receiver gets each event once, signed `sha256=<hex>` (checked with node:crypto here), with
 * the payload the docs show. A deleted meeting's event holds no content and outlives its meeting;
 * another team's changes never reach this team's endpoints.
 */
import type { Knex } from 'knex';
import { claimLifeEvents, noteMeetingSummarized } from '../../../../services/core/webhooks';
import { deleteExpiredMeetings } from '../../../../services/core/retention';
import { ensureWebhookEvents } from '../../../../workflows/client';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import { GraphqlHarness, startGraphql } from '../../../support/graphql';
import { McpHarness, startMcp } from '../../../support/mcp';
import { startTestWorker, TestWorker } from '../../../support/worker';
import { startWebhookReceiver, WebhookReceiver, type ReceivedRequest } from '../../../support/webhook-receiver';
import {
  body,
  DELIVERIES,
  eventually,
  hmacHex,
  ok,
  REDELIVER,
  SAVE_EVENTS,
  SET_SECRET,
  SET_TEAM_EVENTS,
  settled,
} from './support';

const LIFE = ['meeting.deleted', 'transcript.updated', 'meeting.summarized', 'action_item.updated'];
const RENAME = `mutation R($m: ID!, $from: String!, $to: String!) { renameSpeaker(meetingId: $m, from: $from, to: $to) { meetingId } }`;
const DELETE = `mutation D($id: ID!) { deleteMeeting(id: $id) { id deleted } }`;

describe("events of a meeting's life", () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let mcp: McpHarness;
  let worker: TestWorker;
  let rx: WebhookReceiver;
  let olga: TestUser; // owner of the meetings; saved webhook subscribed to the life events
  let sam: TestUser; // super admin: the team-wide webhook, the life events too
  let bob: TestUser; // another team's super admin with its own team-wide webhook
  let team: Awaited<ReturnType<typeof makeTeam>>;
  const secrets: Record<string, string> = {};
  const queue = testTaskQueue('webhook-life');

  beforeAll(async () => {
    t = await createTestDatabase();
    team = await makeTeam(t.db, { tier: 'enterprise', name: 'Life' });
    const other = await makeTeam(t.db, { tier: 'enterprise', name: 'Elsewhere' });
    olga = await makeUser(t.db, team, { name: 'Olga Owner' });
    sam = await makeUser(t.db, team, { role: 'super_admin' });
    bob = await makeUser(t.db, other, { role: 'super_admin', name: 'Bob Other' });
    rx = await startWebhookReceiver();
    const env = { WEBHOOK_RETRY_SCHEDULE: '0s,200ms,400ms', WEBHOOK_TIMEOUT: '2s' };
    gql = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: queue, ...env });
    mcp = await startMcp(t.db, env);
    worker = await startTestWorker(t.db, { taskQueue: queue, env });
    expect(await ensureWebhookEvents(gql.temporal, queue)).toBe('started');
    expect(await ensureWebhookEvents(gql.temporal, queue)).toBe('running');

    await ok(gql, olga.key, SAVE_EVENTS, { url: rx.url('/olga'), events: LIFE });
    secrets['/olga'] = (await ok(gql, olga.key, SET_SECRET, { generate: true })).setWebhookSecret.secret;
    secrets['/team'] = (
      await ok(gql, sam.key, SET_TEAM_EVENTS, { url: rx.url('/team'), events: LIFE })
    ).setTeamWebhook.secret;
    secrets['/other'] = (
      await ok(gql, bob.key, SET_TEAM_EVENTS, { url: rx.url('/other'), events: LIFE })
    ).setTeamWebhook.secret;
  });
  afterAll(async () => {
    await gql?.temporal.workflow
      .getHandle(`webhook-events-${queue}`)
      .terminate()
      .catch(() => undefined);
    await worker?.stop();
    await mcp?.close();
    await gql?.close();
    await rx?.close();
    await t?.drop();
  });

  /** The requests of `event` about `meetingId` received at `path`. */
  const received = (path: string, event: string, meetingId: string) =>
    rx.requests(path).filter((r) => body(r).event === event && body(r).meeting_id === meetingId);
  /** Wait until `path` received `event` about the meeting, then a little longer to see no second one arrives. */
  async function once(path: string, event: string, meetingId: string): Promise<ReceivedRequest> {
    await eventually(
      async () => (received(path, event, meetingId).length ? true : undefined),
      30_000,
      `${event} at ${path}`,
    );
    await quiet();
    const got = received(path, event, meetingId);
    expect(got).toHaveLength(1);
    // An upload's webhook whose uploader set no secret is sent unsigned (docs/webhooks.md).
    expect(got[0].headers['x-hub-signature']).toBe(
      secrets[path] ? `sha256=${hmacHex(secrets[path], got[0].rawBody)}` : undefined,
    );
    return got[0];
  }
  /** Until the outbox is dispatched and no delivery is pending. */
  async function quiet(db: Knex = t.db) {
    await eventually(
      async () => {
        const [{ n }] = await db('webhook_events').whereNull('dispatched_at').count({ n: '*' });
        const [{ p }] = await db('webhook_deliveries').where({ status: 'pending' }).count({ p: '*' });
        return n === '0' && p === '0' ? true : undefined;
      },
      30_000,
      'the outbox and the ledger settling',
    );
  }

  it('a speaker named over MCP: transcript.updated once to each subscriber, signed, with what changed', async () => {
    const before = Date.now();
    const { id } = await makeMeeting(t.db, { organizer: olga, title: 'Pricing review' });
    const res = await mcp.call(olga.key, 'svc_rename_speaker', { meetingId: id, from: 'Guest', to: 'Gina Guest' });
    expect(res.isError).toBe(false);
    for (const path of ['/olga', '/team']) {
      const r = await once(path, 'transcript.updated', id);
      const b = body(r);
      expect(r.rawBody.toString()).toBe(
        JSON.stringify({
          event: 'transcript.updated',
          timestamp: b.timestamp,
          meeting_id: id,
          client_reference_id: null,
          changed: ['speakers'],
        }),
      );
      expect(b.timestamp).toBeGreaterThanOrEqual(before - 1000);
      expect(b.timestamp).toBeLessThanOrEqual(Date.now());
    }
    expect(rx.requests('/other')).toHaveLength(0);
  });

  it('sentences corrected and re-transcribed: transcript.updated says which; a meeting still processing fires nothing', async () => {
    const { id } = await makeMeeting(t.db, { organizer: olga });
    const fix = { meetingId: id, index: 1, text: 'Sounds good. What is the budget, exactly?' };
    expect((await mcp.call(olga.key, 'svc_correct_sentence', fix)).isError).toBe(false);
    expect(body(await once('/olga', 'transcript.updated', id)).changed).toEqual(['sentences']);

    const again = await makeMeeting(t.db, { organizer: olga });
    await t.db.transaction(async (tx) => {
      await tx('sentences').where({ meeting_id: again.id }).delete();
      await tx('sentences').insert({
        meeting_id: again.id,
        idx: 0,
        speaker_name: 'Olga Owner',
        speaker_id: 0,
        text: 'A better transcript.',
        raw_text: 'A better transcript.',
        start_time: 0,
        end_time: 3,
      });
    });
    expect(body(await once('/olga', 'transcript.updated', again.id)).changed).toEqual(['retranscribed']);

    const processing = await makeMeeting(t.db, { organizer: olga, status: 'processing' });
    await t.db('sentences').where({ meeting_id: processing.id }).update({ speaker_name: 'Someone' });
    await quiet();
    expect(received('/olga', 'transcript.updated', processing.id)).toHaveLength(0);
  });

  it('an action item closed and given a due date over MCP: action_item.updated with its values and what changed', async () => {
    const { id } = await makeMeeting(t.db, { organizer: olga });
    const itemId = 'ai-life-1';
    await t.db('action_items').insert({
      id: itemId,
      team_id: olga.teamId,
      meeting_id: id,
      meeting_date: new Date('2026-11-02T15:00:00Z'),
      item_key: 'send the pricing deck',
      text: 'Send the pricing deck',
      sentence_index: 0,
      start_time: 0,
      owner_name: 'Olga Owner',
      owner_email: olga.email.toLowerCase(),
    });
    const res = await mcp.call(olga.key, 'svc_update_action_item', {
      id: itemId,
      status: 'done',
      dueDate: '2026-12-01',
    });
    expect(res.isError).toBe(false);
    const r = await once('/team', 'action_item.updated', id);
    expect(body(r)).toEqual({
      event: 'action_item.updated',
      timestamp: body(r).timestamp,
      meeting_id: id,
      client_reference_id: null,
      action_items: [
        {
          id: itemId,
          text: 'Send the pricing deck',
          status: 'done',
          owner_name: 'Olga Owner',
          owner_email: olga.email.toLowerCase(),
          due_date: '2026-12-01',
          changed: ['status', 'due_date'],
        },
      ],
    });
    await once('/olga', 'action_item.updated', id);
  });

  it('several writes to action items in one transaction make one event, each item once with all it changed', async () => {
    const { id } = await makeMeeting(t.db, { organizer: olga });
    const item = (n: number) => ({
      id: `ai-merge-${n}`,
      team_id: olga.teamId,
      meeting_id: id,
      meeting_date: new Date('2026-11-02T15:00:00Z'),
      item_key: `item ${n}`,
      text: `Item ${n}`,
      sentence_index: n,
      start_time: n,
    });
    await t.db('action_items').insert([item(1), item(2)]);
    await t.db.transaction(async (tx) => {
      await tx('action_items').where({ id: 'ai-merge-1' }).update({ status: 'done' });
      await tx('action_items').where({ id: 'ai-merge-1' }).update({ due_date: '2026-12-24' });
      await tx('action_items')
        .where({ id: 'ai-merge-2' })
        .update({ owner_name: 'Olga Owner', owner_email: olga.email });
    });
    const items = body(await once('/olga', 'action_item.updated', id)).action_items;
    expect(
      items.map((i: { id: string; changed: string[]; status: string; due_date: string | null }) => [
        i.id,
        i.changed,
        i.status,
        i.due_date,
      ]),
    ).toEqual([
      ['ai-merge-1', ['status', 'due_date'], 'done', '2026-12-24'],
      ['ai-merge-2', ['owner'], 'open', null],
    ]);
  });

  it('a re-summary: meeting.summarized again, once per re-summary however often its key is retried', async () => {
    const { id } = await makeMeeting(t.db, { organizer: olga, summary: {} });
    expect(await noteMeetingSummarized(t.db, id, 'resummary-1')).toBe(true);
    expect(await noteMeetingSummarized(t.db, id, 'resummary-1')).toBe(false);
    const first = await once('/olga', 'meeting.summarized', id);
    // The same form as the first meeting.summarized: the V2 fields and the overview's lines.
    expect(Object.keys(body(first))).toEqual([
      'event',
      'timestamp',
      'meeting_id',
      'client_reference_id',
      'overview_lines',
    ]);
    expect(await noteMeetingSummarized(t.db, id, 'resummary-1')).toBe(false);
    expect(await noteMeetingSummarized(t.db, id, 'resummary-2')).toBe(true);
    await quiet();
    const both = received('/olga', 'meeting.summarized', id);
    expect(both).toHaveLength(2);
    expect(new Set(both.map((r) => r.headers['x-delivery-id'])).size).toBe(2);
    // A key is 1 to 200 characters.
    for (const key of ['', 'k'.repeat(201)])
      await expect(noteMeetingSummarized(t.db, id, key)).rejects.toMatchObject({
        details: expect.objectContaining({ field: 'changeKey' }),
      });
    expect(await noteMeetingSummarized(t.db, id, 'k'.repeat(200))).toBe(true);
    await quiet();
    expect(received('/olga', 'meeting.summarized', id)).toHaveLength(3);
  });

  it('a meeting deleted by a person: meeting.deleted with who asked and no content; it outlives its meeting', async () => {
    const { id } = await makeMeeting(t.db, { organizer: olga, title: 'Secret merger talks', summary: {} });
    await t.db('meetings').where({ id }).update({ client_reference_id: 'crm-42' });
    await ok(gql, olga.key, RENAME, { m: id, from: 'Guest', to: 'Gus Guest' });
    await once('/olga', 'transcript.updated', id);
    expect(await t.db('webhook_deliveries').where({ event_meeting_id: id }).count({ n: '*' })).toEqual([{ n: '2' }]);

    expect((await ok(gql, olga.key, DELETE, { id })).deleteMeeting).toEqual({ id, deleted: true });
    for (const path of ['/olga', '/team']) {
      const r = await once(path, 'meeting.deleted', id);
      const raw = r.rawBody.toString();
      expect(raw).toBe(
        JSON.stringify({
          event: 'meeting.deleted',
          timestamp: body(r).timestamp,
          meeting_id: id,
          client_reference_id: 'crm-42',
          reason: 'deleted',
          deleted_by: olga.id,
        }),
      );
      expect(raw).not.toMatch(/merger|Welcome|budget|Olga/);
    }
    // The deletion's deliveries stay in the ledger; the meeting's earlier events (content) went with it.
    const rows = await t.db('webhook_deliveries').where({ event_meeting_id: id }).select('event', 'status');
    expect(rows.map((r) => [r.event, r.status])).toEqual([
      ['meeting.deleted', 'delivered'],
      ['meeting.deleted', 'delivered'],
    ]);
    const listed = (await ok(gql, olga.key, DELIVERIES, { meetingId: id })).webhookDeliveries.deliveries;
    expect(listed).toEqual([expect.objectContaining({ meeting_id: id, status: 'delivered' })]);
    expect(rx.requests('/other')).toHaveLength(0);
  });

  it('a redelivery of a life event sends the same bytes with the same delivery id', async () => {
    const { id } = await makeMeeting(t.db, { organizer: olga });
    await t.db('sentences').where({ meeting_id: id, idx: 0 }).update({ speaker_name: 'Olga Again' });
    const first = await once('/olga', 'transcript.updated', id);
    const deliveryId = first.headers['x-delivery-id'] as string;
    const redone = (await ok(gql, olga.key, REDELIVER, { deliveryId })).redeliverWebhook;
    expect(redone).toMatchObject({ id: deliveryId, meeting_id: id, redelivery_count: 1 });
    await settled(t.db, deliveryId);
    await eventually(async () => (received('/olga', 'transcript.updated', id).length === 2 ? true : undefined));
    const again = received('/olga', 'transcript.updated', id)[1];
    expect(again.rawBody.equals(first.rawBody)).toBe(true);
    expect(again.headers['x-delivery-id']).toBe(deliveryId);
  });

  it('a receiver answering 410 ends the delivery disabled and disables the saved endpoint', async () => {
    const gone = await makeUser(t.db, team, { name: 'Gone Receiver' });
    await ok(gql, gone.key, SAVE_EVENTS, { url: rx.url('/gone'), events: ['transcript.updated'] });
    await ok(gql, gone.key, SET_SECRET, { generate: true });
    rx.script('/gone', [410]);
    const { id } = await makeMeeting(t.db, { organizer: gone });
    await t.db('sentences').where({ meeting_id: id, idx: 1 }).update({ speaker_name: 'Gil' });
    await quiet();
    const row = await t.db('webhook_deliveries').where({ event_meeting_id: id, event_target: 'owner' }).first();
    expect(row).toMatchObject({ status: 'disabled', attempts_count: 1 });
    const ep = await t.db('webhook_endpoints').where({ user_id: gone.id }).first('disabled_at');
    expect(ep.disabled_at).not.toBeNull();
  });

  it("retention: meeting.deleted with reason expired and nobody as the asker; another team's changes reach its endpoint only", async () => {
    const old = await makeMeeting(t.db, { organizer: bob, date: '2020-01-01T00:00:00Z' });
    const mine = await makeMeeting(t.db, { organizer: olga, date: '2020-01-01T00:00:00Z' });
    await t.db('teams').where({ id: bob.teamId }).update({ retention_days: 30 });
    await t.db('sentences').where({ meeting_id: mine.id, idx: 0 }).update({ speaker_name: 'Olga Later' });
    await once('/team', 'transcript.updated', mine.id);
    expect(await deleteExpiredMeetings(t.db, new Date(), 100)).toBe(1);
    const r = await once('/other', 'meeting.deleted', old.id);
    expect(body(r)).toMatchObject({ reason: 'expired', deleted_by: null, client_reference_id: null });
    expect(rx.requests('/other').map((x) => body(x).meeting_id)).toEqual([old.id]);
    for (const path of ['/olga', '/team', '/gone'])
      expect(rx.requests(path).filter((x) => body(x).meeting_id === old.id)).toHaveLength(0);
  });

  it('an upload webhook gets the life events it subscribed to, for its own meeting; a claim made twice makes the same deliveries', async () => {
    const { id } = await makeMeeting(t.db, { organizer: sam });
    await t
      .db('meetings')
      .where({ id })
      .update({
        upload_webhook: rx.url('/upload'),
        upload_webhook_events: ['transcript.updated'],
        client_reference_id: 'ref-up',
      });
    // The dispatcher is stopped: the outbox row waits, and claiming it twice records its deliveries once.
    await gql.temporal.workflow.getHandle(`webhook-events-${queue}`).terminate();
    await t.db('sentences').where({ meeting_id: id, idx: 1 }).update({ text: 'Corrected words.' });
    const config = worker.config;
    const first = await claimLifeEvents(t.db, config);
    const second = await claimLifeEvents(t.db, config);
    expect(first.deliveries.map((d) => d.target).sort()).toEqual(['team', 'upload']);
    expect(second).toEqual(first);
    expect(await ensureWebhookEvents(gql.temporal, queue)).toBe('started');
    const r = await once('/upload', 'transcript.updated', id);
    expect(body(r)).toMatchObject({ client_reference_id: 'ref-up', changed: ['sentences'] });
    expect(r.headers['x-delivery-id']).toBe(first.deliveries.find((d) => d.target === 'upload')!.deliveryId);
    // The upload's webhook named one event: a deletion of its meeting is not sent to it.
    await ok(gql, sam.key, DELETE, { id });
    await once('/team', 'meeting.deleted', id);
    expect(rx.requests('/upload')).toHaveLength(1);
  });
});
