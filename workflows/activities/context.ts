/**
 * What every transcription activity shares: its dependencies, a heartbeat while it works, the stage
 * metric, and the translation of errors into Temporal failures whose type decides retrying and whose
 * message is what a person reads in failure_reason.
 */
import { ModelFileError } from '../../services/intelligence/asr/models';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import { isServiceError } from '../../services/platform/errors';
import { NetError } from '../../services/net/errors';
import type { Config } from '../../services/platform/config';
import { logger } from '../../services/platform/logger';
import { pipelineStage } from '../../services/platform/metrics';
import { DEFAULT_STAGE_ROOT, Stage } from './stage';
import { FAILURE } from '../contracts';
import type { TextEmbedder } from '../../services/core/passages';

export interface ActivityDeps {
  db: Knex;
  config: Config;
  /** The embedder for search by meaning, loaded on first use; absent or null where no model is configured. */
  embedder?: () => Promise<TextEmbedder | null>;
  /** Where stages live (default: the OS temp directory). A volume shared by the worker pods saves re-derivation. */
  stageRoot?: string;
}

export const stageOf = (deps: ActivityDeps, meetingId: string) =>
  new Stage(deps.stageRoot ?? DEFAULT_STAGE_ROOT, meetingId);

/** Inside an activity: the cancellation signal (worker shutdown, timeout, cancelled run); else none. */
export function activitySignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined; // called outside an activity (the benchmark's plain loop)
  }
}

/** Inside an activity: the workflow run it belongs to (a retried attempt has the same); else null. */
export function workflowRun(): string | null {
  try {
    return Context.current().info.workflowExecution?.runId ?? null;
  } catch {
    return null;
  }
}

export function attempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1;
  }
}

/**
 * Heartbeat every 5 s from a timer while `work` runs (a long download or ASR request included), so a
 * killed worker is noticed within the 20 s heartbeatTimeout of workflows/*.ts and its step retried.
 */
async function withHeartbeat<T>(work: () => Promise<T>): Promise<T> {
  let ctx: Context | undefined;
  try {
    ctx = Context.current();
  } catch {
    return work();
  }
  ctx.heartbeat();
  const timer = setInterval(() => ctx!.heartbeat(), 5_000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** The Temporal failure for an error: bad input is never retried; our own failures are, and say little. */
export function toFailure(stage: string, e: unknown): ApplicationFailure {
  if (e instanceof ApplicationFailure) return e;
  if (e instanceof NetError) {
    return e.retryable
      ? ApplicationFailure.retryable(e.message, 'RetryableNetError')
      : ApplicationFailure.nonRetryable(e.message, 'NonRetryableNetError');
  }
  // A missing or altered model file: no retry mends it; the message names the file and `make models`.
  if (e instanceof ModelFileError) return ApplicationFailure.nonRetryable(e.message, FAILURE.badInput);
  if (isServiceError(e)) {
    if (e.code === 'object_not_found') return ApplicationFailure.nonRetryable(e.message, FAILURE.meetingGone);
    if (e.code !== 'internal_error' && e.code !== 'invariant_violation')
      return ApplicationFailure.nonRetryable(e.message, FAILURE.badInput);
  }
  // Database, file system or programming errors: retried; the details go to the log, not to the meeting.
  logger.error({ err: e, stage }, 'transcription step failed');
  return ApplicationFailure.retryable(
    `${stage} failed on the server side; it was logged and retried`,
    FAILURE.internal,
  );
}

export const badInput = (message: string) => ApplicationFailure.nonRetryable(message, FAILURE.badInput);

/** Run one pipeline step: heartbeat, time it into pipeline_stage_duration_seconds, translate its errors. */
export async function runStep<T>(stage: string, work: () => Promise<T>): Promise<T> {
  const started = process.hrtime.bigint();
  let outcome = 'ok';
  try {
    return await withHeartbeat(work);
  } catch (e) {
    const failure = toFailure(stage, e);
    outcome = failure.nonRetryable ? 'failed' : 'retry';
    throw failure;
  } finally {
    pipelineStage.observe({ stage, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
  }
}
