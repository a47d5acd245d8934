/**
 * End to end: a recording of people speaking (espeak-ng) uploaded through GraphQL's uploadAudio,
 * transcribed by the embedded speech engine, embedded by post-processing (EmbeddingWorkflow, through
 * Temporal), and then found by a question that shares no word with what was said, through the SDK's
 * MCP client: the moment is where it was said, within a second. A backfill embeds what was there
 * before, and resumes after its worker is stopped midway.
 */
import { readFileSync } from 'node:fs';
import { espeakScript } from '../../support/conversations';
import { requireMediaTools } from '../../support/media';
import { McpHarness, startMcp } from '../../support/mcp';
import { testEmbedder } from '../../support/embedder';
import { startTestWorker, waitForRun } from '../../support/worker';
import { runCli } from '../../support/cli';
import { makeMeeting } from '../../support/factory';
import { RecordingRig, startRecordingRig } from '../core/ingest/rig';
import { embeddingWorkflowId } from '../../../workflows/contracts';
import { EmbeddingBackfillWorkflow } from '../../../workflows/embedding';
import type { Embedder } from '../../../services/intelligence/embeddings';

requireMediaTools();

const LINES = [
  'Good morning everyone, thanks for joining the operations review.',
  'Our warehouse in Denver will close for good at the end of June.',
  'We also need two more support engineers before the autumn launch.',
  'Thanks, let us meet again next Tuesday.',
];
const QUESTION = 'Which storage facility is being shut down, and when?';

let rig: RecordingRig;
let mcp: McpHarness;
let embedder: Embedder;

beforeAll(async () => {
  embedder = await testEmbedder();
  rig = await startRecordingRig({
    queue: 'question-upload',
    ownerName: 'Quinn Question',
    workerEnv: { ASR_URL: '', DIARIZATION: 'off', SPEECH_RECOGNIZERS: '1' },
    embedder,
  });
  mcp = await startMcp(rig.t.db, {}, { embedder });
}, 180_000);
afterAll(async () => {
  await mcp?.close();
  await rig?.close();
});

describe('a recording found by a question in other words', () => {
  it('is embedded after it is transcribed and answers with the moment it was said', async () => {
    const script = espeakScript('denver', LINES);
    const url = rig.media.serve('/rec/denver.wav', { body: readFileSync(script.wav), contentType: 'audio/wav' });
    const id = await rig.upload({ url, title: 'Operations review' });
    expect(await waitForRun(rig.gql.temporal, id, 120_000)).toMatchObject({ status: 'completed' });
    expect(await rig.gql.temporal.workflow.getHandle(embeddingWorkflowId(id)).result()).toBe('embedded');

    const r = await mcp.call(rig.owner.key, 'svc_get_transcripts', { question: QUESTION, limit: 3, format: 'json' });
    expect(r.isError).toBe(false);
    expect(r.data.answered_by).toBe('meaning');
    const [first] = r.data.moments;
    expect(first.meeting_id).toBe(id);
    // The engine may mishear a word or two ("warehouse in Denver"); the moment is the sentence said there.
    expect(first.text).toMatch(/close.*end of June/i);
    expect(Math.abs(first.start_time - script.turns[1].start)).toBeLessThanOrEqual(1);
    expect(first.link).toMatch(new RegExp(`#t=${Math.floor(first.start_time)}$`));
  }, 240_000);
});

describe('the backfill', () => {
  it('embeds the meetings from before the model, and resumes after its worker stops midway', async () => {
    const { t, owner, worker, gql } = rig;
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const sentences = [
        { speaker: 'Ana', text: `Meeting ${i} starts now.`, start: 0, end: 2 },
        { speaker: 'Bo', text: `The budget for project ${i} is settled.`, start: 2.5, end: 5 },
        { speaker: 'Ana', text: 'Thanks, see you next week.', start: 5.5, end: 7 },
      ];
      ids.push((await makeMeeting(t.db, { organizer: owner, title: `Old meeting ${i}`, sentences })).id);
    }
    const embedded = () =>
      t
        .db('meeting_embeddings')
        .whereIn('meeting_id', ids)
        .count()
        .first()
        .then((r) => Number(r!.count));
    expect(await embedded()).toBe(0);
    // Steps of one meeting, resting as long as each worked: the worker stops after the first few.
    const handle = await gql.temporal.workflow.start(EmbeddingBackfillWorkflow, {
      taskQueue: worker.taskQueue,
      workflowId: `backfill-test-${Date.now()}`,
      args: [{ batchSize: 1, restRatio: 20 }],
    });
    const deadline = Date.now() + 60_000;
    while ((await embedded()) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await worker.stop();
    const before = await embedded();
    expect(before).toBeGreaterThanOrEqual(2);
    expect(before).toBeLessThan(ids.length);

    const again = await startTestWorker(t.db, { taskQueue: worker.taskQueue, embedder });
    try {
      const result = await handle.result();
      expect(await embedded()).toBe(ids.length);
      expect(result.failed).toBe(0);
      // Each meeting embedded once: what the first worker did is not done again.
      expect(result.embedded).toBeGreaterThanOrEqual(ids.length - before);
    } finally {
      await again.stop();
    }
  }, 180_000);

  it('meeting-intel search status says how far the model has embedded', async () => {
    const r = await runCli(['search', 'status', '--json'], { DATABASE_URL: rig.t.url });
    expect(r.code).toBe(0);
    const meetings = Number((await rig.t.db('meetings').where('status', 'completed').count().first())!.count);
    expect(r.json).toEqual({
      model: embedder.info.name,
      meetings,
      embedded: meetings,
      remaining: 0,
      pgvector: true,
      by: 'meaning',
      languages: { indexed: expect.any(Number), remaining: 0, workflow: { status: expect.any(String) } },
    });
    const plain = await runCli(['search', 'status'], { DATABASE_URL: rig.t.url, EMBEDDING_MODEL_DIR: 'off' });
    expect(plain.stdout).toMatch(/no embedding model is configured \(EMBEDDING_MODEL_DIR=off\)/);
  });
});
