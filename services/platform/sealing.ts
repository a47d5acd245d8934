/**
 * Secrets at rest (upload download credentials, webhook secrets, OAuth signing keys): AES-256-GCM with
 * SECRETS_KEY. One format is written, "v1.<iv>.<tag>.<ciphertext>" in base64url parts, the plaintext
 * being JSON. Values the OAuth server sealed before this module existed read "k1.…" with the plaintext
 * as is; they are still opened (as that string), so no stored key has to be rewritten.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ServiceError } from './errors';

function requireKey(key: Buffer | undefined): Buffer {
  if (!key)
    throw new ServiceError(
      'invariant_violation',
      'SECRETS_KEY is not configured on this server; an operator must set it',
    );
  return key;
}

export function sealJson(key: Buffer | undefined, value: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', requireKey(key), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join(
    '.',
  );
}

export function openJson<T>(key: Buffer | undefined, sealed: string): T {
  const [version, iv, tag, body] = sealed.split('.');
  if ((version !== 'v1' && version !== 'k1') || !iv || !tag || body === undefined) {
    throw new ServiceError('invariant_violation', 'sealed value has an unknown format');
  }
  const decipher = createDecipheriv('aes-256-gcm', requireKey(key), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  const plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  return (version === 'k1' ? plain : JSON.parse(plain)) as T;
}
