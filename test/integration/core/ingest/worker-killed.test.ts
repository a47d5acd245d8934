/**
 * A worker killed outright (SIGKILL: no graceful shutdown, no cancellation) in the middle of a slow
 * step: its activity must be noticed as lost by its heartbeat timeout and retried on another worker
 * within about half a minute, not left `processing` for minutes.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { makeTeam, makeUser, TestUser } from '../../../support/factory';
import { AsrStandin, silentWav, startAsrStandin } from '../../../support/asr-standin';
import { GraphqlHarness, startGraphql, UPLOAD_AUDIO } from '../../../support/graphql';
import { startTestWorker, startWorkerProcess, TestWorker, waitForRun } from '../../../support/worker';
import { MediaServer, startMediaServer } from './media-server';

/** The bound the finding sets: a dead worker's activity runs again within ~40 s of the kill. */
const RETRY_BOUND_MS = 40_000;

describe('a worker killed mid-activity', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let media: MediaServer;
  let asr: AsrStandin;
  let owner: TestUser;
  let dir: string;
  let child: ChildProcess | undefined;
  let second: TestWorker | undefined;
  const queue = testTaskQueue('killed');

  beforeAll(async () => {
    t = await createTestDatabase();
    owner = await makeUser(t.db, await makeTeam(t.db), { name: 'Kim Killed' });
    media = await startMediaServer();
    asr = await startAsrStandin();
    gql = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: queue });
    dir = mkdtempSync(join(tmpdir(), 'mi-killed-'));
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    asr?.hold(false);
    await second?.stop();
    await gql?.close();
    await asr?.close();
    await media?.close();
    await t?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const startChildWorker = () =>
    startWorkerProcess({ dir, databaseUrl: t.url, taskQueue: queue, env: { ASR_URL: asr.url } });

  it('SIGKILL while the ASR server is thinking: the transcription is retried on another worker within ~40 s and completes', async () => {
    child = await startChildWorker();
    const path = '/killed/call.wav';
    const url = media.serve(path, { body: silentWav(6), contentType: 'audio/wav' });
    asr.hold(true);
    const res = await gql.request(owner.key, UPLOAD_AUDIO, { input: { url, title: 'Killed worker' } });
    expect(res.body.errors).toBeUndefined();
    const id = res.body.data.uploadAudio.meetingId as string;

    // The transcribe step is waiting on the ASR server, inside the child's activity.
    const deadline = Date.now() + 30_000;
    while (asr.requests.length === 0) {
      if (Date.now() > deadline) throw new Error('the ASR server was never called');
      await new Promise((r) => setTimeout(r, 25));
    }
    // Let the step sit long enough that a heartbeat was due (not only the one sent at its start).
    await new Promise((r) => setTimeout(r, 6_000));
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    const killedAt = Date.now();
    await exited;
    expect((await t.db('meetings').where({ id }).first('status')).status).toBe('processing');

    asr.hold(false);
    second = await startTestWorker(t.db, { taskQueue: queue, env: { ASR_URL: asr.url } });

    // The retry reaches the ASR server again (on the second worker) within the bound of the kill.
    while (asr.requests.length < 2) {
      if (Date.now() - killedAt > RETRY_BOUND_MS)
        throw new Error(`the killed worker's transcription was not retried within ${RETRY_BOUND_MS / 1000} s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const retriedAfter = Date.now() - killedAt;
    expect(retriedAfter).toBeLessThan(RETRY_BOUND_MS);

    expect(await waitForRun(gql.temporal, id, RETRY_BOUND_MS + 20_000 - retriedAfter)).toMatchObject({
      status: 'completed',
    });
    expect((await t.db('meetings').where({ id }).first('status')).status).toBe('completed');
    expect(await t.db('sentences').where({ meeting_id: id }).count({ n: '*' })).toEqual([{ n: '3' }]);
  }, 150_000);
});
