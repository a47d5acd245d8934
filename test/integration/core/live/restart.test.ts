/**
 * Live ingest that outlives its worker and its workflow history: a worker shut down between appends
 * (appends are stored by the API pod and readable at once with no worker running; a pause sent
 * meanwhile waits in Temporal and lands when a new worker starts; no sentence lost, none doubled), and
 * a long meeting whose workflow continues as new every few updates, carrying its state.
 */
import { type LiveMeetingWorkflowInput } from '../../../../services/core/live';
import { type LiveStatus } from '../../../../services/core/live/protocol';
import { LIVE_STATUS_QUERY, LIVE_WORKFLOW, liveWorkflowId } from '../../../../workflows/contracts';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('live ingest across worker restarts and runs', () => {
  let h: LiveHarness;
  let alice: TestUser;

  beforeAll(async () => {
    h = await startLive('live-restart');
    alice = await makeUser(h.db, await makeTeam(h.db), { email: 'alice@restart.test', name: 'Alice' });
  });
  afterAll(async () => h?.close());

  const append = (id: string, sentences: unknown[]) => h.gql.request(alice.key, APPEND, { id, sentences });
  const transcript = async (id: string) => {
    const res = await h.mcp.call(alice.key, 'svc_get_transcript', { transcriptId: id, format: 'json' });
    expect(res.isError).toBe(false);
    return res.data as { is_live: boolean; status: string; sentences: { index: number; text: string }[] };
  };

  it('a worker shut down between appends: appends are stored and readable at once, a pause waits for the new worker, nothing is lost or doubled', async () => {
    const first = await h.startWorker();
    const id: string = ok(
      await h.gql.request(alice.key, START, { input: { title: 'Survives restarts' } }),
      'startLiveMeeting',
    );
    expect(
      ok(
        await append(id, [said(1, 'Alice', 'One.'), said(2, 'Bob', 'Two.'), said(3, 'Alice', 'Three.')]),
        'appendLiveSentences',
      ),
    ).toMatchObject({ sentence_count: 3 });

    await first.stop();
    // No worker: appends still answer, once stored, and a chunk sent again replaces rather than doubles.
    expect(
      ok(
        await append(id, [said(4, 'Bob', 'Four.'), said(5, 'Alice', 'Five.'), said(3, 'Alice', 'Three.')]),
        'appendLiveSentences',
      ),
    ).toEqual({
      meetingId: id,
      state: 'active',
      appended: 2,
      replaced: 1,
      sentence_count: 5,
    });
    expect((await transcript(id)).sentences.map((s) => s.text)).toEqual(['One.', 'Two.', 'Three.', 'Four.', 'Five.']);
    // A state change needs the workflow: Temporal holds the update and the caller waits for its answer.
    let settled = false;
    const pausing = h.gql.request(alice.key, PAUSE, { id }).finally(() => {
      settled = true;
    });
    await sleep(2_000);
    expect(settled).toBe(false);
    expect(await h.db('meetings').where({ id }).first('live_state')).toEqual({ live_state: 'active' });

    await h.startWorker();
    expect(ok(await pausing, 'pauseLiveMeeting')).toMatchObject({ state: 'paused', sentence_count: 5 });
    expect(ok(await append(id, [said(6, 'Bob', 'Six.')]), 'appendLiveSentences')).toMatchObject({
      state: 'paused',
      appended: 1,
      sentence_count: 6,
    });
    expect(ok(await h.gql.request(alice.key, RESUME, { id }), 'resumeLiveMeeting')).toMatchObject({
      state: 'active',
      sentence_count: 6,
    });

    const rows = await storedSentences(h.db, id);
    expect(rows.map((r) => [r.idx, r.chunk_id, r.text])).toEqual([
      [0, 'c1', 'One.'],
      [1, 'c2', 'Two.'],
      [2, 'c3', 'Three.'],
      [3, 'c4', 'Four.'],
      [4, 'c5', 'Five.'],
      [5, 'c6', 'Six.'],
    ]);

    ok(await h.gql.request(alice.key, END, { id }), 'endLiveMeeting');
    const result = await h.gql.temporal.workflow.getHandle(liveWorkflowId(id)).result();
    expect(result).toMatchObject({ status: 'completed', sentences: 6 });
    expect(await transcript(id)).toMatchObject({ is_live: false, status: 'completed' });
  });

  it('continues as new every few updates, carrying its state; appends and updates race without loss; history stays small', async () => {
    if (h.workers.every((w) => w.worker.getState() !== 'RUNNING')) await h.startWorker();
    // A meeting row as startLiveMeeting makes it, and its workflow with a tiny run length.
    const m = await makeMeeting(h.db, {
      organizer: alice,
      title: 'Long meeting',
      isLive: true,
      liveState: 'active',
      sentences: [],
    });
    const input: LiveMeetingWorkflowInput = { meetingId: m.id, idleTimeoutMs: 60_000, maxUpdatesPerRun: 2 };
    const handle = await h.gql.temporal.workflow.start(LIVE_WORKFLOW, {
      taskQueue: h.queue,
      workflowId: liveWorkflowId(m.id),
      args: [input],
    });

    let n = 0;
    for (let cycle = 0; cycle < 3; cycle++) {
      ok(await append(m.id, [said(n, 'Alice', `Line ${n++}.`)]), 'appendLiveSentences');
      expect(ok(await h.gql.request(alice.key, PAUSE, { id: m.id }), 'pauseLiveMeeting')).toMatchObject({
        state: 'paused',
      });
      expect(ok(await append(m.id, [said(n, 'Bob', `Line ${n++}.`)]), 'appendLiveSentences')).toMatchObject({
        state: 'paused',
      });
      expect(ok(await h.gql.request(alice.key, RESUME, { id: m.id }), 'resumeLiveMeeting')).toMatchObject({
        state: 'active',
        sentence_count: n,
      });
    }
    // Six updates at two a run: the state crossed continueAsNew; pausing twice is still refused.
    expect(ok(await h.gql.request(alice.key, PAUSE, { id: m.id }), 'pauseLiveMeeting')).toMatchObject({
      state: 'paused',
    });
    const refused = await h.gql.request(alice.key, PAUSE, { id: m.id });
    expect(refused.body.errors?.[0].extensions?.code).toBe('invariant_violation');
    expect(await h.db('meetings').where({ id: m.id }).first('live_state')).toEqual({ live_state: 'paused' });

    // A burst of concurrent appends racing a resume: every one answered, each stored once, in order.
    const [resumed, ...burst] = await Promise.all([
      h.gql.request(alice.key, RESUME, { id: m.id }),
      ...Array.from({ length: 12 }, (_, k) => append(m.id, [said(n + k, 'Alice', `Burst ${k}.`)])),
    ]);
    expect(ok(resumed, 'resumeLiveMeeting')).toMatchObject({ state: 'active' });
    expect(burst.map((r) => ok(r, 'appendLiveSentences').appended)).toEqual(Array(12).fill(1));

    const status = await handle.query<LiveStatus>(LIVE_STATUS_QUERY);
    expect(status).toMatchObject({ state: 'active', pendingWrites: 0 });
    expect(status.runs).toBeGreaterThanOrEqual(4);
    expect(status.updatesTotal).toBe(8); // the refused pause was never accepted
    // The current run's history holds a few updates, not the meeting's whole life.
    const history = await h.gql.temporal.workflow.getHandle(liveWorkflowId(m.id)).fetchHistory();
    const updates = history.events!.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length;
    expect(updates).toBeLessThanOrEqual(2);

    const rows = await storedSentences(h.db, m.id);
    expect(rows.map((r) => r.idx)).toEqual(Array.from({ length: 18 }, (_, i) => i));
    expect(new Set(rows.map((r) => r.chunk_id)).size).toBe(18);

    ok(await h.gql.request(alice.key, END, { id: m.id }), 'endLiveMeeting');
    const result = await h.gql.temporal.workflow.getHandle(liveWorkflowId(m.id)).result();
    expect(result).toMatchObject({ status: 'completed', sentences: 18, endReason: 'requested' });
    expect(result.runs).toBeGreaterThanOrEqual(status.runs);
    expect(result.updates).toBe(status.updatesTotal + 1);
    await waitFor(
      'completed',
      async () => (await h.db('meetings').where({ id: m.id }).first('status')).status === 'completed',
    );
  });

  it('a live meeting without its workflow (the API pod stopped in between) is picked up by its next state change', async () => {
    if (h.workers.every((w) => w.worker.getState() !== 'RUNNING')) await h.startWorker();
    const m = await makeMeeting(h.db, {
      organizer: alice,
      title: 'Orphan',
      isLive: true,
      liveState: 'active',
      sentences: [],
    });
    expect(ok(await append(m.id, [said(1, 'Alice', 'Still here.')]), 'appendLiveSentences')).toMatchObject({
      appended: 1,
      sentence_count: 1,
    });
    expect(ok(await h.gql.request(alice.key, PAUSE, { id: m.id }), 'pauseLiveMeeting')).toMatchObject({
      state: 'paused',
      sentence_count: 1,
    });
    const handle = h.gql.temporal.workflow.getHandle(liveWorkflowId(m.id));
    expect((await handle.describe()).status.name).toBe('RUNNING');

    // A workflow an operator closed by hand is not started again: the meeting is refused, not revived.
    await handle.terminate('closed by an operator in a test');
    const refused = await h.gql.request(alice.key, RESUME, { id: m.id });
    expect(refused.body.errors?.[0]).toMatchObject({
      extensions: { code: 'invariant_violation' },
      message: expect.stringMatching(/closed by an operator/),
    });
    expect((await storedSentences(h.db, m.id)).map((r) => r.text)).toEqual(['Still here.']);
  });
});
