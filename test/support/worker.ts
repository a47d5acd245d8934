/**
 * A Temporal worker in the test process, on a task queue of the test file's own, running the real
 * workflows and activities against the test database, with the embedding worker beside it on that
 * queue's embedding task queue, as the worker role runs them. The workflow bundle is built once per test file
 * and shared by every worker the file starts (a restart test starts two).
 */
import type { TextEmbedder } from '../../services/core/passages';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { Client, WorkflowFailedError } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Config } from '../../services/platform/config';
import { installTemporalRuntime } from '../../services/platform/temporal-runtime';
import { bundleWorkflows, connectWorker, createEmbeddingWorker, createWorker } from '../../services/worker/worker';
import { freePort } from '../../services/devstack/ports';
import { BIN } from './cli';
import { testConfig } from './config';

/**
 * The Runtime production installs, logging to the service's logger (silent in tests: a test that
 * expects the SDK's warnings, a retried activity's say, captures them with test/support/logs.ts).
 * Installed on first use, not at import: an installed Runtime holds the process open, so a test file
 * that only imports from here must not get one.
 */
const installRuntime = () => installTemporalRuntime(testConfig({}, 'worker'));

let bundle: Promise<{ code: string }> | undefined;
/** The workflow bundle of this test file (built on first use). */
export const sharedBundle = () => {
  installRuntime();
  return (bundle ??= bundleWorkflows());
};

/**
 * The real worker role (`meeting-intel serve worker`) in a process of its own, ready to poll: what a
 * test kills with SIGKILL. It runs this file's workflow bundle (written to `dir`) on `taskQueue`.
 */
export async function startWorkerProcess(opts: {
  dir: string;
  databaseUrl: string;
  taskQueue: string;
  env?: Record<string, string>;
}): Promise<ChildProcess> {
  const bundlePath = join(opts.dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, (await sharedBundle()).code);
  const c = spawn(BIN, ['serve', 'worker'], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: opts.databaseUrl,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: opts.taskQueue,
      ALLOW_PRIVATE_NETWORK: 'true',
      SECRETS_KEY: '0'.repeat(64),
      HOST: '127.0.0.1',
      WORKER_METRICS_PORT: String(await freePort()),
      MI_WORKFLOW_BUNDLE: bundlePath,
      LOG_LEVEL: 'silent',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  c.stdout!.on('data', (d) => (out += d));
  c.stderr!.on('data', (d) => (out += d));
  const end = Date.now() + 45_000;
  while (!/ready/.test(out)) {
    if (c.exitCode !== null) throw new Error(`the worker exited ${c.exitCode}: ${out}`);
    if (Date.now() > end) throw new Error(`the worker did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return c;
}

export interface TestWorker {
  worker: Worker;
  /** The embedding activities' worker (WORKER_MAX_CONCURRENT_EMBEDDINGS slots). */
  embeddingWorker: Worker;
  config: Config;
  taskQueue: string;
  stageRoot: string;
  /** Resolves when the worker has stopped. */
  running: Promise<void>;
  /** Graceful stop: stop polling, cancel in-flight activities after the grace time, wait. */
  stop(): Promise<void>;
}

export async function startTestWorker(
  db: Knex,
  opts: {
    taskQueue: string;
    env?: Record<string, string>;
    stageRoot?: string;
    graceMs?: number;
    /** Temporal interceptors around the real activities (a test that loses a worker's stage on cue). */
    interceptors?: WorkerOptions['interceptors'];
    /** The embedder the embedding activities use (absent: they embed nothing). */
    embedder?: TextEmbedder;
  },
): Promise<TestWorker> {
  const config = testConfig({ TEMPORAL_TASK_QUEUE: opts.taskQueue, ...opts.env }, 'worker');
  installRuntime();
  const connection: NativeConnection = await connectWorker(config);
  const stageRoot = opts.stageRoot ?? mkdtempSync(join(tmpdir(), 'mi-stage-'));
  const embedder = opts.embedder ?? null;
  const deps = { db, config, connection, embedder: async () => embedder };
  const worker = await createWorker(deps, {
    taskQueue: opts.taskQueue,
    workflowBundle: await sharedBundle(),
    stageRoot,
    // A stopped worker's sticky queue hands its workflows back to the normal queue quickly.
    tuning: {
      stickyQueueScheduleToStartTimeout: '1s',
      shutdownGraceTime: opts.graceMs ?? 200,
      ...(opts.interceptors ? { interceptors: opts.interceptors } : {}),
    },
  });
  const embeddingWorker = await createEmbeddingWorker(deps, {
    taskQueue: opts.taskQueue,
    tuning: { shutdownGraceTime: opts.graceMs ?? 200 },
  });
  const workers = [worker, embeddingWorker];
  // The connection closes once both have stopped; a worker that failed fails `running`.
  const running = Promise.allSettled(workers.map((w) => w.run())).then(async (ends) => {
    await connection.close();
    const failed = ends.find((e) => e.status === 'rejected');
    if (failed) throw failed.reason;
  });
  let stopped: Promise<void> | undefined;
  return {
    worker,
    embeddingWorker,
    config,
    taskQueue: opts.taskQueue,
    stageRoot,
    running,
    stop: () =>
      (stopped ??= (async () => {
        for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
        await running;
        if (!opts.stageRoot) rmSync(stageRoot, { recursive: true, force: true });
      })()),
  };
}

export type RunOutcome = { status: 'completed'; result: any } | { status: 'failed'; message: string };

/** Wait for a meeting's transcription run to close, and say how it ended. */
export async function waitForRun(client: Client, meetingId: string, timeoutMs = 45_000): Promise<RunOutcome> {
  const handle = client.workflow.getHandle(`transcription-${meetingId}`);
  const timer = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`run of ${meetingId} did not close within ${timeoutMs} ms`)), timeoutMs).unref(),
  );
  try {
    return { status: 'completed', result: await Promise.race([handle.result(), timer]) };
  } catch (e) {
    if (e instanceof WorkflowFailedError)
      return { status: 'failed', message: (e.cause as Error | undefined)?.message ?? e.message };
    throw e;
  }
}
