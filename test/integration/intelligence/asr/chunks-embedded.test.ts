/**
 * A recording long enough for many chunks, made of real speech and silences, through the embedded
 * engine: a worker process killed outright (SIGKILL) mid-way leaves its decoded chunks in
 * transcript_chunks, and the worker that takes over decodes only the others; the transcript keeps
 * every utterance in order, with times that grow across chunk boundaries, each within a second and a
 * half of where it was said.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedEngine } from '../../../../services/intelligence/asr';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { makeTeam, makeUser, TestUser } from '../../../support/factory';
import { GraphqlHarness, startGraphql, UPLOAD_AUDIO } from '../../../support/graphql';
import { startTestWorker, startWorkerProcess, TestWorker, waitForRun } from '../../../support/worker';
import { requireMediaTools } from '../../../support/media';
import { placedRecording, requireSpeechData } from '../../../support/speech';
import { wordErrorRate } from '../../../support/wer';
import { MediaServer, startMediaServer } from '../../core/ingest/media-server';

requireMediaTools();
requireSpeechData();

const IDS = ['0870', '0880', '0890', '0920', '0930'];
/** Twenty utterances, one every 12 s: 240 s in chunks of at most 20 s, one chunk at a time. */
const PARTS = Array.from({ length: 20 }, (_, i) => ({ id: IDS[i % IDS.length], at: 2 + 12 * i }));
const SECONDS = 242;
const ENV = { ASR_URL: '', ASR_CHUNK_MAX_SECONDS: '20', ASR_CHUNK_CONCURRENCY: '1', SPEECH_RECOGNIZERS: '1' };

describe('a long recording through the embedded engine', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let media: MediaServer;
  let owner: TestUser;
  let dir: string;
  let child: ChildProcess | undefined;
  let second: TestWorker | undefined;
  const queue = testTaskQueue('speech-chunks');

  beforeAll(async () => {
    t = await createTestDatabase();
    owner = await makeUser(t.db, await makeTeam(t.db), { name: 'Marianne Chunk' });
    media = await startMediaServer();
    gql = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: queue });
    dir = mkdtempSync(join(tmpdir(), 'mi-speech-chunks-'));
  }, 120_000);
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await second?.stop();
    await gql?.close();
    await media?.close();
    await t?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('resumes after a killed worker without decoding the chunks done, its words in order with growing times', async () => {
    const rec = placedRecording(PARTS, SECONDS, 'mp3');
    child = await startWorkerProcess({ dir, databaseUrl: t.url, taskQueue: queue, env: { TMPDIR: dir, ...ENV } });
    const url = media.serve('/long-speech.mp3', { body: readFileSync(rec.path), contentType: 'audio/mpeg' });
    const res = await gql.request(owner.key, UPLOAD_AUDIO, { input: { url, title: 'Sense and chunks' } });
    expect(res.body.errors).toBeUndefined();
    const id = res.body.data.uploadAudio.meetingId as string;

    const deadline = Date.now() + 90_000;
    let stored = 0;
    while (stored < 3) {
      if (Date.now() > deadline) throw new Error(`only ${stored} chunks were stored in time`);
      await new Promise((r) => setTimeout(r, 50));
      [{ n: stored }] = (await t.db('transcript_chunks').where({ meeting_id: id }).count({ n: '*' })).map((r) => ({
        n: Number(r.n),
      }));
    }
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    const done = Number((await t.db('transcript_chunks').where({ meeting_id: id }).count({ n: '*' }))[0].n);
    const total = (await t.db('meetings').where({ id }).first('progress')).progress.chunks_total as number;
    expect(total).toBeGreaterThanOrEqual(13);
    expect(done).toBeLessThan(total);

    // The engine this process's worker will use (loaded once, shared): count what it decodes.
    const engine = await embeddedEngine({ modelsDir: '.models', model: 'moonshine-tiny-en', recognizers: 1 });
    const decode = engine.transcribe;
    let decoded = 0;
    engine.transcribe = (samples, signal) => {
      decoded++;
      return decode(samples, signal);
    };
    try {
      second = await startTestWorker(t.db, { taskQueue: queue, env: ENV });
      expect(await waitForRun(gql.temporal, id, 180_000)).toMatchObject({ status: 'completed' });
    } finally {
      engine.transcribe = decode;
    }
    // Only the chunks not stored before the kill are decoded (one may have been in flight at the kill).
    expect(decoded).toBeGreaterThanOrEqual(total - done - 1);
    expect(decoded).toBeLessThanOrEqual(total - done);

    const sentences = await t.db('sentences').where({ meeting_id: id }).orderBy('idx').select('text', 'start_time');
    const starts = sentences.map((s) => Number(s.start_time));
    for (let i = 1; i < starts.length; i++) expect(starts[i]).toBeGreaterThan(starts[i - 1]);
    // Every utterance is heard where it was said, nothing is dropped or repeated at a chunk boundary.
    for (const p of PARTS) expect(Math.min(...starts.map((s) => Math.abs(s - p.at)))).toBeLessThanOrEqual(1.5);
    const { wer } = wordErrorRate([
      {
        reference: rec.placed.map((p) => p.utterance.reference).join(' '),
        hypothesis: sentences.map((s) => s.text).join(' '),
      },
    ]);
    expect(wer).toBeLessThanOrEqual(0.1);
  }, 300_000);
});
