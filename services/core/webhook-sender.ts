/**
 * One webhook attempt (DESIGN flow 3), called by the worker's single-attempt activity: resolve where
 * the delivery goes and with which secret NOW (a saved URL or secret changed since the delivery was
 * made is honoured; a cleared, disabled or secret-less saved endpoint stops the delivery as `skipped`),
 * sign the exact stored bytes, POST them through the SSRF guard (services/net: public addresses only
 * unless ALLOW_PRIVATE_NETWORK, DNS pinned, no redirect followed, WEBHOOK_TIMEOUT for the whole
 * exchange, the receiver's body read up to 4 KiB and dropped), and record the attempt in the ledger.
 *
 * Outcomes: a 2xx is `delivered`; a 410 is `disabled` (no more attempts, and a saved endpoint is
 * disabled until its URL is saved again); anything else (another status, a redirect, a timeout, a
 * refused or failed connection) is retried on the schedule, and the last failure leaves `failed`.
 * A receiver's Retry-After (seconds or an HTTP date) is returned for the workflow to honour.
 *
 * Attempts are recorded idempotently by the attempt id the workflow chose, and numbered under the
 * delivery's row lock, so a lost activity completion never counts an attempt twice.
 */
import type { Knex } from 'knex';
import { audit } from './audit';
import { signingSecrets } from './webhook-secrets';
import { webhookHeaders, type SigningSecrets } from './webhook-signing';
import { DeliveryStatus, endpointBlocker, teamEndpoint, userEndpoint, WebhookTarget } from './webhooks';
import { NetError, safeFetch } from '../net';
import type { Config } from '../platform/config';
import { logger } from '../platform/logger';
import { webhookAttempts, webhookDeliveries, webhookReadyToDelivered } from '../platform/metrics';

/** The receiver's answer is read up to this many bytes, then dropped. */
export const RESPONSE_BODY_CAP_BYTES = 4096;
/** A Retry-After is never taken beyond this (the workflow caps it further, to the schedule's longest delay). */
export const RETRY_AFTER_MAX_MS = 24 * 3_600_000;
const ERROR_MAX = 500;

export type AttemptResult = '2xx' | '3xx' | '4xx' | '5xx' | 'error' | 'timeout';

export interface AttemptInput {
  deliveryId: string;
  /** Chosen by the workflow (deterministically): the attempt's row id, so recording it is idempotent. */
  attemptId: string;
  /** The last attempt of the schedule: a failure leaves the delivery `failed`. */
  final: boolean;
  /** A redelivery (not counted in webhook_ready_to_delivered_seconds). */
  redelivery?: boolean;
}

export interface LostAttemptInput {
  deliveryId: string;
  attemptId: string;
  final: boolean;
  /** Why the attempt's activity did not complete (worker lost, timeout). */
  error: string;
}

export interface AttemptOutcome {
  /** The delivery's status after this attempt. */
  status: DeliveryStatus;
  /** No more attempts: delivered, disabled (410), skipped, or failed on the last attempt. */
  done: boolean;
  attemptNo: number | null;
  statusCode: number | null;
  /** The receiver's Retry-After, in milliseconds from now, when it sent one with a failure. */
  retryAfterMs: number | null;
  error: string | null;
}

export interface SendResult {
  statusCode: number | null;
  latencyMs: number;
  result: AttemptResult;
  error: string | null;
  retryAfterMs: number | null;
}

export interface SenderDeps {
  db: Knex;
  config: Pick<Config, 'secretsKey' | 'webhook' | 'allowPrivateNetwork'>;
}

