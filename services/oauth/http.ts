/** What every endpoint of the OAuth surface shares: CORS for browser-based clients, no-store, error bodies. */
import type { NextFunction, Request, Response } from 'express';
import { checkRateLimit } from '../core/limits';
import { logger } from '../platform/logger';
import { countRefusal, isOAuthError, OAuthError } from './errors';

/**
 * Metadata, registration and token endpoints are called by MCP clients that may run in a browser;
 * they carry no cookies, so any origin may call them. (The sign-in and consent pages are not CORS-enabled.)
 */
export function openCors(req: Request, res: Response, next: NextFunction): void {
  res.set('Access-Control-Allow-Origin', '*');
  res.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, MCP-Protocol-Version');
  res.set('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
  if (req.method === 'OPTIONS') {
    res.status(204).end();
    return;
  }
  next();
}

/** Tokens and codes must never sit in a cache (RFC 6749 §5.1). */
export function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.set('Cache-Control', 'no-store');
  res.set('Pragma', 'no-cache');
  next();
}

/** A per-process limit per client address on the endpoints anyone can call without a credential. */
export function limitPerAddress(bucket: string, perMinute: number) {
  return (req: Request, _res: Response, next: NextFunction) => {
    try {
      checkRateLimit(`oauth:${bucket}:${req.ip ?? 'unknown'}`, perMinute);
      next();
    } catch {
      next(
        new OAuthError(
          'slow_down',
          `too many ${bucket} requests from this address; wait a minute and retry`,
          'rate_limited',
          429,
        ),
      );
    }
  };
}

/** Refusals as RFC 6749 JSON; anything else as a server_error without details. */
export function sendJsonError(res: Response, e: unknown): void {
  if (isOAuthError(e)) {
    countRefusal(e.reason);
    if (e.status === 401 && e.error === 'invalid_client')
      res.set('WWW-Authenticate', 'Basic realm="meeting-intelligence"');
    if (e.status === 429) res.set('Retry-After', '60');
    res.status(e.status).json(e.toJSON());
    return;
  }
  logger.error({ err: e }, 'oauth endpoint failed');
  res.status(500).json({
    error: 'server_error',
    error_description: 'the authorization server failed to complete this request; try again',
  });
}

/** Error middleware for the JSON endpoints (registration, token, revocation). */
export function jsonErrors(err: unknown, _req: Request, res: Response, _next: NextFunction): void {
  const e = err as { type?: string };
  if (e?.type === 'entity.parse.failed')
    return sendJsonError(
      res,
      new OAuthError('invalid_request', 'the body is not valid JSON or form data', 'invalid_request'),
    );
  if (e?.type === 'entity.too.large')
    return sendJsonError(res, new OAuthError('invalid_request', 'the body is too large', 'invalid_request', 413));
  sendJsonError(res, err);
}

/** A single form or query parameter: repeated parameters are refused (RFC 6749 §3.1). */
export function param(source: Record<string, unknown> | undefined, name: string): string | undefined {
  const v = source?.[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string')
    throw new OAuthError('invalid_request', `${name} must be given once, as a string`, 'invalid_request');
  return v;
}
