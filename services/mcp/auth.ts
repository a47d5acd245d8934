import type { NextFunction, Request, Response } from 'express';
import { apiKeyCall, authenticateApiKey } from '../core/people';
import { allowanceHeaders, countCalls, tooManyRequests, type Allowance } from '../core/limits';
import { isServiceError } from '../platform/errors';
import type { Principal } from '../core/access';
import { bearerChallenge, insufficientScopeChallenge } from '../oauth/challenge';
import { countRefusal, isOAuthError } from '../oauth/errors';
import type { ResourceServer } from '../oauth';
import { requestLog } from '../platform/http';
import { mcpToolCalls } from '../platform/metrics';
import { toolScope } from './server';
import type { Deps } from './tool';

export interface AuthedRequest extends Request {
  principal?: Principal;
  /** The caller's call allowance after this request's tool calls were counted; absent when the limit is off. */
  allowance?: Allowance;
}

export function bearerToken(req: Request): string | undefined {
  const h = req.header('authorization');
  const m = h ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
  return m?.[1];
}

/** API keys are `mi_<prefix>_<secret>`; anything else in the Bearer header is an OAuth access token. */
const looksLikeApiKey = (token: string) => token.startsWith('mi_');

const rpcError = (res: Response, status: number, message: string, id: unknown = null) =>
  res.status(status).json({ jsonrpc: '2.0', error: { code: -32001, message }, id });

/** The tool calls a request's JSON-RPC message(s) make: what counts against the allowance (initialize and tools/list do not). */
export function toolCallCount(body: unknown): number {
  const messages = Array.isArray(body) ? body : [body];
  return messages.filter((m) => (m as { method?: unknown } | null)?.method === 'tools/call').length;
}

/** Refused tool calls count in mcp_tool_calls_total as the calls' outcome, as every other refusal of a known tool does. */
function countRefusedCalls(body: unknown): void {
  for (const m of Array.isArray(body) ? body : [body]) {
    const name = (m as { method?: unknown; params?: { name?: unknown } } | null)?.params?.name;
    if ((m as { method?: unknown }).method === 'tools/call' && typeof name === 'string' && toolScope(name))
      mcpToolCalls.inc({ tool: name, outcome: 'too_many_requests' });
  }
}

/** The id a JSON-RPC error answers: the request's, for a single message. */
const requestId = (body: unknown) => (Array.isArray(body) ? null : ((body as { id?: unknown } | null)?.id ?? null));

/**
 * Resolve the caller before any tool runs: an API key, or (when OAuth is enabled) an access token.
 * A missing, unknown or revoked credential gets 401 with a Bearer challenge; with OAuth enabled it names
 * the protected-resource metadata, which is how an MCP client discovers where to sign in.
 *
 * The request's tool calls are counted against the credential's allowance (RATE_LIMIT_PER_MINUTE, or
 * the key's own; 0 turns the limit off), for an API key in the statement that looks it up. Every
 * answer carries the RateLimit-* headers; calls beyond the allowance get 429 with Retry-After and a
 * JSON-RPC error whose data holds `code: too_many_requests` and `retry_after_seconds`.
 */
export function requireAuth(deps: Deps, oauth?: ResourceServer) {
  const perMinute = deps.config.rateLimitPerMinute;
  return async (req: AuthedRequest, res: Response, next: NextFunction) => {
    const token = bearerToken(req);
    const calls = toolCallCount(req.body);
    try {
      if (oauth && token && !looksLikeApiKey(token)) {
        req.principal = await oauth.authenticate(token);
        if (perMinute) req.allowance = await countCalls(deps.db, req.principal.userId, calls, perMinute);
      } else if (perMinute) {
        ({ principal: req.principal, allowance: req.allowance } = await apiKeyCall(deps.db, token, calls, perMinute));
      } else req.principal = await authenticateApiKey(deps.db, token);
    } catch (e) {
      return refuseCredential(e, token, res, next, oauth);
    }
    if (!req.allowance) return next();
    res.set(allowanceHeaders(req.allowance));
    if (req.allowance.admitted) return next();
    const refusal = tooManyRequests(req.allowance);
    countRefusedCalls(req.body);
    res.set('Retry-After', String(req.allowance.resetSeconds));
    res.status(429).json({
      jsonrpc: '2.0',
      error: { code: -32000, message: `Too many requests: ${refusal.message}`, data: refusal.toJSON() },
      id: requestId(req.body),
    });
  };
}

