/**
 * WebhookDeliveryWorkflow: one delivery of one event to one target. Started by the
 * transcription's post-processing (workflow id `webhook-<meetingId>-<target>`, parent-close ABANDON)
 * and by redeliverWebhook (same workflow id, a new run).
 *
 * The retry schedule (WEBHOOK_RETRY_SCHEDULE, default 0s,5s,5m,30m,2h,5h,10h,10h) is a sequence of
 * durable timers between single-attempt local activities: a worker restarted during a 10-hour wait
 * changes nothing, and each attempt is one POST with one ledger row. Each delay gets up to 10% jitter;
 * a receiver's Retry-After lengthens the next delay (never beyond the schedule's longest delay). A 2xx
 * ends the delivery `delivered`, a 410 ends it `disabled`, and the last failure leaves it `failed`.
 *
 * Deterministic: timers, activity results and the workflow's seeded Math.random / uuid4 only.
 */
import { isCancellation, log, proxyActivities, proxyLocalActivities, sleep, uuid4 } from '@temporalio/workflow';
import type {
  AttemptOutcome,
  WebhookActivities,
  WebhookDeliveryInput,
  WebhookDeliveryResult,
} from './activities/webhooks';
import { failureMessage } from './contracts';

export type { WebhookDeliveryInput, WebhookDeliveryResult } from './activities/webhooks';

/** Up to 10% more than `ms` (none for an immediate attempt). */
export function withJitter(ms: number, random: () => number = Math.random): number {
  return ms > 0 ? Math.round(ms * (1 + 0.1 * random())) : 0;
}

/** How long to wait before attempt `i`: its scheduled delay, or longer when the receiver asked (capped). */
export function delayBefore(
  i: number,
  scheduleMs: number[],
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number {
  const planned = withJitter(scheduleMs[i] ?? 0, random);
  if (i === 0 || retryAfterMs === null) return planned;
  const cap = Math.max(0, ...scheduleMs);
  return Math.max(planned, Math.min(retryAfterMs, cap));
}

const messageOf = (e: unknown) => failureMessage(e, 'unknown failure');

export async function WebhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const { deliveryId, scheduleMs } = input;
  // One POST per attempt: the HTTP exchange is bounded by WEBHOOK_TIMEOUT inside it; the margin is for
  // the ledger write. Never retried by Temporal: a lost attempt is recorded and the schedule goes on. A
  // local activity: it runs inside the workflow task, so a delivery costs the Temporal server one
  // workflow task instead of two plus an activity task, so one worker delivers more a second
  // (services/platform/README.md, "Worker"). A worker stopping mid-attempt finishes it first; a worker
  // that dies mid-attempt leaves it to be run again by the next worker (same attempt id and delivery
  // id: recorded once).
  const { attemptWebhookDelivery } = proxyLocalActivities<Pick<WebhookActivities, 'attemptWebhookDelivery'>>({
    startToCloseTimeout: input.timeoutMs + 30_000,
    retry: { maximumAttempts: 1 },
  });
  // A ledger write only; retried until the database answers.
  const { recordLostWebhookAttempt } = proxyActivities<Pick<WebhookActivities, 'recordLostWebhookAttempt'>>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 100 },
  });

  const attempts = Math.max(1, scheduleMs.length);
  let retryAfterMs: number | null = null;
  let last: AttemptOutcome | undefined;
  for (let i = 0; i < attempts; i++) {
    const wait = delayBefore(i, scheduleMs, retryAfterMs);
    if (wait > 0) await sleep(wait);
    const attemptId = uuid4();
    const final = i === attempts - 1;
    try {
      last = await attemptWebhookDelivery({ deliveryId, attemptId, final, redelivery: input.redelivery });
    } catch (e) {
      if (isCancellation(e)) throw e;
      const error = messageOf(e);
      log.warn('webhook attempt did not complete', { deliveryId, attempt: i + 1, error });
      last = await recordLostWebhookAttempt({ deliveryId, attemptId, final, error });
    }
    if (last.done) return { deliveryId, status: last.status, attempts: i + 1 };
    retryAfterMs = last.retryAfterMs;
  }
  return { deliveryId, status: last?.status ?? 'failed', attempts };
}
