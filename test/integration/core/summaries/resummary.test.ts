/**
 * A meeting's notes written again on request (svc_resummarize_meeting, GraphQL resummarizeMeeting):
 * permission checked once in core, ResummaryWorkflow on a real Temporal and worker, the chat model a
 * stand-in server at LLM_URL, the run recorded in summary_runs, action items a person changed kept,
 * and meeting.summarized sent to a real receiver through the webhook events' outbox, once per
 * re-summary.
 */
import { updateActionItem } from '../../../../services/core/action-items';
import { PROMPT_VERSION } from '../../../../services/intelligence/summarize';
import { resummaryWorkflowId } from '../../../../workflows/contracts';
import { ensureWebhookEvents, temporalWorkflows } from '../../../../workflows/client';
import { startChatStandIn, type ChatStandIn } from '../../../support/chat-standin';
import { makeMeeting, makeTeam, makeUser, type TestUser } from '../../../support/factory';
import { startGraphql, type GraphqlHarness } from '../../../support/graphql';
import { startMcp, type McpHarness } from '../../../support/mcp';
import { createTestDatabase, testTaskQueue, type TestDatabase } from '../../../support/testDb';
import { startTestWorker, type TestWorker } from '../../../support/worker';
import { startWebhookReceiver, type WebhookReceiver } from '../../../support/webhook-receiver';
import { body, eventually, ok, SAVE_EVENTS, SET_SECRET } from '../webhooks/support';

const RESUMMARIZE = /* GraphQL */ `
  mutation ($meetingId: ID!) {
    resummarizeMeeting(meetingId: $meetingId) {
      meetingId
      status
      summarizer
      message
    }
  }
`;

