/**
 * The Temporal worker: every workflow of workflows/ and the activities bound to the database and
 * config, on one task queue; beside it, the embedding worker (createEmbeddingWorker) on that queue's
 * embedding task queue. Workflow code is bundled from source at start, or loaded from a prebuilt
 * bundle when MI_WORKFLOW_BUNDLE names one (the container image ships it, so pods start fast and never
 * run the bundler in production).
 */
import type { TextEmbedder } from '../core/passages';
import { existsSync } from 'node:fs';
import { bundleWorkflowCode, NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import type { Knex } from 'knex';
import type { Config } from '../platform/config';
import { logger } from '../platform/logger';
import { temporalConnectionOptions } from '../platform/temporal';
import { createActivities } from '../../workflows/activities';
import { createEmbeddingActivities } from '../../workflows/activities/embeddings';
import { embeddingTaskQueue } from '../../workflows/contracts';

export interface WorkerDeps {
  db: Knex;
  config: Config;
  connection: NativeConnection;
  /** The embedder for search by meaning, loaded on first use (absent: the embedding activities do nothing). */
  embedder?: () => Promise<TextEmbedder | null>;
}

export interface CreateWorkerOptions {
  taskQueue: string;
  /** A bundle to reuse (tests start several workers; bundling once saves seconds). */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Stage directory of the activities (default: the OS temp directory). */
  stageRoot?: string;
  /** Anything else of Temporal's WorkerOptions (tests shorten the sticky queue timeout). */
  tuning?: Partial<
    Pick<
      WorkerOptions,
      | 'stickyQueueScheduleToStartTimeout'
      | 'maxConcurrentActivityTaskExecutions'
      | 'maxConcurrentWorkflowTaskExecutions'
      | 'maxCachedWorkflows'
      | 'shutdownGraceTime'
      | 'identity'
      | 'interceptors'
    >
  >;
}

/** Where the workflow source lives: workflows/index.ts from source, workflows/index.js in the build. */
export const WORKFLOWS_PATH = require.resolve('../../workflows');

/** The worker's own (native) connection, with the same address and TLS as the API pods' client. */
export function connectWorker(config: Config): Promise<NativeConnection> {
  const { address, tls } = temporalConnectionOptions(config);
  return NativeConnection.connect({ address, tls });
}

function bundleOption(
  opts: CreateWorkerOptions,
  env: NodeJS.ProcessEnv,
): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  if (opts.workflowBundle) return { workflowBundle: opts.workflowBundle };
  const prebuilt = env.MI_WORKFLOW_BUNDLE;
  if (prebuilt) {
    if (!existsSync(prebuilt)) throw new Error(`MI_WORKFLOW_BUNDLE points at ${prebuilt}, which does not exist`);
    logger.info({ workflowBundle: prebuilt }, 'loading the prebuilt workflow bundle');
    return { workflowBundle: { codePath: prebuilt } };
  }
  logger.info(
    { workflowsPath: WORKFLOWS_PATH },
    'bundling workflow code at start (set MI_WORKFLOW_BUNDLE to a prebuilt bundle to skip this)',
  );
  return { workflowsPath: WORKFLOWS_PATH };
}

/** Bundle the workflow code once (for tests and for building the image's bundle). */
export async function bundleWorkflows(): Promise<{ code: string }> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietBundlerLogger });
  return { code };
}

const noop = () => {};
const quietBundlerLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop } as never;

export async function createWorker(
  deps: WorkerDeps,
  opts: CreateWorkerOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Worker> {
  const activities = createActivities({
    db: deps.db,
    config: deps.config,
    stageRoot: opts.stageRoot,
    embedder: deps.embedder,
  });
  // A speech worker runs the chunks of speech recognition alone: no workflows, no other activity.
  const speech = deps.config.workerKind === 'speech';
  return Worker.create({
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    taskQueue: opts.taskQueue,
    ...(speech ? {} : bundleOption(opts, env)),
    activities: speech ? { transcribeChunk: activities.transcribeChunk } : activities,
    // In-flight activities get this long to finish on SIGTERM; the rest fail over to another worker.
    shutdownGraceTime: deps.config.shutdownGraceMs,
    // Temporal's defaults (100 activities) let one pod take more work than its memory holds; the rest
    // of the queue waits for this pod's free slots or another pod.
    maxConcurrentActivityTaskExecutions: deps.config.workerConcurrency.maxActivities,
    maxConcurrentWorkflowTaskExecutions: deps.config.workerConcurrency.maxWorkflowTasks,
    // Most of this service's workflows finish in their first workflow task (a webhook delivery, a rule
    // run), and first tasks come from the normal queue, not the sticky one: Temporal's default gives the
    // normal queue 2 of 10 pollers; half of them delivers more (services/platform/README.md, "Worker").
    nonStickyToStickyPollRatio: 1,
    ...opts.tuning,
  });
}

/**
 * The embedding worker: the embedding activities alone (workflows/activities/embeddings.ts) on the
 * embedding task queue of `opts.taskQueue`, with WORKER_MAX_CONCURRENT_EMBEDDINGS slots. The process
 * has one embedder, so embedding activities beyond those slots wait in Temporal's queue, not in the
 * general worker's slots, where an upload's fetchMedia and transcription chunks would wait behind
 * them. No workflows: the embedding workflows run on the general queue.
 */
export function createEmbeddingWorker(
  deps: WorkerDeps,
  opts: Pick<CreateWorkerOptions, 'taskQueue' | 'tuning'>,
): Promise<Worker> {
  const { embedMeetingStep, embedBackfillStep, embedLiveStep } = createEmbeddingActivities({
    db: deps.db,
    config: deps.config,
    embedder: deps.embedder,
  });
  return Worker.create({
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    taskQueue: embeddingTaskQueue(opts.taskQueue),
    activities: { embedMeetingStep, embedBackfillStep, embedLiveStep },
    shutdownGraceTime: deps.config.shutdownGraceMs,
    maxConcurrentActivityTaskExecutions: deps.config.workerConcurrency.maxEmbeddings,
    ...opts.tuning,
  });
}
