/**
 * A live meeting from start to end, as a meeting bot drives it over GraphQL (real HTTP) and an
 * assistant reads it through the real MCP client, with the real worker and Temporal: start → appends
 * in several batches (a chunk sent again) → pause → an append while paused → resume → append → end.
 * At each step: the state svc_get_active_meetings shows, the svc_get_transcript snapshot, one row per
 * chunk; after the end: summary, analytics, the automation-rules run and the organizer's saved
 * webhook (a real https receiver), exactly as after an upload.
 */
import { createHmac } from 'node:crypto';
import { liveWorkflowId } from '../../../../workflows/contracts';
import { registry } from '../../../../services/platform/metrics';
import { makeTeam, makeUser, TestUser } from '../../../support/factory';
import { startWebhookReceiver, WebhookReceiver } from '../../../support/webhook-receiver';
import {
  APPEND,
  END,
  LiveHarness,
  ok,
  PAUSE,
  RESUME,
  said,
  START,
  startLive,
  storedSentences,
  waitFor,
} from './support';

const SECRET = 'live-meeting-secret-42';

async function metric(name: string, labels = ''): Promise<number> {
  const text = await registry.getSingleMetricAsString(name);
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

describe('a live meeting from start to end', () => {
  let h: LiveHarness;
  let alice: TestUser;
  let bob: TestUser;
  let rx: WebhookReceiver;

  beforeAll(async () => {
    rx = await startWebhookReceiver();
    h = await startLive('live-lifecycle');
    const team = await makeTeam(h.db, { tier: 'enterprise' });
    alice = await makeUser(h.db, team, { email: 'alice@live.test', name: 'Alice Able' });
    bob = await makeUser(h.db, team, { email: 'bob@live.test', name: 'Bob Baker' });
    await h.startWorker();
  });
  afterAll(async () => {
    await h?.close();
    await rx?.close();
  });

  const active = async (key: string, args: Record<string, unknown> = {}) => {
    const res = await h.mcp.call(key, 'svc_get_active_meetings', args);
    expect(res.isError).toBe(false);
    return res.data as {
      meetings: {
        id: string;
        state: string;
        title: string;
        organizer_email: string;
        meeting_link: string | null;
        start_time: string;
        end_time: string | null;
        privacy: string;
      }[];
      has_more: boolean;
    };
  };
  const snapshot = async (key: string, id: string) => {
    const res = await h.mcp.call(key, 'svc_get_transcript', { transcriptId: id, format: 'json' });
    expect(res.isError).toBe(false);
    return res.data;
  };
  const lines = (data: {
    sentences: { index: number; speaker_name: string; text: string; start_time: number; end_time: number }[];
  }) => data.sentences.map((s) => [s.index, s.speaker_name, s.text, s.start_time, s.end_time]);

  it('start → appends (one chunk sent again) → pause → append while paused → resume → append → end', async () => {
    const ingestedBefore = await metric('live_sentences_ingested_total');
    // Alice's saved webhook (developer settings): notified when a meeting she organizes is ready.
    ok(
      await h.gql.request(alice.key, 'mutation W($url: String!) { saveWebhookUrl(url: $url) { url } }', {
        url: rx.url('/alice'),
      }),
      'saveWebhookUrl',
    );
    ok(
      await h.gql.request(alice.key, 'mutation S($s: String) { setWebhookSecret(secret: $s) { __typename } }', {
        s: SECRET,
      }),
      'setWebhookSecret',
    );

    // ---- start
    const id: string = ok(
      await h.gql.request(alice.key, START, {
        input: {
          title: 'Weekly planning (live)',
          meeting_link: 'https://meet.example.com/abc-defg-hij',
          scheduled_start: '2026-11-21T09:00:00Z',
          scheduled_end: '2026-11-21T09:30:00Z',
          attendees: [{ email: 'bob@live.test', displayName: 'Bob Baker' }],
        },
      }),
      'startLiveMeeting',
    );
    expect(id).toMatch(/^[0-9A-Z]{26}$/);
    expect(await active(alice.key)).toEqual({
      meetings: [
        {
          id,
          title: 'Weekly planning (live)',
          organizer_email: 'alice@live.test',
          meeting_link: 'https://meet.example.com/abc-defg-hij',
          start_time: '2026-11-21T09:00:00.000Z',
          end_time: '2026-11-21T09:30:00.000Z',
          privacy: 'teammatesandparticipants',
          state: 'active',
        },
      ],
      has_more: false,
    });
    const empty = await snapshot(alice.key, id);
    expect(empty).toMatchObject({
      id,
      is_live: true,
      status: 'live',
      sentences: [],
      meeting_info: { summary_status: 'pending' },
    });

    // ---- two batches; the second sends c2 again with a corrected text
    const b1 = [
      said(1, 'Alice Able', 'Good morning, let us plan the week.'),
      said(2, 'Bob Baker', 'I will finsh the report.'),
      said(3, 'Alice Able', 'Great, what about the budget?'),
    ];
    expect(ok(await h.gql.request(alice.key, APPEND, { id, sentences: b1 }), 'appendLiveSentences')).toEqual({
      meetingId: id,
      state: 'active',
      appended: 3,
      replaced: 0,
      sentence_count: 3,
    });
    const s1 = await snapshot(alice.key, id);
    expect(lines(s1)).toEqual([
      [0, 'Alice Able', 'Good morning, let us plan the week.', 2, 3.5],
      [1, 'Bob Baker', 'I will finsh the report.', 4, 5.5],
      [2, 'Alice Able', 'Great, what about the budget?', 6, 7.5],
    ]);
    expect(s1.sentences.map((s: { speaker_id: number }) => s.speaker_id)).toEqual([0, 1, 0]);

    const b2 = [
      said(4, 'Bob Baker', 'The budget is approved for the quarter.'),
      { ...said(2, 'Bob Baker', 'I will finish the report by Friday.') },
      said(5, 'Alice Able', 'Bob, please send it to the whole team.'),
    ];
    expect(ok(await h.gql.request(alice.key, APPEND, { id, sentences: b2 }), 'appendLiveSentences')).toEqual({
      meetingId: id,
      state: 'active',
      appended: 2,
      replaced: 1,
      sentence_count: 5,
    });
    const s2 = await snapshot(alice.key, id);
    expect(lines(s2)).toEqual([
      [0, 'Alice Able', 'Good morning, let us plan the week.', 2, 3.5],
      [1, 'Bob Baker', 'I will finish the report by Friday.', 4, 5.5],
      [2, 'Alice Able', 'Great, what about the budget?', 6, 7.5],
      [3, 'Bob Baker', 'The budget is approved for the quarter.', 8, 9.5],
      [4, 'Alice Able', 'Bob, please send it to the whole team.', 10, 11.5],
    ]);
    // A teammate who may read the meeting sees the same snapshot.
    expect(lines(await snapshot(bob.key, id))).toEqual(lines(s2));

    // ---- pause: still live, listed as paused
    expect(ok(await h.gql.request(alice.key, PAUSE, { id }), 'pauseLiveMeeting')).toEqual({
      meetingId: id,
      state: 'paused',
      is_live: true,
      sentence_count: 5,
    });
    expect((await active(alice.key)).meetings.map((m) => [m.id, m.state])).toEqual([[id, 'paused']]);
    expect((await active(alice.key, { states: ['active'] })).meetings).toEqual([]);
    expect((await active(alice.key, { states: ['paused'] })).meetings.map((m) => m.id)).toEqual([id]);
    expect(await snapshot(alice.key, id)).toMatchObject({ is_live: true, status: 'live' });
    expect(await metric('live_meetings', '{state="paused"}')).toBe(1);
    expect(await metric('live_meetings', '{state="active"}')).toBe(0);

    // A late sentence captured before the pause is still taken while paused.
    expect(
      ok(
        await h.gql.request(alice.key, APPEND, { id, sentences: [said(6, 'Bob Baker', 'Sure, I will do that.')] }),
        'appendLiveSentences',
      ),
    ).toEqual({
      meetingId: id,
      state: 'paused',
      appended: 1,
      replaced: 0,
      sentence_count: 6,
    });

    // ---- resume, then one more append with a repeat of an unchanged chunk
    expect(ok(await h.gql.request(alice.key, RESUME, { id }), 'resumeLiveMeeting')).toEqual({
      meetingId: id,
      state: 'active',
      is_live: true,
      sentence_count: 6,
    });
    expect((await active(alice.key)).meetings.map((m) => [m.id, m.state])).toEqual([[id, 'active']]);
    expect(await metric('live_meetings', '{state="active"}')).toBe(1);
    const b4 = [
      said(7, 'Alice Able', 'Next week we review the roadmap.'),
      said(8, 'Bob Baker', 'Sounds good, thanks everyone.'),
    ];
    expect(ok(await h.gql.request(alice.key, APPEND, { id, sentences: b4 }), 'appendLiveSentences')).toMatchObject({
      appended: 2,
      replaced: 0,
      sentence_count: 8,
    });
    expect(ok(await h.gql.request(alice.key, APPEND, { id, sentences: [b4[1]] }), 'appendLiveSentences')).toMatchObject(
      { appended: 0, replaced: 1, sentence_count: 8 },
    );

    const rows = await storedSentences(h.db, id);
    expect(rows.map((r) => r.idx)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(rows.map((r) => r.chunk_id)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8']);
    expect(await metric('live_sentences_ingested_total')).toBe(ingestedBefore + 8);
    const live = await h.db('meetings').where({ id }).first('status', 'is_live', 'live_state', 'duration_seconds');
    expect(live).toEqual({ status: 'live', is_live: true, live_state: 'active', duration_seconds: 17.5 });

    // ---- end: out of the active meetings at once, then completed with summary and analytics
    expect(rx.requests('/alice')).toEqual([]);
    const endedAt = Date.now();
    expect(ok(await h.gql.request(alice.key, END, { id }), 'endLiveMeeting')).toEqual({
      meetingId: id,
      state: 'ended',
      is_live: false,
      sentence_count: 8,
    });
    expect((await active(alice.key)).meetings).toEqual([]);
    expect(await metric('live_meetings', '{state="active"}')).toBe(0);

    const result = await h.gql.temporal.workflow.getHandle(liveWorkflowId(id)).result();
    expect(result).toMatchObject({
      meetingId: id,
      status: 'completed',
      endReason: 'requested',
      sentences: 8,
      speakers: 2,
      summarySource: 'extractive',
    });

    const done = await snapshot(alice.key, id);
    expect(done).toMatchObject({
      id,
      is_live: false,
      status: 'completed',
      meeting_info: { summary_status: 'processed' },
      has_more: false,
    });
    expect(done.duration).toBeCloseTo(17.5 / 60, 1);
    expect(lines(done)).toEqual([
      ...lines(s2),
      [5, 'Bob Baker', 'Sure, I will do that.', 12, 13.5],
      [6, 'Alice Able', 'Next week we review the roadmap.', 14, 15.5],
      [7, 'Bob Baker', 'Sounds good, thanks everyone.', 16, 17.5],
    ]);
    expect(done.analytics.map((a: { name: string; word_count: number }) => [a.name, a.word_count > 0])).toEqual([
      ['Alice Able', true],
      ['Bob Baker', true],
    ]);
    expect(done.meeting_analytics.duration_seconds).toBeGreaterThan(0);
    expect(done.participants.split(', ').sort()).toEqual(['alice@live.test', 'bob@live.test']);

    const summary = await h.mcp.call(alice.key, 'svc_get_summary', { transcriptId: id });
    expect(summary.isError).toBe(false);
    expect(summary.data).toMatchObject({ id, summary_status: 'processed' });
    expect(summary.data.overview.length).toBeGreaterThan(0);
    expect(summary.data.keywords.length).toBeGreaterThan(0);
    expect(await h.db('summary_runs').where({ meeting_id: id }).select('trigger', 'source')).toEqual([
      { trigger: 'live', source: 'extractive' },
    ]);

    // No duplicate after the rewrite of the transcript, and minutes charged once.
    expect((await storedSentences(h.db, id)).map((r) => r.idx)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(
      await h.db('audit_log').where({ target_id: id, action: 'meeting.minutes_charged' }).count({ n: '*' }),
    ).toEqual([{ n: '1' }]);
    expect(
      (await h.db('audit_log').where({ target_id: id }).orderBy('id').select('action')).map((r) => r.action),
    ).toEqual(
      expect.arrayContaining([
        'meeting.live_started',
        'meeting.live_paused',
        'meeting.live_resumed',
        'meeting.live_ended',
        'meeting.transcribed',
      ]),
    );

    // ---- the post-processing an upload gets: the automation rules run, then the saved webhook fires,
    // and the meeting is embedded for search by meaning.
    expect(result.children).toEqual([
      `rules-${id}`,
      expect.stringMatching(new RegExp(`^webhook-${id}-`)),
      `embed-${id}`,
    ]);
    const rules = await h.gql.temporal.workflow.getHandle(`rules-${id}`).result();
    expect(rules).toMatchObject({ meetingId: id });
    const [hook] = await rx.waitFor('/alice', 1, 20_000);
    expect(hook.method).toBe('POST');
    expect(JSON.parse(hook.rawBody.toString('utf8'))).toEqual({ meetingId: id, eventType: 'Transcription completed' });
    expect(hook.headers['x-hub-signature']).toBe(createHmac('sha256', SECRET).update(hook.rawBody).digest('hex'));
    // The webhook fires when the transcript is ready, never while the meeting was live.
    expect(hook.at).toBeGreaterThanOrEqual(endedAt);
  });

  it('sentences of several callers at once keep contiguous indices and one row per chunk', async () => {
    const id: string = ok(await h.gql.request(bob.key, START, { input: { title: 'Bob live' } }), 'startLiveMeeting');
    const calls = Array.from({ length: 12 }, (_, i) => [
      said(2 * i, 'Bob Baker', `Point ${2 * i}.`),
      said(2 * i + 1, 'Guest', `Answer ${2 * i + 1}.`),
    ]);
    // Every batch twice, at once: a recorder that retried because its first answer was slow.
    const answers = await Promise.all(
      [...calls, ...calls].map((sentences) => h.gql.request(bob.key, APPEND, { id, sentences })),
    );
    const results = answers.map((a) => ok(a, 'appendLiveSentences'));
    expect(results.reduce((n, r) => n + r.appended, 0)).toBe(24);
    expect(results.reduce((n, r) => n + r.replaced, 0)).toBe(24);

    const rows = await storedSentences(h.db, id);
    expect(rows.map((r) => r.idx)).toEqual(Array.from({ length: 24 }, (_, i) => i));
    expect(new Set(rows.map((r) => r.chunk_id)).size).toBe(24);
    // Each batch's two sentences are adjacent, in the order sent.
    for (const r of rows.filter((x) => x.speaker_name === 'Bob Baker')) {
      const next = rows.find((x) => x.idx === r.idx + 1)!;
      expect(next.chunk_id).toBe(`c${Number(r.chunk_id.slice(1)) + 1}`);
    }
    const snap = await snapshot(bob.key, id);
    expect(snap.sentences).toHaveLength(24);
    expect(new Set(snap.sentences.map((s: { speaker_id: number }) => s.speaker_id))).toEqual(new Set([0, 1]));

    ok(await h.gql.request(bob.key, END, { id }), 'endLiveMeeting');
    await waitFor(
      'the meeting to complete',
      async () => (await h.db('meetings').where({ id }).first('status')).status === 'completed',
    );
  });
});
