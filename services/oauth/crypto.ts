/**
 * The small cryptographic pieces of the authorization server: random secrets, the hashes they are
 * stored as, and the PKCE S256 check. (Signing keys are sealed by platform/sealing.ts.)
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh secret of 256 bits, URL-safe (codes, refresh tokens, CSRF tokens, browser bindings). */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Secrets are stored only as this hash, so a database dump hands out no usable code or token. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Constant-time comparison of two strings (hashes or tokens). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** RFC 7636: a verifier is 43 to 128 characters of [A-Za-z0-9-._~]; a S256 challenge is 43 base64url characters. */
export const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
export const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Whether the verifier presented at the token endpoint matches the challenge of the authorization request. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  return PKCE_VERIFIER.test(verifier) && sameSecret(s256(verifier), challenge);
}
