/**
 * One webhook attempt (docs/webhooks.md, "Retries"), called by the worker's single-attempt activity: resolve where
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
import { audit } from '../audit';
import { signingSecrets } from './secrets';
import { webhookHeaders, type SigningSecrets } from './signing';
import { endpointBlocker } from './deliveries';
import { isV2Event } from './events';
import type { EndpointRow } from './settings';
import type { DeliveryStatus, WebhookTarget } from './types';
import { NetError, safeFetch } from '../../net';
import type { Config } from '../../platform/config';
import { logger } from '../../platform/logger';
import { webhookAttempts, webhookDeliveries, webhookReadyToDelivered } from '../../platform/metrics';

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
      keepAlive: true,
      field: 'webhook',
      signal: opts.signal,
    });
    const latencyMs = elapsed();
    const code = res.status;
    const result: AttemptResult =
      code >= 200 && code < 300 ? '2xx' : code >= 300 && code < 400 ? '3xx' : code < 500 ? '4xx' : '5xx';
    if (result === '2xx') return { statusCode: code, latencyMs, result, error: null, retryAfterMs: null };
    const note = result === '3xx' ? ' (redirects are not followed: save the final URL)' : code === 410 ? ' Gone' : '';
    return {
      statusCode: code,
      latencyMs,
      result,
      error: `receiver answered ${code}${note}`,
      retryAfterMs: parseRetryAfter(res.headers['retry-after']),
    };
  } catch (e) {
    const latencyMs = elapsed();
    if (e instanceof NetError) {
      return {
        statusCode: null,
        latencyMs,
        result: e.details.rule === 'timeout' ? 'timeout' : 'error',
        error: clip(e.message),
        retryAfterMs: null,
      };
    }
    logger.warn({ err: e }, 'webhook send failed unexpectedly');
    return {
      statusCode: null,
      latencyMs,
      result: 'error',
      error: clip(`webhook: could not send (${(e as Error).message})`),
      retryAfterMs: null,
    };
  }
}

interface DeliveryRow {
  id: string;
  team_id: string;
  user_id: string | null;
  target: WebhookTarget;
  event: string;
  url: string;
  payload: string;
  status: DeliveryStatus;
  attempts_count: number;
  ready_at: Date;
  delivered_at: Date | null;
}

type Destination = { url: string; secrets?: SigningSecrets; endpointId: string | null } | { skip: string };

/** A delivery with what its attempt needs to know now: the saved endpoint of its target and the team's tier. */
interface LoadedDelivery extends DeliveryRow {
  /** The uploader's or owner's saved webhook (upload and owner targets), or the team's (team target). */
  endpoint: EndpointRow | null;
  team_tier: string;
}

/**
 * The delivery, its target's saved endpoint and the team's tier in ONE query (an attempt is the hot
 * path of webhook delivery: every round trip here is worker CPU per delivery). The endpoint comes back
 * as JSON: its timestamps as strings, which is all its readers need (signingSecrets, endpointBlocker).
 */
async function loadDelivery(db: Knex, deliveryId: string): Promise<LoadedDelivery | undefined> {
  return db('webhook_deliveries as d')
    .leftJoin('webhook_endpoints as e', (j) =>
      j.on(
        db.raw(
          "(d.target = 'team' and e.scope = 'team' and e.team_id = d.team_id) or (d.target <> 'team' and e.scope = 'user' and e.user_id = d.user_id)",
        ),
      ),
    )
    .join('teams as t', 't.id', 'd.team_id')
    .where('d.id', deliveryId)
    .first(
      'd.*',
      db.raw('case when e.id is null then null else row_to_json(e.*) end as endpoint'),
      't.tier as team_tier',
    );
}