describe('writing a meeting’s notes again', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let mcp: McpHarness;
  let worker: TestWorker;
  let chat: ChatStandIn;
  let rx: WebhookReceiver;
  let olga: TestUser; // organizer
  let pat: TestUser; // participant, not organizer
  let ada: TestUser; // admin of the team
  let outsider: TestUser; // admin of another team
  const queue = testTaskQueue('resummary');

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { name: 'Notes' });
    const other = await makeTeam(t.db);
    olga = await makeUser(t.db, team, { name: 'Olga Organizer' });
    pat = await makeUser(t.db, team, { name: 'Pat Member' });
    ada = await makeUser(t.db, team, { role: 'admin', name: 'Ada Admin' });
    outsider = await makeUser(t.db, other, { role: 'admin' });
    rx = await startWebhookReceiver();
    chat = await startChatStandIn();
    // Every role reads the same settings: the API roles say who will write the notes, the worker writes them.
    const env = {
      TEMPORAL_TASK_QUEUE: queue,
      WEBHOOK_RETRY_SCHEDULE: '0s,200ms',
      WEBHOOK_TIMEOUT: '2s',
      LLM_URL: chat.url,
      LLM_MODEL: 'stand-in-notes-1',
    };
    gql = await startGraphql(t.db, env);
    mcp = await startMcp(t.db, env, { workflows: temporalWorkflows(gql.temporal, queue) });
    worker = await startTestWorker(t.db, { taskQueue: queue, env });
    // The worker role starts the life events' dispatcher; this test's worker is started bare.
    await ensureWebhookEvents(gql.temporal, queue);
    await ok(gql, olga.key, SAVE_EVENTS, { url: rx.url('/olga'), events: ['meeting.summarized'] });
    await ok(gql, olga.key, SET_SECRET, { generate: true });
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    await mcp?.close();
    await gql?.close();
    await chat?.close();
    await rx?.close();
    await t?.drop();
  });

  const meeting = (status = 'completed') =>
    makeMeeting(t.db, {
      organizer: olga,
      title: 'Launch planning',
      status,
      participants: [{ email: pat.email, name: 'Pat Member' }],
      sentences: [
        { speaker: 'Olga Organizer', text: 'Welcome, let us plan the launch.', start: 0, end: 4 },
        { speaker: 'Pat Member', text: "I'll send the pricing sheet by Friday.", start: 4, end: 8 },
        { speaker: 'Olga Organizer', text: 'The budget forecast looks healthy.', start: 8, end: 12 },
        { speaker: 'Olga Organizer', text: 'I will book the venue for the launch party.', start: 12, end: 15 },
      ],
      summary: { overview: 'An old overview.', meeting_type: 'general' },
    });
  const finished = (meetingId: string) =>
    gql.temporal.workflow.getHandle(resummaryWorkflowId(meetingId)).result() as Promise<{
      replaced: boolean;
      source: string;
    }>;

  it('writes the notes again by the chat model, records the run, and sends meeting.summarized', async () => {
    const m = await meeting();
    const asked = await ok(gql, olga.key, RESUMMARIZE, { meetingId: m.id });
    expect(asked.resummarizeMeeting).toMatchObject({ meetingId: m.id, status: 'queued', summarizer: 'llm' });
    expect(await finished(m.id)).toMatchObject({ replaced: true, source: 'llm' });

    const summary = await t.db('summaries').where({ meeting_id: m.id }).first();
    expect(summary).toMatchObject({ source: 'llm', meeting_type: 'planning', notes: {} });
    expect(summary.overview).toBe(
      "Pat Member: I'll send the pricing sheet by Friday.\nOlga Organizer: I will book the venue for the launch party.",
    );
    expect(summary.action_items.map((a: { index: number; kind: string }) => [a.index, a.kind])).toEqual([
      [1, 'commitment'],
      [3, 'commitment'],
    ]);
    expect((await t.db('meetings').where({ id: m.id }).first('meeting_type')).meeting_type).toBe('planning');
    const items = await t.db('action_items').where({ meeting_id: m.id }).orderBy('sentence_index');
    expect(items.map((i) => [i.text, i.owner_name, i.owner_email])).toEqual([
      ['Follow up: send the pricing sheet by Friday.', 'Pat Member', pat.email],
      ['Follow up: book the venue for the launch party.', 'Olga Organizer', olga.email],
    ]);
    const runs = await t.db('summary_runs').where({ meeting_id: m.id });
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      trigger: 'resummary',
      requested_by: olga.id,
      source: 'llm',
      model: 'stand-in-notes-1',
      prompt_version: PROMPT_VERSION,
      calls: 1,
      parts: 1,
      response_format: 'json_schema',
      fallback_fields: [],
      error: null,
    });
    expect(runs[0].prompt_tokens).toBeGreaterThan(0);
    expect(runs[0].completion_tokens).toBeGreaterThan(0);
    expect(chat.requests.at(-1)!.model).toBe('stand-in-notes-1');

    const sent = await eventually(async () => rx.requests('/olga').find((r) => body(r).meeting_id === m.id), 30_000);
    expect(body(sent)).toMatchObject({ event: 'meeting.summarized', meeting_id: m.id });
    // The lines the meeting page shows, each with its moment.
    expect(body(sent).overview_lines).toEqual([
      expect.objectContaining({ index: 1, start_time: 4, link: expect.stringContaining(`/meetings/${m.id}#t=4`) }),
      expect.objectContaining({ index: 3, start_time: 12 }),
    ]);
  }, 60_000);

  it('sends meeting.summarized again for every re-summary of the same meeting, once each', async () => {
    const m = await meeting();
    const sentFor = () => rx.requests('/olga').filter((r) => body(r).meeting_id === m.id);
    for (const round of [1, 2]) {
      await ok(gql, olga.key, RESUMMARIZE, { meetingId: m.id });
      expect(await finished(m.id)).toMatchObject({ replaced: true });
      await eventually(async () => (sentFor().length === round ? true : undefined), 30_000);
    }
    const ids = sentFor().map((r) => r.headers['x-delivery-id']);
    expect(new Set(ids).size).toBe(2);
    expect(await t.db('webhook_events').where({ meeting_id: m.id, event: 'meeting.summarized' })).toHaveLength(2);
  }, 90_000);

  it('keeps what a person changed on an action item across a re-summary worded differently', async () => {
    const m = await meeting();
    // A person takes the item over and closes it; its words are an older summary's.
    await ok(gql, olga.key, RESUMMARIZE, { meetingId: m.id });
    await finished(m.id);
    const [first] = await t.db('action_items').where({ meeting_id: m.id, sentence_index: 1 });
    await updateActionItem(t.db, gql.config, olga.principal, {
      id: first.id,
      status: 'done',
      owner: ada.email,
      dueDate: '2026-12-24',
    });
    await t
      .db('action_items')
      .where({ id: first.id })
      .update({ text: 'Send the pricing sheet (old words)', item_key: 'send the pricing sheet (old words)' });

    const asked = await mcp.call(ada.key, 'svc_resummarize_meeting', { meetingId: m.id });
    expect(asked.isError).toBe(false);
    expect(asked.data).toMatchObject({ success: true, meetingId: m.id, status: 'queued', summarizer: 'llm' });
    await finished(m.id);

    const items = await t.db('action_items').where({ meeting_id: m.id }).orderBy('sentence_index');
    expect(items).toHaveLength(2);
    const kept = items.find((i) => i.id === first.id)!;
    expect(kept).toMatchObject({
      text: 'Follow up: send the pricing sheet by Friday.',
      status: 'done',
      owner_email: ada.email,
    });
    expect(kept.due_date.toISOString().slice(0, 10)).toBe('2026-12-24');
    const runs = await t.db('summary_runs').where({ meeting_id: m.id }).orderBy('created_at');
    expect(runs.map((r) => r.requested_by)).toEqual([olga.id, ada.id]);
  }, 60_000);

  it('lets only the organizer or an admin of its team ask, for a completed meeting', async () => {
    const m = await meeting();
    const member = await mcp.call(pat.key, 'svc_resummarize_meeting', { meetingId: m.id });
    expect(member.isError).toBe(true);
    expect(member.text).toMatch(/forbidden.*only its organizer or an admin of its team may/s);
    const stranger = await mcp.call(outsider.key, 'svc_resummarize_meeting', { meetingId: m.id });
    expect(stranger.isError).toBe(true);
    expect(stranger.text).toMatch(/object_not_found/);
    const gqlMember = await gql.request(pat.key, RESUMMARIZE, { meetingId: m.id });
    expect(gqlMember.body.errors?.[0]?.extensions?.code).toBe('forbidden');

    const processing = await meeting('processing');
    const early = await gql.request(olga.key, RESUMMARIZE, { meetingId: processing.id });
    expect(early.body.errors?.[0]).toMatchObject({
      message: `meeting "${processing.id}" is processing: only a completed meeting's notes can be written again`,
      extensions: { code: 'invariant_violation' },
    });
    const empty = await mcp.call(olga.key, 'svc_resummarize_meeting', { meetingId: '' });
    expect(empty.isError).toBe(true);
    expect(empty.text).toMatch(/meetingId.*must not be empty/s);
    expect(await t.db('summary_runs').whereIn('meeting_id', [m.id, processing.id])).toEqual([]);
  });

  it('refuses on a role without a workflow connection, changing nothing', async () => {
    const m = await meeting();
    const bare = await startMcp(t.db);
    try {
      const r = await bare.call(olga.key, 'svc_resummarize_meeting', { meetingId: m.id });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/feature_unavailable.*no Temporal connection/s);
    } finally {
      await bare.close();
    }
  });
});
