/**
 * Runs that survive their worker: a worker shut down in the middle of a slow step, and a step that
 * lands on a worker without the stage (another pod). Each ends with exactly one transcript, minutes
 * charged once. And the same upload sent twice is one meeting and one run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { persistTranscript } from '../../../../services/core/ingest';
import { analyze } from '../../../../services/intelligence/analytics';
import { parseCaptions } from '../../../../services/intelligence/captions';
import { summarize } from '../../../../services/intelligence/summarize';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { makeTeam, makeUser, TestUser } from '../../../support/factory';
import { AsrStandin, silentWav, startAsrStandin } from '../../../support/asr-standin';
import { GraphqlHarness, startGraphql, UPLOAD_AUDIO } from '../../../support/graphql';
import { startTestWorker, TestWorker, waitForRun } from '../../../support/worker';
import { MediaServer, startMediaServer } from './media-server';

const VTT = readFileSync(
  join(__dirname, '..', '..', '..', '..', 'services', 'cli', 'demo', 'meetings', '2026-10-05-engineering-standup.vtt'),
);
const expectedSentences = parseCaptions(VTT).sentences;

describe('runs that survive their worker', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let media: MediaServer;
  let asr: AsrStandin;
  let owner: TestUser;
  const queue = testTaskQueue('restart');
  const workers: TestWorker[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    owner = await makeUser(t.db, await makeTeam(t.db), { name: 'Rita Restart' });
    media = await startMediaServer();
    asr = await startAsrStandin();
    gql = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: queue });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await gql?.close();
    await asr?.close();
    await media?.close();
    await t?.drop();
  });

  const start = async () => {
    const w = await startTestWorker(t.db, { taskQueue: queue, env: { ASR_URL: asr.url } });
    workers.push(w);
    return w;
  };

  const upload = async (input: Record<string, unknown>) => {
    const res = await gql.request(owner.key, UPLOAD_AUDIO, { input });
    expect(res.body.errors).toBeUndefined();
    return res.body.data.uploadAudio;
  };

  async function expectOneTranscript(id: string, sentences: number) {
    const rows = await t.db('sentences').where({ meeting_id: id }).select('idx');
    expect(rows).toHaveLength(sentences);
    expect(new Set(rows.map((r) => r.idx)).size).toBe(sentences);
    expect(await t.db('summaries').where({ meeting_id: id }).count({ n: '*' })).toEqual([{ n: '1' }]);
    expect(await t.db('meeting_analytics').where({ meeting_id: id }).count({ n: '*' })).toEqual([{ n: '1' }]);
    expect(
      await t.db('audit_log').where({ target_id: id, action: 'meeting.minutes_charged' }).count({ n: '*' }),
    ).toEqual([{ n: '1' }]);
  }

  it('a worker shut down during a stalled download: a new worker finishes the run, one transcript', async () => {
    const first = await start();
    const path = '/slow/standup.vtt';
    const url = media.serve(path, { body: VTT, contentType: 'text/vtt', stall: true });
    const { meetingId: id } = await upload({ url, title: 'Stalled stand-up' });
    await media.waitForHit(path);

    await first.stop(); // the in-flight download is cancelled; the attempt fails and is retried
    media.release(path);
    await start();

    expect(await waitForRun(gql.temporal, id)).toMatchObject({ status: 'completed' });
    expect(media.hits(path).length).toBeGreaterThanOrEqual(2);
    await expectOneTranscript(id, expectedSentences.length);
    const m = await t.db('meetings').where({ id }).first();
    expect(m.status).toBe('completed');
  });

  it('a worker shut down while the ASR server is thinking, the retry on another worker (no stage) re-downloads and finishes', async () => {
    const path = '/slow/call.wav';
    const url = media.serve(path, { body: silentWav(6), contentType: 'audio/wav' });
    const asrBefore = asr.requests.length;
    asr.hold(true);
    const { meetingId: id } = await upload({ url, title: 'Slow model' });
    const deadline = Date.now() + 30_000;
    while (asr.requests.length === asrBefore) {
      if (Date.now() > deadline) throw new Error('the ASR server was never called');
      await new Promise((r) => setTimeout(r, 25));
    }
    // Every worker of this file has its own stage directory, like pods without a shared volume.
    await Promise.all(workers.map((w) => w.stop()));
    asr.hold(false);
    await start();

    expect(await waitForRun(gql.temporal, id)).toMatchObject({ status: 'completed' });
    // The new worker did not have the staged media and fetched it again, without charging again.
    expect(media.hits(path)).toHaveLength(2);
    expect(asr.requests.length - asrBefore).toBeGreaterThanOrEqual(2);
    await expectOneTranscript(id, 3);
  });

  it('the same upload sent twice at once is one meeting and one run; a later retry answers with it', async () => {
    const url = media.serve('/twice/standup.vtt', { body: VTT, contentType: 'text/vtt' });
    const input = { url, title: 'Sent twice', client_reference_id: 'crm-42' };
    const answers = await Promise.all([upload(input), upload(input), upload(input)]);
    const ids = new Set(answers.map((a) => a.meetingId));
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    expect(
      await t.db('meetings').where({ uploader_id: owner.id, client_reference_id: 'crm-42' }).count({ n: '*' }),
    ).toEqual([{ n: '1' }]);
    expect(await waitForRun(gql.temporal, id)).toMatchObject({ status: 'completed' });

    const later = await upload(input);
    expect(later).toMatchObject({ success: true, meetingId: id, status: 'completed', clientReferenceId: 'crm-42' });
    expect(later.message).toMatch(/received before/);

    const runs: string[] = [];
    for await (const wf of gql.temporal.workflow.list({ query: `WorkflowId = 'transcription-${id}'` }))
      runs.push(wf.runId);
    expect(runs).toHaveLength(1);
    await expectOneTranscript(id, expectedSentences.length);

    // The same reference for a different file is refused, naming the field.
    const other = await gql.request(owner.key, UPLOAD_AUDIO, { input: { ...input, url: `${url}?v=2` } });
    expect(other.body.errors![0].extensions).toMatchObject({
      code: 'invalid_arguments',
      field: 'input.client_reference_id',
    });
  });

  it('a repeated persist replaces the transcript rather than adding to it', async () => {
    const [m] = await t.db('meetings').where({ title: 'Sent twice' }).select('id');
    const sentences = parseCaptions(VTT).sentences;
    const t1 = {
      meetingId: m.id,
      sentences,
      durationSeconds: 170,
      analytics: analyze(sentences),
      summary: summarize(sentences),
    };
    const first = await persistTranscript(t.db, t1);
    const second = await persistTranscript(t.db, t1);
    expect(second).toEqual(first);
    await expectOneTranscript(m.id, sentences.length);
    expect(await t.db('speaker_analytics').where({ meeting_id: m.id }).count({ n: '*' })).toEqual([
      { n: String(first.speakers) },
    ]);
  });
});