/** Retry-After as milliseconds from `now`: delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(raw: string | string[] | undefined, now = Date.now()): number | null {
  const v = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!v) return null;
  if (/^\d+$/.test(v)) return Math.min(Number(v) * 1000, RETRY_AFTER_MAX_MS);
  if (!/[A-Za-z]/.test(v)) return null;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now), RETRY_AFTER_MAX_MS);
}

const clip = (s: string) => [...s].slice(0, ERROR_MAX).join('');

/** POST the signed bytes once through the SSRF guard; never throws. */
export async function sendWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; allowPrivateNetwork: boolean; signal?: AbortSignal },
): Promise<SendResult> {
  const started = process.hrtime.bigint();
  const elapsed = () => Math.round(Number(process.hrtime.bigint() - started) / 1e6);
  try {
    const res = await safeFetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body, 'utf8')) },
      body,
      maxBytes: RESPONSE_BODY_CAP_BYTES,
      onOversize: 'truncate',
      timeoutMs: opts.timeoutMs,
      allowPrivateNetwork: opts.allowPrivateNetwork,
      maxRedirects: 0,
      throwOnHttpError: false,
      field: 'webhook',
      signal: opts.signal,
    });
    const latencyMs = elapsed();
    const code = res.status;
    const result: AttemptResult = code >= 200 && code < 300 ? '2xx' : code >= 300 && code < 400 ? '3xx' : code < 500 ? '4xx' : '5xx';
    if (result === '2xx') return { statusCode: code, latencyMs, result, error: null, retryAfterMs: null };
    const note = result === '3xx' ? ' (redirects are not followed: save the final URL)' : code === 410 ? ' Gone' : '';
    return { statusCode: code, latencyMs, result, error: `receiver answered ${code}${note}`, retryAfterMs: parseRetryAfter(res.headers['retry-after']) };
  } catch (e) {
    const latencyMs = elapsed();
    if (e instanceof NetError) {
      return { statusCode: null, latencyMs, result: e.details.rule === 'timeout' ? 'timeout' : 'error', error: clip(e.message), retryAfterMs: null };
    }
    logger.warn({ err: e }, 'webhook send failed unexpectedly');
    return { statusCode: null, latencyMs, result: 'error', error: clip(`webhook: could not send (${(e as Error).message})`), retryAfterMs: null };
  }
}

interface DeliveryRow {
  id: string;
  team_id: string;
  user_id: string | null;
  target: WebhookTarget;
  url: string;
  payload: string;
  status: DeliveryStatus;
  attempts_count: number;
  ready_at: Date;
  delivered_at: Date | null;
}

type Destination = { url: string; secrets?: SigningSecrets; endpointId: string | null } | { skip: string };

/** Where the delivery goes now, signed with what; or why it cannot be sent. */
async function destination(deps: SenderDeps, d: DeliveryRow): Promise<Destination> {
  const key = deps.config.secretsKey;
  if (d.target === 'upload') {
    // The upload's own URL; signed with the uploader's saved secret when there is one.
    const ep = d.user_id ? await userEndpoint(deps.db, d.user_id) : undefined;
    return { url: d.url, secrets: signingSecrets(key, ep), endpointId: null };
  }
  const ep = d.target === 'team' ? await teamEndpoint(deps.db, d.team_id) : d.user_id ? await userEndpoint(deps.db, d.user_id) : undefined;
  if (!ep) return { skip: 'the saved webhook no longer exists' };
  const tier = d.target === 'team' ? ((await deps.db('teams').where({ id: d.team_id }).first('tier'))?.tier as string | undefined) : undefined;
  const blocker = endpointBlocker(ep, d.target === 'team' ? 'team' : 'user', tier);
  if (blocker) return { skip: blocker };
  const secrets = signingSecrets(key, ep);
  return { url: ep.url!, secrets, endpointId: ep.id };
}

const outcomeOf = (status: DeliveryStatus, extra: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
  status,
  done: status !== 'pending',
  attemptNo: null,
  statusCode: null,
  retryAfterMs: null,
  error: null,
  ...extra,
});

/** End a delivery without an HTTP attempt (nothing could be sent). */
async function skip(db: Knex, d: DeliveryRow, reason: string): Promise<AttemptOutcome> {
  await db('webhook_deliveries').where({ id: d.id }).update({ status: 'skipped', last_error: clip(reason) });
  webhookDeliveries.inc({ outcome: 'skipped' });
  return outcomeOf('skipped', { error: reason });
}