/** Where the delivery goes now, signed with what; or why it cannot be sent. */
function destination(key: Buffer | undefined, d: LoadedDelivery): Destination {
  const ep = d.endpoint ?? undefined;
  // The upload's own URL; signed with the uploader's saved secret when there is one.
  if (d.target === 'upload') return { url: d.url, secrets: signingSecrets(key, ep), endpointId: null };
  if (!ep) return { skip: 'the saved webhook no longer exists' };
  const blocker = endpointBlocker(
    ep,
    d.target === 'team' ? 'team' : 'user',
    d.target === 'team' ? d.team_tier : undefined,
  );
  if (blocker) return { skip: blocker };
  return { url: ep.url!, secrets: signingSecrets(key, ep), endpointId: ep.id };
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
  await db('webhook_deliveries')
    .where({ id: d.id })
    .update({ status: 'skipped', last_error: clip(reason) });
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

/** What recording an attempt found: null when the delivery is gone. */
type Recorded = { attemptNo: number; firstDelivery: boolean; duplicate: boolean; status: DeliveryStatus } | null;

/**
 * Record one attempt and the delivery's new state in ONE statement (it was a five-round-trip
 * transaction on the hot path). The UPDATE takes the delivery's row lock and numbers the attempt from
 * attempts_count, which only this statement changes, so concurrent attempts of one delivery (a
 * redelivery racing a retry) get distinct numbers; an attempt id recorded before (an attempt run
 * again after its worker was lost) changes nothing and answers `duplicate`.
 */
async function recordAttempt(db: Knex, r: Recording): Promise<Recorded> {
  const error = r.error === null ? null : clip(r.error);
  const { rows } = await db.raw(
    `with prior as (select attempt_no from webhook_attempts where id = ?),
          before as (select status, delivered_at from webhook_deliveries where id = ?),
          d as (
            update webhook_deliveries
               set attempts_count = attempts_count + 1, url = ?, last_error = ?,
                   status = case when cast(? as text) = 'pending' then status else cast(? as text) end,
                   delivered_at = case when cast(? as text) = 'delivered' then now() else delivered_at end
             where id = ? and not exists (select 1 from prior)
             returning id, team_id, attempts_count
          ),
          a as (
            insert into webhook_attempts (id, delivery_id, attempt_no, status_code, latency_ms, error)
            select ?, d.id, d.attempts_count, cast(? as int), cast(? as int), ? from d
            returning attempt_no
          )
     select (select attempt_no from a) as attempt_no, (select team_id from d) as team_id, (select attempt_no from prior) as prior_no,
            (select status from before) as status_before, (select delivered_at from before) is not null as was_delivered`,
    [
      r.attemptId,
      r.deliveryId,
      r.url,
      error,
      r.status,
      r.status,
      r.status,
      r.deliveryId,
      r.attemptId,
      r.statusCode,
      r.latencyMs,
      error,
    ],
  );
  const row = rows[0] as {
    attempt_no: number | null;
    team_id: string | null;
    prior_no: number | null;
    status_before: DeliveryStatus | null;
    was_delivered: boolean;
  };
  if (row.prior_no !== null)
    return { attemptNo: row.prior_no, firstDelivery: false, duplicate: true, status: row.status_before ?? 'pending' };
  if (row.attempt_no === null) return null;
  if (r.status === 'disabled' && r.disableEndpointId) await disableEndpoint(db, r, row.team_id!);
  return {
    attemptNo: row.attempt_no,
    firstDelivery: r.status === 'delivered' && !row.was_delivered,
    duplicate: false,
    status: r.status,
  };
}

/** A 410: only the URL that answered is disabled (a URL saved since then stays enabled), with an audit row. */
async function disableEndpoint(db: Knex, r: Recording, teamId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const disabled = await tx('webhook_endpoints')
      .where({ id: r.disableEndpointId, url: r.url })
      .whereNull('disabled_at')
      .update({
        disabled_at: tx.fn.now(),
        disabled_reason: `the receiver answered 410 Gone to delivery ${r.deliveryId}`,
        updated_at: tx.fn.now(),
      });
    if (disabled) {
      await audit(
        tx,
        null,
        'webhook.endpoint_disabled',
        { type: 'webhook_endpoint', id: r.disableEndpointId!, teamId },
        { delivery_id: r.deliveryId, status: 410 },
      );
    }
  });
}

/** One attempt of a delivery: send, record, and say whether the delivery is done. */
export async function attemptDelivery(
  deps: SenderDeps,
  input: AttemptInput,
  signal?: AbortSignal,
): Promise<AttemptOutcome> {
  const { db, config } = deps;
  const d = await loadDelivery(db, input.deliveryId);
  if (!d) return outcomeOf('skipped', { error: 'the delivery no longer exists (its meeting was deleted)' });

  const to = destination(config.secretsKey, d);
  if ('skip' in to) return skip(db, d, to.skip);

  const attemptNo = d.attempts_count + 1;
  const headers = webhookHeaders({
    deliveryId: d.id,
    attemptNo,
    timestamp: Math.floor(Date.now() / 1000),
    body: d.payload,
    secrets: to.secrets,
    style: isV2Event(d.event) ? 'v2' : 'v1',
  });
  const sent = await sendWebhook(to.url, d.payload, headers, {
    timeoutMs: config.webhook.timeoutMs,
    allowPrivateNetwork: config.allowPrivateNetwork,
    signal,
  });

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
  if (rec.firstDelivery && !input.redelivery)
    webhookReadyToDelivered.observe((Date.now() - new Date(d.ready_at).getTime()) / 1000);
  if (status === 'failed' || status === 'disabled')
    logger.warn({ deliveryId: d.id, target: d.target, status, error }, 'webhook delivery ended without success');
  return outcomeOf(status, {
    attemptNo: rec.attemptNo,
    statusCode: sent.statusCode,
    retryAfterMs: status === 'pending' ? sent.retryAfterMs : null,
    error,
  });
}

/**
 * An attempt whose activity never completed (its worker was lost, or it timed out): recorded as a
 * failed attempt, unless it was recorded after all, in which case its outcome stands.
 */
export async function recordLostAttempt(deps: SenderDeps, input: LostAttemptInput): Promise<AttemptOutcome> {
  const d = await deps.db('webhook_deliveries').where({ id: input.deliveryId }).first('id', 'url', 'status', 'target');
  if (!d) return outcomeOf('skipped', { error: 'the delivery no longer exists (its meeting was deleted)' });
  const prior = await deps
    .db('webhook_attempts')
    .where({ id: input.attemptId })
    .first('attempt_no', 'status_code', 'error');
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
  const rec = await recordAttempt(deps.db, {
    deliveryId: d.id,
    attemptId: input.attemptId,
    statusCode: null,
    latencyMs: null,
    error,
    status,
    url: d.url,
  });
  if (!rec) return outcomeOf('skipped', { error: 'the delivery no longer exists (its meeting was deleted)' });
  if (!rec.duplicate) {
    webhookAttempts.inc({ result: 'error' });
    if (status === 'failed') webhookDeliveries.inc({ outcome: 'failed' });
  }
  return outcomeOf(rec.status, { attemptNo: rec.attemptNo, error });
}
