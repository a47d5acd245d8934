import type { Server } from 'node:http';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { closeServers, createBaseApp, listen, serverUrl } from '../platform/http';
import { logger } from '../platform/logger';
import { runRoleMain, RunningRole } from '../platform/role';
import { createRuntime, Runtime } from '../platform/runtime';
import type { Config } from '../platform/config';
import { installTemporalRuntime } from '../platform/temporal-runtime';
import { requireSchema } from '../platform/schema';
import { DEFAULT_STAGE_ROOT, sweepStages } from '../../workflows/activities/stage';
import { requireFfmpeg } from '../../workflows/activities/media';
import {
  ensureEmbeddingBackfill,
  ensureLanguageReindex,
  ensureLiveEmbeddingSchedule,
  ensureRetentionSchedule,
  ensureWebhookEvents,
} from '../../workflows/client';
import { ensureModelIndex, startMeaningSearch, type TextEmbedder } from '../core/passages';
import { connectWorker, createEmbeddingWorker, createWorker } from './worker';
import { reindexWaiting } from '../core/languages';
import { loadSpeechEngine } from './speech';

/**
 * What keeps every meeting searchable by meaning: the model's index (built in the background where
 * vectors exist already), the backfill of the meetings the model has not embedded, and the schedule
 * that embeds live meetings' new sentences.
 */
async function startEmbedding(rt: Runtime, taskQueue: string, embedder: TextEmbedder): Promise<void> {
  void ensureModelIndex(rt.db, embedder.info).then(
    (index) => logger.info({ model: embedder.info.name, index }, 'passage vector index ready'),
    (err) =>
      logger.warn({ err, model: embedder.info.name }, 'the passage vector index could not be built; questions scan'),
  );
  const backfill = await ensureEmbeddingBackfill(rt.temporal, taskQueue, embedder.info.name);
  const live = await ensureLiveEmbeddingSchedule(rt.temporal, taskQueue);
  logger.info({ model: embedder.info.name, backfill, live }, 'embedding backfill and live schedule ready');
}

/**
 * The worker role: a Temporal worker on TEMPORAL_TASK_QUEUE and, in a general worker, the embedding
 * worker on its embedding task queue (services/worker/worker.ts), plus /healthz, /readyz and /metrics
 * on WORKER_METRICS_PORT. Shutdown: the workers stop polling and let in-flight activities finish (up to
 * SHUTDOWN_GRACE_MS), then the HTTP server and the pools close.
 */
export async function startWorkerRole(
  config: Config,
  shared?: Runtime,
): Promise<RunningRole & { url: string; server: Server; worker: Worker }> {
  const rt = shared ?? createRuntime(config);
  let connection: NativeConnection | undefined;
  let worker: Worker;
  let embeddingWorker: Worker | undefined;
  try {
    // What the machine itself lacks is named first, before anything is asked of the network.
    // Audio and video go through ffmpeg: without it the worker does not start (the message names the Debian package).
    requireFfmpeg();
    const speechOnly = config.workerKind === 'speech';
    // A worker that recognises speech loads its models first: a missing or altered file stops it here.
    if (speechOnly || config.temporal.speechTaskQueue === config.temporal.taskQueue) await loadSpeechEngine(config);
    // A schema this release does not run on: refuse before taking any task.
    await requireSchema(rt.db);
    // The SDK's Runtime logs to our logger; whoever starts the role in-process (serve all, a test) gets it
    // too. Installed only now, just before its first native object: the SDK shuts a Runtime down when its
    // last worker or connection closes, and one that never had any would keep the process alive.
    installTemporalRuntime(config);
    connection = await connectWorker(config);
    const taskQueue = speechOnly ? config.temporal.speechTaskQueue : config.temporal.taskQueue;
    // Search by meaning: the model and the vector store (a speech worker embeds nothing).
    const meaning = speechOnly ? null : await startMeaningSearch(rt.db, config, logger);
    const embedder = meaning?.reason === null ? meaning.embedder : null;
    const deps = { db: rt.db, config, connection, embedder: async () => embedder };
    worker = await createWorker(deps, { taskQueue });
    // Always beside a general worker, model or not: without one, the embedding activities it answers
    // ('no-embedder') would wait in their queue for ever.
    if (!speechOnly) embeddingWorker = await createEmbeddingWorker(deps, { taskQueue });
    if (!speechOnly) {
      // The daily retention run (RetentionWorkflow): created or brought up to date at every start.
      const schedule = await ensureRetentionSchedule(rt.temporal, config.temporal.taskQueue, config.retentionSchedule);
      logger.info({ schedule, cron: config.retentionSchedule }, 'retention schedule ready');
      // The life events' webhooks (meeting.deleted, transcript.updated, ...): their dispatcher.
      const events = await ensureWebhookEvents(rt.temporal, config.temporal.taskQueue);
      logger.info({ events }, 'webhook events dispatcher ready');
      if (embedder) await startEmbedding(rt, config.temporal.taskQueue, embedder);
      // Meetings waiting for their language's index (an upgrade from 0.1.0): the re-index, one per task queue.
      if (await reindexWaiting(rt.db)) {
        const reindex = await ensureLanguageReindex(rt.temporal, config.temporal.taskQueue);
        logger.info({ reindex }, "re-index of meetings waiting for their language's index");
      }
    }
  } catch (e) {
    // Nothing may stay open behind a role that did not start.
    await connection?.close();
    if (!shared) await rt.close();
    throw e;
  }
  void sweepStages(DEFAULT_STAGE_ROOT).then((n) => n && logger.info({ removed: n }, 'removed stale pipeline stages'));

  let stopping = false;
  const workers = embeddingWorker ? [worker, embeddingWorker] : [worker];
  const running = Promise.all(
    workers.map((w) =>
      w.run().catch((e) => {
        logger.fatal({ err: e, taskQueue: w.options.taskQueue }, 'temporal worker stopped unexpectedly');
        // A pod whose worker died must restart rather than report healthy while doing nothing.
        if (!stopping) process.exit(1);
      }),
    ),
  );

  const app = createBaseApp([
    ...rt.checks,
    {
      name: 'worker',
      check: async () => {
        for (const w of workers) {
          const state = w.getState();
          if (state !== 'RUNNING') throw new Error(`worker of ${w.options.taskQueue} is ${state}`);
        }
      },
    },
  ]);
  const server = await listen(app, config.workerMetricsPort, config.host);
  return {
    server,
    worker,
    url: `${serverUrl(server, config.host === '0.0.0.0' ? 'localhost' : config.host)}/metrics`,
    close: async () => {
      stopping = true;
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await running;
      await closeServers([server], config.shutdownGraceMs);
      await connection!.close();
      if (!shared) await rt.close();
    },
  };
}

if (require.main === module) {
  runRoleMain('worker', (config) => {
    // Before any worker exists: our shutdown owns the signals, not the SDK's runtime.
    installTemporalRuntime(config);
    return startWorkerRole(config);
  });
}
