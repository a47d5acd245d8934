/**
 * LIVE_IDLE_TIMEOUT (2 s here): a live meeting that nobody sends anything to ends by itself and is
 * post-processed; every accepted request resets the timer, also across continueAsNew; a paused
 * meeting idles out too.
 */
import { type LiveMeetingWorkflowInput } from '../../../../services/core/live';
import { LIVE_WORKFLOW, liveWorkflowId } from '../../../../workflows/contracts';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import { APPEND, LiveHarness, ok, PAUSE, RESUME, said, START, startLive } from './support';

const IDLE_MS = 2_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a live meeting without activity for LIVE_IDLE_TIMEOUT', () => {
  let h: LiveHarness;
  let alice: TestUser;

  beforeAll(async () => {
    h = await startLive('live-idle', { LIVE_IDLE_TIMEOUT: `${IDLE_MS}ms` });
    alice = await makeUser(h.db, await makeTeam(h.db), { email: 'alice@idle.test', name: 'Alice' });
    await h.startWorker();
  });
  afterAll(async () => h?.close());

  const append = (id: string, n: number) =>
    h.gql.request(alice.key, APPEND, { id, sentences: [said(n, 'Alice', `Sentence ${n}, still talking.`)] });
  const row = (id: string) => h.db('meetings').where({ id }).first('status', 'is_live', 'live_state');

  /** Poll until the meeting is no longer live; returns when that was seen. */
  async function endedAt(id: string, timeoutMs = 15_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!(await row(id)).is_live) return Date.now();
      await sleep(50);
    }
    throw new Error(`meeting ${id} was still live after ${timeoutMs} ms`);
  }

  it('stays live while requests keep coming, ends about LIVE_IDLE_TIMEOUT after the last, and is post-processed', async () => {
    const id: string = ok(
      await h.gql.request(alice.key, START, { input: { title: 'Forgotten bot' } }),
      'startLiveMeeting',
    );
    // Five appends 0.7 s apart: 2.8 s in all, longer than the timeout, each within it of the last.
    let last = 0;
    for (let n = 0; n < 5; n++) {
      if (n) await sleep(700);
      ok(await append(id, n), 'appendLiveSentences');
      last = Date.now();
    }
    expect(await row(id)).toEqual({ status: 'live', is_live: true, live_state: 'active' });

    const ended = await endedAt(id);
    expect(ended - last).toBeGreaterThanOrEqual(IDLE_MS - 100);
    expect(ended - last).toBeLessThan(IDLE_MS + 5_000);

    const result = await h.gql.temporal.workflow.getHandle(liveWorkflowId(id)).result();
    expect(result).toMatchObject({ meetingId: id, status: 'completed', endReason: 'idle', sentences: 5 });
    expect(await row(id)).toEqual({ status: 'completed', is_live: false, live_state: null });
    const ended_ = await h
      .db('audit_log')
      .where({ target_id: id, action: 'meeting.live_ended' })
      .first('details', 'actor_user_id');
    expect(ended_).toEqual({ details: { reason: 'idle' }, actor_user_id: null });
    const summary = await h.mcp.call(alice.key, 'svc_get_summary', { transcriptId: id });
    expect(summary.data).toMatchObject({ summary_status: 'processed' });
    expect((await h.mcp.call(alice.key, 'svc_get_active_meetings')).data.meetings).toEqual([]);
  });

  it('a paused meeting idles out too; a meeting with no sentence at all completes empty', async () => {
    const id: string = ok(
      await h.gql.request(alice.key, START, { input: { title: 'Paused and left' } }),
      'startLiveMeeting',
    );
    ok(await h.gql.request(alice.key, PAUSE, { id }), 'pauseLiveMeeting');
    const paused = Date.now();
    expect(await row(id)).toMatchObject({ is_live: true, live_state: 'paused' });
    const ended = await endedAt(id);
    expect(ended - paused).toBeGreaterThanOrEqual(IDLE_MS - 100);
    const result = await h.gql.temporal.workflow.getHandle(liveWorkflowId(id)).result();
    expect(result).toMatchObject({ status: 'completed', endReason: 'idle', sentences: 0 });
    expect(await row(id)).toMatchObject({ status: 'completed', is_live: false });
  });

  it('the idle clock crosses continueAsNew: a run that starts late still ends on time', async () => {
    const m = await makeMeeting(h.db, {
      organizer: alice,
      title: 'Short runs',
      isLive: true,
      liveState: 'active',
      sentences: [],
    });
    const input: LiveMeetingWorkflowInput = { meetingId: m.id, idleTimeoutMs: IDLE_MS, maxUpdatesPerRun: 2 };
    const handle = await h.gql.temporal.workflow.start(LIVE_WORKFLOW, {
      taskQueue: h.queue,
      workflowId: liveWorkflowId(m.id),
      args: [input],
    });
    let last = 0;
    for (let n = 0; n < 5; n++) {
      if (n) await sleep(600);
      ok(await append(m.id, n), 'appendLiveSentences');
      // Updates (not appends) make the runs: pause and resume between the appends.
      if (n < 4)
        ok(
          await h.gql.request(alice.key, n % 2 ? RESUME : PAUSE, { id: m.id }),
          n % 2 ? 'resumeLiveMeeting' : 'pauseLiveMeeting',
        );
      last = Date.now();
    }
    const ended = await endedAt(m.id);
    expect(ended - last).toBeGreaterThanOrEqual(IDLE_MS - 100);
    expect(ended - last).toBeLessThan(IDLE_MS + 5_000);
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', endReason: 'idle', sentences: 5 });
    expect(result.runs).toBeGreaterThanOrEqual(3);
  });
});
