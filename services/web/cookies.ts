/**
 * The pages' cookies: the session (its token) and, before a session exists, the sign-in form's CSRF
 * value (double submit). Both HttpOnly and SameSite=Lax; Secure whenever PUBLIC_BASE_URL is https
 * (plain http is for local development, where browsers would drop a Secure cookie outside localhost).
 */
import type { Request, Response } from 'express';
import type { Config } from '../platform/config';

export const SESSION_COOKIE = 'mi_session';
export const SIGNIN_CSRF_COOKIE = 'mi_signin_csrf';

export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=') || undefined;
  }
  return undefined;
}

function options(config: Pick<Config, 'publicBaseUrl'>, maxAgeMs?: number) {
  const base = new URL(config.publicBaseUrl);
  return {
    path: base.pathname.replace(/\/+$/, '') || '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: base.protocol === 'https:',
    ...(maxAgeMs !== undefined ? { maxAge: maxAgeMs } : {}),
  };
}

export function setCookie(
  res: Response,
  config: Pick<Config, 'publicBaseUrl'>,
  name: string,
  value: string,
  maxAgeMs?: number,
): void {
  res.cookie(name, value, options(config, maxAgeMs));
}

export function clearCookie(res: Response, config: Pick<Config, 'publicBaseUrl'>, name: string): void {
  res.clearCookie(name, options(config));
}
