/**
 * Live ingest that outlives its worker and its workflow history: a worker shut down between appends
 * (the append sent meanwhile waits in Temporal and lands when a new worker starts; no sentence lost,
 * none doubled), and a long meeting whose workflow continues as new every few updates, carrying its
 * state, its sentences and its idle clock.
 */
import { LIVE_STATUS_QUERY, LIVE_WORKFLOW, liveWorkflowId, type LiveMeetingWorkflowInput, type LiveStatus } from '../../../services/core/live-protocol';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { APPEND, END, LiveHarness, ok, PAUSE, RESUME, said, START, startLive, storedSentences, waitFor } from './support';

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

  it('a worker shut down between appends: the append waits, a new worker stores it, nothing is lost or doubled', async () => {
    const first = await h.startWorker();
    const id: string = ok(await h.gql.request(alice.key, START, { input: { title: 'Survives restarts' } }), 'startLiveMeeting');
    expect(ok(await append(id, [said(1, 'Alice', 'One.'), said(2, 'Bob', 'Two.'), said(3, 'Alice', 'Three.')]), 'appendLiveSentences')).toMatchObject({ sentence_count: 3 });

    await first.stop();
    // Sent while no worker runs: Temporal holds the update; the caller waits for its answer.
    let settled = false;
    const pending = append(id, [said(4, 'Bob', 'Four.'), said(5, 'Alice', 'Five.'), said(3, 'Alice', 'Three.')]).finally(() => {
      settled = true;
    });
    await sleep(2_000);
    expect(settled).toBe(false);
    expect(await storedSentences(h.db, id)).toHaveLength(3);
    // Reads do not need a worker: the snapshot so far.
    expect((await transcript(id)).sentences.map((s) => s.text)).toEqual(['One.', 'Two.', 'Three.']);

    await h.startWorker();
    expect(ok(await pending, 'appendLiveSentences')).toEqual({ meetingId: id, state: 'active', appended: 2, replaced: 1, sentence_count: 5 });
    expect(ok(await append(id, [said(6, 'Bob', 'Six.')]), 'appendLiveSentences')).toMatchObject({ appended: 1, sentence_count: 6 });
    expect(ok(await h.gql.request(alice.key, PAUSE, { id }), 'pauseLiveMeeting')).toMatchObject({ state: 'paused' });
    expect(ok(await h.gql.request(alice.key, RESUME, { id }), 'resumeLiveMeeting')).toMatchObject({ state: 'active' });

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

  it('continues as new every few updates, carrying state and sentences; history stays small', async () => {
    if (h.workers.every((w) => w.worker.getState() !== 'RUNNING')) await h.startWorker();
    // A meeting row as startLiveMeeting makes it, and its workflow with a tiny run length.
    const m = await makeMeeting(h.db, { organizer: alice, title: 'Long meeting', isLive: true, liveState: 'active', sentences: [] });
    const input: LiveMeetingWorkflowInput = { meetingId: m.id, idleTimeoutMs: 60_000, maxUpdatesPerRun: 3 };
    const handle = await h.gql.temporal.workflow.start(LIVE_WORKFLOW, { taskQueue: h.queue, workflowId: liveWorkflowId(m.id), args: [input] });

    for (let i = 0; i < 5; i++) ok(await append(m.id, [said(i, 'Alice', `Line ${i}.`)]), 'appendLiveSentences');
    expect(ok(await h.gql.request(alice.key, PAUSE, { id: m.id }), 'pauseLiveMeeting')).toMatchObject({ state: 'paused' });
    // A few runs later the meeting is still paused: the state crossed continueAsNew.
    for (let i = 5; i < 9; i++) expect(ok(await append(m.id, [said(i, 'Bob', `Line ${i}.`)]), 'appendLiveSentences')).toMatchObject({ state: 'paused' });
    expect(await h.db('meetings').where({ id: m.id }).first('live_state')).toEqual({ live_state: 'paused' });
    const refused = await h.gql.request(alice.key, PAUSE, { id: m.id });
    expect(refused.body.errors?.[0].extensions?.code).toBe('invariant_violation');
    expect(ok(await h.gql.request(alice.key, RESUME, { id: m.id }), 'resumeLiveMeeting')).toMatchObject({ state: 'active', sentence_count: 9 });

    // A burst of concurrent appends across run boundaries: every one answered, each stored once.
    const burst = await Promise.all(Array.from({ length: 12 }, (_, k) => append(m.id, [said(9 + k, 'Alice', `Burst ${k}.`)])));
    expect(burst.map((r) => ok(r, 'appendLiveSentences').appended)).toEqual(Array(12).fill(1));

    const status = await handle.query<LiveStatus>(LIVE_STATUS_QUERY);
    expect(status).toMatchObject({ state: 'active', sentenceCount: 21, pendingWrites: 0 });
    expect(status.runs).toBeGreaterThanOrEqual(5);
    expect(status.updatesThisRun).toBeLessThanOrEqual(3 + 12);
    // The current run's history holds a few updates, not the meeting's whole life.
    const history = await h.gql.temporal.workflow.getHandle(liveWorkflowId(m.id)).fetchHistory();
    const updates = history.events!.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length;
    expect(updates).toBeLessThan(status.updatesTotal);

    const rows = await storedSentences(h.db, m.id);
    expect(rows.map((r) => r.idx)).toEqual(Array.from({ length: 21 }, (_, i) => i));
    expect(new Set(rows.map((r) => r.chunk_id)).size).toBe(21);

    ok(await h.gql.request(alice.key, END, { id: m.id }), 'endLiveMeeting');
    const result = await h.gql.temporal.workflow.getHandle(liveWorkflowId(m.id)).result();
    expect(result).toMatchObject({ status: 'completed', sentences: 21, endReason: 'requested' });
    expect(result.runs).toBeGreaterThanOrEqual(status.runs);
    expect(result.updates).toBe(status.updatesTotal + 1);
    await waitFor('completed', async () => (await h.db('meetings').where({ id: m.id }).first('status')).status === 'completed');
  });

  it('a live meeting without its workflow (the API pod stopped in between) is picked up by its next request', async () => {
    if (h.workers.every((w) => w.worker.getState() !== 'RUNNING')) await h.startWorker();
    const m = await makeMeeting(h.db, { organizer: alice, title: 'Orphan', isLive: true, liveState: 'active', sentences: [] });
    expect(ok(await append(m.id, [said(1, 'Alice', 'Still here.')]), 'appendLiveSentences')).toMatchObject({ appended: 1, sentence_count: 1 });
    const handle = h.gql.temporal.workflow.getHandle(liveWorkflowId(m.id));
    expect((await handle.describe()).status.name).toBe('RUNNING');

    // A workflow an operator closed by hand is not started again: the meeting is refused, not revived.
    await handle.terminate('closed by an operator in a test');
    const refused = await h.gql.request(alice.key, PAUSE, { id: m.id });
    expect(refused.body.errors?.[0]).toMatchObject({ extensions: { code: 'invariant_violation' }, message: expect.stringMatching(/closed by an operator/) });
    expect((await storedSentences(h.db, m.id)).map((r) => r.text)).toEqual(['Still here.']);
  });
});
