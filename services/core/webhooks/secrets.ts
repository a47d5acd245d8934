/**
 * Webhook secrets: a custom string of 16 to 32 characters or a generated one (shown
 * once), sealed at rest with SECRETS_KEY (AES-256-GCM, the same sealing as upload credentials).
 *
 * Rotation: setting a new secret while one exists keeps the old one for WEBHOOK_SECRET_OVERLAP. During
 * the overlap every request is signed with the new secret (x-hub-signature) AND the old one
 * (x-hub-signature-previous, and a second `v1,` entry in webhook-signature), so a consumer can switch
 * its configuration at any moment of the overlap without rejecting a request. Only one previous secret
 * is kept: rotating again during an overlap drops the oldest.
 */
import { randomBytes } from 'node:crypto';
import { invalid, ServiceError } from '../../platform/errors';
import { openJson, sealJson } from '../../platform/sealing';
import type { SigningSecrets } from './signing';

export const SECRET_LIMITS = { min: 16, max: 32 } as const;

/** Generated secrets: 24 random bytes as base64url, exactly 32 characters. */
export function generateSecret(): string {
  return randomBytes(24).toString('base64url');
}

/** A custom secret as given: 16 to 32 characters (Unicode code points), printable, no surrounding spaces. */
export function validateCustomSecret(field: string, raw: unknown): string {
  if (typeof raw !== 'string')
    throw invalid(
      field,
      'must be a string',
      `${field} must be a string of ${SECRET_LIMITS.min} to ${SECRET_LIMITS.max} characters`,
    );
  const n = [...raw].length;
  if (n < SECRET_LIMITS.min || n > SECRET_LIMITS.max) {
    throw invalid(
      field,
      `length ${SECRET_LIMITS.min} to ${SECRET_LIMITS.max} characters`,
      `${field} must be ${SECRET_LIMITS.min} to ${SECRET_LIMITS.max} characters long; got ${n}. Or ask for a generated one.`,
    );
  }
  if (/[\u0000-\u001f\u007f]/.test(raw)) {
    throw invalid(field, 'printable characters only', `${field} must not contain control characters or line breaks`);
  }
  if (raw.trim() !== raw) {
    throw invalid(
      field,
      'no leading or trailing spaces',
      `${field} must not start or end with a space (it would be easy to lose when copied)`,
    );
  }
  return raw;
}

/**
 * The secret a caller asked for: exactly one of `secret` (custom) or `generate: true`.
 * Returns the secret and whether it was generated (and so must be shown once).
 */
export function chooseSecret(args: { secret?: string | null; generate?: boolean | null }): {
  secret: string;
  generated: boolean;
} {
  const custom = args.secret !== undefined && args.secret !== null;
  if (custom && args.generate) {
    throw invalid(
      'generate',
      'either secret or generate, not both',
      'give either a custom secret or generate: true, not both',
    );
  }
  if (custom) return { secret: validateCustomSecret('secret', args.secret), generated: false };
  if (args.generate) return { secret: generateSecret(), generated: true };
  throw new ServiceError(
    'args_required',
    `secret is required: a custom secret of ${SECRET_LIMITS.min} to ${SECRET_LIMITS.max} characters, or generate: true`,
    {
      field: 'secret',
      rule: 'required',
    },
  );
}

export function sealSecret(key: Buffer | undefined, secret: string): string {
  return sealJson(key, { secret });
}

export function openSecret(key: Buffer | undefined, sealed: string): string {
  return openJson<{ secret: string }>(key, sealed).secret;
}

/** The secret columns of webhook_endpoints. */
export interface SecretColumns {
  secret_ciphertext: string | null;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: Date | string | null;
}

/** The secrets to sign with now: the current one, and the previous one while its overlap lasts. */
export function signingSecrets(
  key: Buffer | undefined,
  row: SecretColumns | undefined,
  now = new Date(),
): SigningSecrets | undefined {
  if (!row?.secret_ciphertext) return undefined;
  const current = openSecret(key, row.secret_ciphertext);
  const until = row.previous_secret_expires_at ? new Date(row.previous_secret_expires_at) : undefined;
  const previous =
    row.previous_secret_ciphertext && until && until.getTime() > now.getTime()
      ? openSecret(key, row.previous_secret_ciphertext)
      : undefined;
  return previous ? { current, previous } : { current };
}

/** The columns after setting `secret`: the secret in force (if any) becomes the previous one for the overlap. */
export function rotatedColumns(
  key: Buffer | undefined,
  existing: SecretColumns | undefined,
  secret: string,
  overlapMs: number,
  now = new Date(),
): SecretColumns {
  const keepPrevious = Boolean(existing?.secret_ciphertext) && overlapMs > 0;
  return {
    secret_ciphertext: sealSecret(key, secret),
    previous_secret_ciphertext: keepPrevious ? existing!.secret_ciphertext : null,
    previous_secret_expires_at: keepPrevious ? new Date(now.getTime() + overlapMs) : null,
  };
}
