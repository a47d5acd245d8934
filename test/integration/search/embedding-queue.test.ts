/**
 * Embedding work never holds an upload's activities: the embedding activities run on a task queue of
 * their own (`<queue>-embeddings`, workflows/embedding.ts) served by the embedding worker's slots
 * (WORKER_MAX_CONCURRENT_EMBEDDINGS, 1 by default), apart from the general worker's
 * (WORKER_MAX_CONCURRENT_ACTIVITIES, 2 here). Meetings whose embedding is slowed to seconds each are
 * queued first; an upload then goes through fetchMedia and its transcription chunks while that work
 * still waits, and the embedding work is done one at a time.
 */
import { Context } from '@temporalio/activity';
import { silentWav } from '../../support/asr-standin';
import { testEmbedder } from '../../support/embedder';
import { makeMeeting } from '../../support/factory';
import { waitForRun } from '../../support/worker';
import { RecordingRig, startRecordingRig } from '../core/ingest/rig';
import type { TextEmbedder } from '../../../services/core/passages';
import { embeddingTaskQueue, embeddingWorkflowId } from '../../../workflows/contracts';
import { EmbeddingWorkflow } from '../../../workflows/embedding';

/** How long one meeting's embedding activity takes here: the meetings queued below take 4 × this. */
const SLOW_MS = 8000;
const QUEUED = 4;
const EMBEDDING_ACTIVITIES = ['embedMeetingStep', 'embedBackfillStep', 'embedLiveStep'];

let rig: RecordingRig;
let inFlight = 0;
let mostAtOnce = 0;

beforeAll(async () => {
  const real = await testEmbedder();
  // The embedding activities' calls are slowed (an upload's own notes use the embedder at its pace).
  const slow: TextEmbedder = {
    info: real.info,
    embedQuery: (text) => real.embedQuery(text),
    async embedPassages(texts) {
      if (!EMBEDDING_ACTIVITIES.includes(Context.current().info.activityType)) return real.embedPassages(texts);
      mostAtOnce = Math.max(mostAtOnce, ++inFlight);
      try {
        await new Promise((r) => setTimeout(r, SLOW_MS));
        return await real.embedPassages(texts);
      } finally {
        inFlight--;
      }
    },
  };
  rig = await startRecordingRig({
    queue: 'embedding-queue',
    ownerName: 'Elif Embed',
    workerEnv: { WORKER_MAX_CONCURRENT_ACTIVITIES: '2' },
    embedder: slow,
  });
}, 120_000);
afterAll(() => rig?.close());

describe('the embedding task queue', () => {
  it('is the workflows’ queue and -embeddings, served by its own worker', () => {
    expect(embeddingTaskQueue('meeting-intelligence')).toBe('meeting-intelligence-embeddings');
    expect(rig.worker.embeddingWorker.options.taskQueue).toBe(embeddingTaskQueue(rig.worker.taskQueue));
    expect(rig.worker.embeddingWorker.options.tuner.activityTaskSlotSupplier).toEqual({
      type: 'fixed-size',
      numSlots: 1,
    });
  });

  it('lets an upload through while embedding work is queued, and embeds one meeting at a time', async () => {
    const { t, owner, gql, worker, media } = rig;
    const ids: string[] = [];
    for (let i = 0; i < QUEUED; i++) {
      const sentences = [
        { speaker: 'Ana', text: `Meeting ${i}: the warehouse in Denver closes in June.`, start: 0, end: 3 },
        { speaker: 'Bo', text: 'We need two more support engineers.', start: 3, end: 6 },
      ];
      ids.push((await makeMeeting(t.db, { organizer: owner, title: `Queued ${i}`, sentences })).id);
    }
    const embedded = async () =>
      Number((await t.db('meeting_embeddings').whereIn('meeting_id', ids).count().first())!.count);
    const runs = await Promise.all(
      ids.map((id) =>
        gql.temporal.workflow.start(EmbeddingWorkflow, {
          taskQueue: worker.taskQueue,
          workflowId: embeddingWorkflowId(id),
          args: [{ meetingId: id }],
        }),
      ),
    );
    // The first embedding has started: the rest wait in their queue.
    const deadline = Date.now() + 30_000;
    while (inFlight === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(inFlight).toBeGreaterThan(0);

    const url = media.serve('/queued/call.wav', { body: silentWav(9), contentType: 'audio/wav' });
    const id = await rig.upload({ url, title: 'Uploaded during embedding work' });
    expect(await waitForRun(gql.temporal, id, 60_000)).toMatchObject({ status: 'completed' });
    // Completed before the embedding work queued ahead of it was done: it did not wait behind it.
    expect(await embedded()).toBeLessThan(QUEUED);

    expect(await Promise.all(runs.map((r) => r.result()))).toEqual(ids.map(() => 'embedded'));
    expect(await embedded()).toBe(QUEUED);
    expect(mostAtOnce).toBe(1);
  }, 120_000);
});