interface Recording {
  deliveryId: string;
  attemptId: string;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
  /** The delivery's status after this attempt ('pending' while retries remain). */
  status: DeliveryStatus;
  url: string;
  /** A saved endpoint to disable (410). */
  disableEndpointId?: string | null;
}

/**
 * Record one attempt and the delivery's new state, under the delivery's row lock. Returns null when
 * the delivery is gone; `duplicate` when this attempt id was recorded before (a lost completion).
 */
async function recordAttempt(db: Knex, r: Recording): Promise<{ attemptNo: number; firstDelivery: boolean; duplicate: boolean; status: DeliveryStatus } | null> {
  return db.transaction(async (tx) => {
    const row = await tx('webhook_deliveries').where({ id: r.deliveryId }).forUpdate().first('id', 'team_id', 'status', 'delivered_at');
    if (!row) return null;
    // Numbered under the row lock; an attempt id recorded before (a lost completion) is not recorded twice.
    const inserted: { attempt_no: number }[] = await tx
      .insert(
        tx('webhook_attempts')
          .where({ delivery_id: r.deliveryId })
          .select(
            tx.raw('?::text', [r.attemptId]),
            tx.raw('?::text', [r.deliveryId]),
            tx.raw('coalesce(max(attempt_no), 0) + 1'),
            tx.raw('?::int', [r.statusCode]),
            tx.raw('?::int', [r.latencyMs]),
            tx.raw('?::text', [r.error === null ? null : clip(r.error)]),
          ),
      )
      .into(tx.raw('webhook_attempts (id, delivery_id, attempt_no, status_code, latency_ms, error)'))
      .onConflict('id')
      .ignore()
      .returning('attempt_no');
    if (!inserted.length) {
      const prior = await tx('webhook_attempts').where({ id: r.attemptId }).first('attempt_no');
      return { attemptNo: prior.attempt_no, firstDelivery: false, duplicate: true, status: row.status };
    }
    const attemptNo = inserted[0].attempt_no;
    const update: Record<string, unknown> = { attempts_count: tx.raw('attempts_count + 1'), url: r.url, last_error: r.error === null ? null : clip(r.error) };
    if (r.status !== 'pending') update.status = r.status;
    if (r.status === 'delivered') update.delivered_at = tx.fn.now();
    await tx('webhook_deliveries').where({ id: r.deliveryId }).update(update);
    if (r.status === 'disabled' && r.disableEndpointId) {
      // Only the URL that answered 410 is disabled: a URL saved since then stays enabled.
      const disabled = await tx('webhook_endpoints')
        .where({ id: r.disableEndpointId, url: r.url })
        .whereNull('disabled_at')
        .update({ disabled_at: tx.fn.now(), disabled_reason: `the receiver answered 410 Gone to delivery ${r.deliveryId}`, updated_at: tx.fn.now() });
      if (disabled) {
        await audit(tx, null, 'webhook.endpoint_disabled', { type: 'webhook_endpoint', id: r.disableEndpointId, teamId: row.team_id }, { delivery_id: r.deliveryId, status: 410 });
      }
    }
    return { attemptNo, firstDelivery: r.status === 'delivered' && !row.delivered_at, duplicate: false, status: r.status };
  });
}

