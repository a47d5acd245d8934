/**
 * The browser side of the authorization flow: the cookie that binds a pending request to the browser
 * that started it, and the redirects back to the client (RFC 6749 §4.1.2, with `iss` per RFC 9207 so
 * a client talking to several servers can tell which one answered).
 */
import type { Request, Response } from 'express';
import type { Config } from '../platform/config';
import { randomSecret } from './crypto';

const COOKIE = 'mi_oauth_browser';

export function browserSecret(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === COOKIE) {
      const v = rest.join('=');
      return /^[A-Za-z0-9_-]{20,100}$/.test(v) ? v : undefined;
    }
  }
  return undefined;
}

/** The browser's binding secret: reused when present (parallel sign-ins in one browser), else set. */
export function ensureBrowserSecret(req: Request, res: Response, config: Pick<Config, 'publicBaseUrl'>): string {
  const existing = browserSecret(req);
  if (existing) return existing;
  const secret = randomSecret();
  const base = new URL(config.publicBaseUrl);
  res.cookie(COOKIE, secret, {
    path: `${base.pathname.replace(/\/+$/, '')}/oauth`,
    httpOnly: true,
    sameSite: 'lax',
    secure: base.protocol === 'https:',
  });
  return secret;
}

function withParams(redirectUri: string, params: Record<string, string | null | undefined>): string {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) u.searchParams.set(k, v);
  return u.toString();
}

export function codeRedirect(
  redirectUri: string,
  issuer: string,
  code: string,
  state: string | null | undefined,
): string {
  return withParams(redirectUri, { code, state, iss: issuer });
}

export function errorRedirect(
  redirectUri: string,
  issuer: string,
  error: string,
  description: string,
  state: string | null | undefined,
): string {
  return withParams(redirectUri, { error, error_description: description, state, iss: issuer });
}

/** What a CSP form-action must allow for the redirect that follows the consent form. */
export function formTarget(redirectUri: string): string {
  const u = new URL(redirectUri);
  return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : u.protocol;
}

/** How the redirect target is shown to the user on the sign-in and consent pages. */
export function redirectTargetLabel(redirectUri: string): string {
  const u = new URL(redirectUri);
  return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : `${u.protocol}//${u.host}`;
}
