/**
 * The rig of an upload test: a test database with one owner, a media server to fetch recordings from,
 * a speech-server stand-in, the GraphQL role and a worker on the suite's own task queue. One place for
 * what the recording suites set up and tear down alike (the worker gets ASR_URL of the stand-in).
 */
import { AsrStandin, startAsrStandin, type StandinOptions } from '../../../support/asr-standin';
import { makeTeam, makeUser, TestUser } from '../../../support/factory';
import { GraphqlHarness, startGraphql, UPLOAD_AUDIO } from '../../../support/graphql';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { startTestWorker, TestWorker } from '../../../support/worker';
import { MediaServer, startMediaServer } from './media-server';
import type { TextEmbedder } from '../../../../services/core/passages';

export interface RecordingRig {
  t: TestDatabase;
  gql: GraphqlHarness;
  worker: TestWorker;
  media: MediaServer;
  asr: AsrStandin;
  owner: TestUser;
  /** uploadAudio as the owner; the new meeting's id (the call must succeed). */
  upload(input: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function startRecordingRig(opts: {
  queue: string;
  ownerName: string;
  asr?: StandinOptions;
  workerEnv?: Record<string, string>;
  /** Settings of both the GraphQL role and the worker (the speech models, say). */
  env?: Record<string, string>;
  /** The worker's embedder (search by meaning); absent: it embeds nothing. */
  embedder?: TextEmbedder;
}): Promise<RecordingRig> {
  const closers: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) await c();
  };
  try {
    const t = await createTestDatabase();
    closers.push(() => t.drop());
    const owner = await makeUser(t.db, await makeTeam(t.db), { name: opts.ownerName });
    const media = await startMediaServer();
    closers.push(() => media.close());
    const asr = await startAsrStandin(opts.asr);
    closers.push(() => asr.close());
    const taskQueue = testTaskQueue(opts.queue);
    // The GraphQL role knows the worker's engine (it refuses at upload a language the embedded engine
    // cannot serve, and leaves a speech server to hear any language).
    const gql = await startGraphql(t.db, {
      TEMPORAL_TASK_QUEUE: taskQueue,
      ASR_URL: opts.workerEnv?.ASR_URL ?? asr.url,
      ...opts.env,
    });
    closers.push(() => gql.close());
    // The stand-in answers scripted words over synthetic sound: these suites test the speech server's
    // path, so the worker does not diarize unless a suite asks (test/integration/intelligence/diarization does).
    const worker = await startTestWorker(t.db, {
      taskQueue,
      env: { ASR_URL: asr.url, DIARIZATION: 'off', ...opts.env, ...opts.workerEnv },
      embedder: opts.embedder,
    });
    closers.push(() => worker.stop());
    const upload = async (input: Record<string, unknown>) => {
      const res = await gql.request(owner.key, UPLOAD_AUDIO, { input });
      expect(res.body.errors).toBeUndefined();
      return res.body.data.uploadAudio.meetingId as string;
    };
    return { t, gql, worker, media, asr, owner, upload, close };
  } catch (e) {
    await close();
    throw e;
  }
}