function refuseCredential(
  e: unknown,
  token: string | undefined,
  res: Response,
  next: NextFunction,
  oauth?: ResourceServer,
) {
  const resourceMetadataUrl = oauth?.resourceMetadataUrl;
  if (isOAuthError(e)) {
    countRefusal(e.reason);
    if (e.status === 503) {
      requestLog(res).warn({ reason: e.reason }, 'access token could not be checked');
      res.set('Retry-After', '5');
      return void rpcError(res, 503, `Service unavailable: ${e.message}`);
    }
    res.set(
      'WWW-Authenticate',
      bearerChallenge({ error: 'invalid_token', description: e.message, resourceMetadataUrl }),
    );
    return void rpcError(res, 401, `Unauthorized: ${e.message}`);
  }
  if (!isServiceError(e) || e.code !== 'auth_failed') return next(e);
  if (oauth && !token) countRefusal('missing_token');
  // RFC 6750 §3.1: a request without credentials gets a challenge without an error code.
  const message =
    !token && oauth
      ? 'sign in with OAuth (see resource_metadata in the WWW-Authenticate header) or send an API key as "Authorization: Bearer <key>"'
      : e.message;
  res.set(
    'WWW-Authenticate',
    bearerChallenge({
      error: token ? 'invalid_token' : undefined,
      description: token ? e.message : undefined,
      resourceMetadataUrl,
    }),
  );
  rpcError(res, 401, `Unauthorized: ${message}`);
}

/** The scopes the JSON-RPC message(s) of this request need: each tools/call needs its tool's scope. */
function neededScopes(body: unknown): { scope: NonNullable<ReturnType<typeof toolScope>>; id: unknown }[] {
  const messages = Array.isArray(body) ? body : [body];
  const needed = [];
  for (const m of messages) {
    if (!m || typeof m !== 'object') continue;
    const { method, params, id } = m as { method?: unknown; params?: { name?: unknown }; id?: unknown };
    if (method !== 'tools/call' || typeof params?.name !== 'string') continue;
    const scope = toolScope(params.name);
    if (scope) needed.push({ scope, id: Array.isArray(body) ? null : id });
  }
  return needed;
}

/**
 * A tool call whose credential lacks the tool's scope is refused here, as HTTP 403 insufficient_scope
 * naming the scope, so the client can ask the user for it (MCP step-up authorization). The call sits
 * inside a JSON-RPC POST, so the scope is read from the body before the SDK handles it. core's
 * requireScope stays as the second line of defence. OAuth tokens carry the scopes granted at consent,
 * API keys those they were created with (Principal.scopes): the same check for both.
 */
export function requireToolScopes(oauth?: ResourceServer) {
  return (req: AuthedRequest, res: Response, next: NextFunction) => {
    const granted = req.principal?.scopes;
    if (!granted) return next();
    const missing = neededScopes(req.body).find((n) => !granted.includes(n.scope));
    if (!missing) return next();
    countRefusal('insufficient_scope');
    res.set('WWW-Authenticate', insufficientScopeChallenge(missing.scope, oauth?.resourceMetadataUrl));
    const fix = looksLikeApiKey(bearerToken(req) ?? '')
      ? 'use an API key created with it'
      : 'sign in again and grant it';
    rpcError(
      res,
      403,
      `Forbidden: this tool needs the ${missing.scope} scope, which this credential does not carry; ${fix}`,
      missing.id,
    );
  };
}
