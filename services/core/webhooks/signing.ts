/**
 * Webhook signing (docs/webhooks.md, "The request"): pure functions over the exact bytes sent.
 *
 * Every request carries:
 *   content-type: application/json
 *   user-agent: meeting-intelligence-webhooks/<version>
 *   x-delivery-id: the delivery's id, the same on every attempt and redelivery (drop duplicates by it)
 *   x-delivery-timestamp: this attempt's time, in whole seconds since 1970 (refuse stale ones)
 *   x-delivery-attempt: 1, 2, ... within the delivery
 * and, when the target has a secret:
 *   x-hub-signature: lowercase hex HMAC-SHA256 of the raw body, keyed with the secret's UTF-8 bytes
 *     (V2 events: `sha256=` and the hex, as Fireflies' V2 webhooks)
 *   x-hub-signature-previous: the same with the previous secret, while a rotated-out secret overlaps
 *   webhook-id / webhook-timestamp / webhook-signature (Standard Webhooks): `v1,<base64 HMAC-SHA256 of
 *     "<webhook-id>.<webhook-timestamp>.<body>">`, space-separated `v1,` entries during an overlap.
 *     The key is the secret's UTF-8 bytes; a Standard Webhooks library that expects `whsec_<base64>`
 *     gets `whsec_` + base64(secret).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { RELEASE } from '../../platform/release';

export const WEBHOOK_USER_AGENT = `meeting-intelligence-webhooks/${RELEASE}`;

export interface SigningSecrets {
  /** The secret in force. */
  current: string;
  /** A rotated-out secret still inside WEBHOOK_SECRET_OVERLAP, signed alongside. */
  previous?: string;
}

export interface SignedRequestInput {
  deliveryId: string;
  attemptNo: number;
  /** Seconds since 1970 of this attempt. */
  timestamp: number;
  /** The exact bytes of the body. */
  body: string;
  /** Undefined: sent unsigned (only per-upload webhooks of users without a saved secret). */
  secrets?: SigningSecrets;
  /** v2: x-hub-signature as Fireflies' V2 webhooks send it, `sha256=<hex>`; v1 (default): `<hex>`. */
  style?: 'v1' | 'v2';
}

/** Lowercase hex HMAC-SHA256 of the body: the value of x-hub-signature. */
export function hubSignature(secret: string, body: string | Buffer): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}

/** Base64 HMAC-SHA256 of `id.timestamp.body` (Standard Webhooks v1), without the `v1,` prefix. */
export function standardSignature(secret: string, id: string, timestamp: number, body: string | Buffer): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${id}.${timestamp}.`).update(body).digest('base64');
}

/** Every header of one attempt, names in lower case. */
export function webhookHeaders(input: SignedRequestInput): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'x-delivery-id': input.deliveryId,
    'x-delivery-timestamp': String(input.timestamp),
    'x-delivery-attempt': String(input.attemptNo),
  };
  const s = input.secrets;
  if (!s) return headers;
  const prefix = input.style === 'v2' ? 'sha256=' : '';
  headers['x-hub-signature'] = prefix + hubSignature(s.current, input.body);
  if (s.previous) headers['x-hub-signature-previous'] = prefix + hubSignature(s.previous, input.body);
  headers['webhook-id'] = input.deliveryId;
  headers['webhook-timestamp'] = String(input.timestamp);
  const signatures = [s.current, ...(s.previous ? [s.previous] : [])].map(
    (k) => `v1,${standardSignature(k, input.deliveryId, input.timestamp, input.body)}`,
  );
  headers['webhook-signature'] = signatures.join(' ');
  return headers;
}

/** Constant-time comparison of two hex or base64 strings (false when their lengths differ). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** What a consumer does: is x-hub-signature the HMAC of this raw body with this secret? */
export function verifyHubSignature(secret: string, rawBody: string | Buffer, header: string | undefined): boolean {
  return (
    typeof header === 'string' &&
    safeEqual(
      hubSignature(secret, rawBody),
      header
        .trim()
        .toLowerCase()
        .replace(/^sha256=/, ''),
    )
  );
}

/** The Standard Webhooks check: does any `v1,` entry of webhook-signature match? */
export function verifyStandardSignature(
  secret: string,
  id: string,
  timestamp: string,
  rawBody: string | Buffer,
  header: string | undefined,
): boolean {
  if (typeof header !== 'string' || !/^\d+$/.test(timestamp)) return false;
  const expected = standardSignature(secret, id, Number(timestamp), rawBody);
  return header
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .some((entry) => safeEqual(entry.slice(3), expected));
}
