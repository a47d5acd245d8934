/**
 * Chunked transcription survives its worker: a worker killed outright (SIGKILL) while chunks are at
 * the speech server leaves the chunks already answered in transcript_chunks, and the worker that takes
 * over sends only the others (the stand-in counts its calls per chunk). A run cancelled mid-way leaves
 * no temporary file in the stage.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { makeTeam, makeUser, TestUser } from '../../../support/factory';
import { AsrStandin, startAsrStandin } from '../../../support/asr-standin';
import { GraphqlHarness, startGraphql, UPLOAD_AUDIO } from '../../../support/graphql';
import { startTestWorker, startWorkerProcess, TestWorker, waitForRun } from '../../../support/worker';
import { longRecording, requireMediaTools } from '../../../support/media';
import { MediaServer, startMediaServer } from './media-server';

requireMediaTools();

const SECONDS = 300;
/** 300 s in chunks of at most 30 s: 10 or 11 chunks, 2 at a time, each answered after 1.5 s. */
const CHUNKING = { ASR_CHUNK_MAX_SECONDS: '30', ASR_CHUNK_CONCURRENCY: '2' };

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe('chunked transcription across a killed worker', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let media: MediaServer;
  let asr: AsrStandin;
  let owner: TestUser;
  let dir: string;
  let child: ChildProcess | undefined;
  let second: TestWorker | undefined;
  const queue = testTaskQueue('chunks');

  beforeAll(async () => {
    t = await createTestDatabase();
    owner = await makeUser(t.db, await makeTeam(t.db), { name: 'Rhea Resume' });
    media = await startMediaServer();
    asr = await startAsrStandin({ derive: true, delayMs: 1500 });
    gql = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: queue });
    dir = mkdtempSync(join(tmpdir(), 'mi-chunks-'));
  }, 120_000);
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await second?.stop();
    await gql?.close();
    await asr?.close();
    await media?.close();
    await t?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const startChildWorker = () =>
    startWorkerProcess({
      dir,
      databaseUrl: t.url,
      taskQueue: queue,
      env: { ASR_URL: asr.url, TMPDIR: dir, ...CHUNKING },
    });

  const chunkName = (index: number) => `chunk-${String(index + 1).padStart(3, '0')}.wav`;

  it('SIGKILL mid-way: the next worker completes the meeting without sending the chunks already done again', async () => {
    child = await startChildWorker();
    const url = media.serve('/resume/long.mp3', {
      body: readFileSync(longRecording('mp3', SECONDS)),
      contentType: 'audio/mpeg',
    });
    const res = await gql.request(owner.key, UPLOAD_AUDIO, { input: { url, title: 'Resumed' } });
    expect(res.body.errors).toBeUndefined();
    const id = res.body.data.uploadAudio.meetingId as string;

    // Wait until some chunks are stored, then kill the worker outright.
    const deadline = Date.now() + 60_000;
    let stored: number[] = [];
    while (stored.length < 3) {
      if (Date.now() > deadline) throw new Error(`only ${stored.length} chunks were stored within a minute`);
      await new Promise((r) => setTimeout(r, 50));
      stored = (await t.db('transcript_chunks').where({ meeting_id: id }).select('chunk_index')).map(
        (r) => r.chunk_index as number,
      );
    }
    // Meanwhile the meeting says where it is, over GraphQL: transcribing, chunks n of m.
    const info = await gql.request(
      owner.key,
      'query($id: ID!) { transcript(id: $id) { status meeting_info { message progress { stage percent chunks_done chunks_total } } } }',
      { id },
    );
    expect(info.body.errors).toBeUndefined();
    const { progress, message } = info.body.data.transcript.meeting_info;
    expect(progress).toMatchObject({ stage: 'transcribing' });
    expect(progress.chunks_total).toBeGreaterThanOrEqual(10);
    expect(progress.chunks_done).toBeGreaterThanOrEqual(1);
    expect(progress.chunks_done).toBeLessThan(progress.chunks_total);
    expect(progress.percent).toBeGreaterThan(10);
    expect(progress.percent).toBeLessThan(100);
    expect(message).toContain(`${progress.chunks_done} of ${progress.chunks_total} chunks transcribed`);
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    stored = (await t.db('transcript_chunks').where({ meeting_id: id }).select('chunk_index')).map(
      (r) => r.chunk_index as number,
    );
    const sentBeforeKill = asr.requests.length;
    expect((await t.db('meetings').where({ id }).first('status')).status).toBe('processing');

    second = await startTestWorker(t.db, { taskQueue: queue, env: { ASR_URL: asr.url, ...CHUNKING } });
    expect(await waitForRun(gql.temporal, id, 120_000)).toMatchObject({ status: 'completed' });

    const names = asr.requests.map((r) => r.fileName);
    const total = new Set(names).size;
    expect(total).toBeGreaterThanOrEqual(10);
    // Each chunk stored before the kill was sent exactly once, before it; none of them after.
    for (const index of stored) {
      expect(names.filter((n) => n === chunkName(index))).toHaveLength(1);
      expect(names.slice(sentBeforeKill)).not.toContain(chunkName(index));
    }
    // The others: at most the ones in flight at the kill were sent twice.
    expect(asr.requests.length).toBeLessThanOrEqual(total + 2);
    expect(await t.db('transcript_chunks').where({ meeting_id: id }).count({ n: '*' })).toEqual([{ n: '0' }]);
    const sentences = await t.db('sentences').where({ meeting_id: id }).count({ n: '*' });
    expect(Number(sentences[0].n)).toBeGreaterThan(50);
  }, 240_000);

  it('a run cancelled while its chunks are at the speech server leaves no temporary file and no transcript', async () => {
    const url = media.serve('/cancel/long.mp3', {
      body: readFileSync(longRecording('mp3', SECONDS)),
      contentType: 'audio/mpeg',
    });
    const before = asr.requests.length;
    const res = await gql.request(owner.key, UPLOAD_AUDIO, { input: { url, title: 'Cancelled' } });
    const id = res.body.data.uploadAudio.meetingId as string;
    const deadline = Date.now() + 60_000;
    while (asr.requests.length < before + 2) {
      if (Date.now() > deadline) throw new Error('no chunk reached the speech server');
      await new Promise((r) => setTimeout(r, 50));
    }
    await gql.temporal.workflow.getHandle(`transcription-${id}`).cancel();
    await waitForRun(gql.temporal, id, 60_000).catch(() => undefined);
    const m = await t.db('meetings').where({ id }).first();
    expect(m.status).toBe('failed');
    expect(m.failure_reason).toMatch(/cancelled/);
    // The chunk activities notice the cancellation at their next heartbeat and clean up after themselves.
    const end = Date.now() + 15_000;
    while (filesUnder(second!.stageRoot).length > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    expect(filesUnder(second!.stageRoot)).toEqual([]);
    expect(await t.db('sentences').where({ meeting_id: id }).count({ n: '*' })).toEqual([{ n: '0' }]);
    expect(await t.db('transcript_chunks').where({ meeting_id: id }).count({ n: '*' })).toEqual([{ n: '0' }]);
  }, 120_000);
});