/** One attempt of a delivery: send, record, and say whether the delivery is done. */
export async function attemptDelivery(deps: SenderDeps, input: AttemptInput, signal?: AbortSignal): Promise<AttemptOutcome> {
  const { db, config } = deps;
  const d: DeliveryRow | undefined = await db('webhook_deliveries').where({ id: input.deliveryId }).first();
  if (!d) return outcomeOf('skipped', { error: 'the delivery no longer exists (its meeting was deleted)' });

  const to = await destination(deps, d);
  if ('skip' in to) return skip(db, d, to.skip);

  const attemptNo = d.attempts_count + 1;
  const headers = webhookHeaders({ deliveryId: d.id, attemptNo, timestamp: Math.floor(Date.now() / 1000), body: d.payload, secrets: to.secrets });
  const sent = await sendWebhook(to.url, d.payload, headers, { timeoutMs: config.webhook.timeoutMs, allowPrivateNetwork: config.allowPrivateNetwork, signal });

  let status: DeliveryStatus = 'pending';
  let error = sent.error;
  if (sent.result === '2xx') status = 'delivered';
  else if (sent.statusCode === 410) {
    status = 'disabled';
    error = `receiver answered 410 Gone: no more attempts${to.endpointId ? '; the saved endpoint was disabled until its URL is saved again' : ''}`;
  } else if (input.final) status = 'failed';

  const rec = await recordAttempt(db, {
    deliveryId: d.id,
    attemptId: input.attemptId,
    statusCode: sent.statusCode,
    latencyMs: sent.latencyMs,
    error,
    status,
    url: to.url,
    disableEndpointId: to.endpointId,
  });
  if (!rec) return outcomeOf('skipped', { error: 'the delivery no longer exists (its meeting was deleted)' });
  if (rec.duplicate) return outcomeOf(rec.status, { attemptNo: rec.attemptNo });

  webhookAttempts.inc({ result: sent.result });
  if (status !== 'pending') webhookDeliveries.inc({ outcome: status });
  if (rec.firstDelivery && !input.redelivery) webhookReadyToDelivered.observe((Date.now() - new Date(d.ready_at).getTime()) / 1000);
  if (status === 'failed' || status === 'disabled') logger.warn({ deliveryId: d.id, target: d.target, status, error }, 'webhook delivery ended without success');
  return outcomeOf(status, { attemptNo: rec.attemptNo, statusCode: sent.statusCode, retryAfterMs: status === 'pending' ? sent.retryAfterMs : null, error });
}

/**
 * An attempt whose activity never completed (its worker was lost, or it timed out): recorded as a
 * failed attempt, unless it was recorded after all, in which case its outcome stands.
 */
export async function recordLostAttempt(deps: SenderDeps, input: LostAttemptInput): Promise<AttemptOutcome> {
  const d = await deps.db('webhook_deliveries').where({ id: input.deliveryId }).first('id', 'url', 'status', 'target');
  if (!d) return outcomeOf('skipped', { error: 'the delivery no longer exists (its meeting was deleted)' });
  const prior = await deps.db('webhook_attempts').where({ id: input.attemptId }).first('attempt_no', 'status_code', 'error');
  if (prior) {
    // The attempt got through to the ledger; its outcome holds (a final failure still ends the delivery).
    if (d.status === 'pending' && input.final) {
      await deps.db('webhook_deliveries').where({ id: d.id, status: 'pending' }).update({ status: 'failed' });
      webhookDeliveries.inc({ outcome: 'failed' });
      return outcomeOf('failed', { attemptNo: prior.attempt_no, statusCode: prior.status_code, error: prior.error });
    }
    return outcomeOf(d.status, { attemptNo: prior.attempt_no, statusCode: prior.status_code, error: prior.error });
  }
  const error = `the attempt did not complete: ${input.error}`;
  const status: DeliveryStatus = input.final ? 'failed' : 'pending';
  const rec = await recordAttempt(deps.db, { deliveryId: d.id, attemptId: input.attemptId, statusCode: null, latencyMs: null, error, status, url: d.url });
  if (!rec) return outcomeOf('skipped', { error: 'the delivery no longer exists (its meeting was deleted)' });
  if (!rec.duplicate) {
    webhookAttempts.inc({ result: 'error' });
    if (status === 'failed') webhookDeliveries.inc({ outcome: 'failed' });
  }
  return outcomeOf(rec.status, { attemptNo: rec.attemptNo, error });
}
