import { createRequire } from 'node:module';
import express, { NextFunction, Request, Response } from 'express';
import type { Express } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { createBaseApp, ReadinessCheck, requestLog } from '../platform/http';
import { createOAuth } from '../oauth';
import { AuthedRequest, requireAuth, requireToolScopes } from './auth';
import { createMcpServer } from './server';
import { createWebRouter } from '../web/router';
import type { Deps } from './tool';

const rpcError = (res: Response, status: number, code: number, message: string) =>
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });

/**
 * The SDK's Node transport hands each request to @hono/node-server and asks it to leave the global
 * Request and Response alone, so the SDK's JSON answers are undici Responses, which hono writes out by
 * reading their bodies back through a web stream. Installing hono's lightweight globals, as hono's own
 * servers do by default, lets it write the answer's string as it is, halving the time from the tool's
 * result to the response (services/mcp/README.md). A lightweight Response turns into a real one as soon
 * as anything reads more than its status, headers or body, and nothing in this service tests
 * `instanceof Response`. The module is the copy the SDK's transport loads: hono recognises its own
 * Responses by a symbol private to that copy.
 */
function useLightweightResponses(): void {
  const sdkTransport = require.resolve('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const hono = createRequire(sdkTransport)('@hono/node-server') as { getRequestListener(f: () => unknown): unknown };
  hono.getRequestListener(() => null);
}

/** A page served from this machine: http(s) on localhost, 127.0.0.1 or [::1], any port. */
export function isLoopbackOrigin(origin: string): boolean {
  const url = new URL(origin);
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)
  );
}

/**
 * Refuses a request whose Origin header names a site other than the allowed ones (MCP_ALLOWED_ORIGINS,
 * default the origin of PUBLIC_BASE_URL and, with `loopback`, any loopback origin): the transport
 * spec's protection of a local server against pages of other sites (DNS rebinding, cross-site posts).
 * A rebinding attacker's page keeps its own origin (its domain name), so a loopback origin is never
 * one: a page served from this machine (the MCP Inspector, a local app on any port) is accepted by
 * default. `Origin: null` (sandboxed frames, file: pages) is refused. Requests without an Origin
 * (every non-browser client) are not affected.
 */
export function originCheck(allowed: string[], loopback = false) {
  const any = allowed.includes('*');
  const origins = new Set(allowed.map((o) => o.toLowerCase()));
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    if (origin === undefined || any) return next();
    let normalized: string | undefined;
    try {
      normalized = new URL(origin).origin.toLowerCase();
    } catch {
      normalized = undefined;
    }
    if (normalized && normalized !== 'null' && (origins.has(normalized) || (loopback && isLoopbackOrigin(normalized))))
      return next();
    rpcError(
      res,
      403,
      -32000,
      `Forbidden: Origin ${JSON.stringify(origin)} is not allowed to use this server (MCP_ALLOWED_ORIGINS)`,
    );
  };
}

/**
 * The mcp role's HTTP surface: POST /mcp (Streamable HTTP, stateless, JSON responses) and, when
 * OAUTH_MODE is not none, the OAuth discovery documents (and the built-in authorization server).
 */
export function createMcpApp(deps: Deps, checks: ReadinessCheck[]): Express {
  useLightweightResponses();
  const app = createBaseApp(checks, { trustProxy: deps.config.trustProxy });
  const allowed = deps.config.mcpAllowedHosts;
  const hostCheck = allowed.includes('*')
    ? (_q: Request, _s: Response, n: NextFunction) => n()
    : hostHeaderValidation(allowed);
  const guards = [hostCheck, originCheck(deps.config.mcpAllowedOrigins, deps.config.mcpLoopbackOrigins)];
  const oauth = createOAuth(deps.db, deps.config);
  if (oauth) app.use(oauth.router);

  const auth = [requireAuth(deps, oauth?.resourceServer), requireToolScopes(oauth?.resourceServer)];
  app.post('/mcp', ...guards, express.json({ limit: '1mb' }), ...auth, async (req: AuthedRequest, res: Response) => {
    // The request's logger is made on first use, as requestLog says: most calls log nothing.
    const server = createMcpServer(req.principal!, {
      ...deps,
      get log() {
        return requestLog(res);
      },
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // An answer written in full leaves nothing open: the server and transport are this request's
    // alone and go with it. Closing them then would cost every call a "connection closed" error
    // built for handlers that no longer wait; only an answer cut short (the client went away while
    // the tool ran) closes them, so nothing writes to the dropped connection afterwards.
    res.on('close', () => {
      if (res.writableFinished) return;
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (e) {
      requestLog(res).error({ err: e }, 'mcp request failed');
      if (!res.headersSent) rpcError(res, 500, -32603, 'Internal error');
    }
  });

  // Stateless server: no standalone SSE stream and no sessions to delete.
  const notAllowed = (_req: Request, res: Response) => {
    res.set('Allow', 'POST');
    rpcError(res, 405, -32000, 'Method not allowed: this server is stateless; POST JSON-RPC messages to /mcp');
  };
  app.get('/mcp', ...guards, notAllowed);
  app.delete('/mcp', ...guards, notAllowed);

  // The pages the service's links open (transcript_url, a soundbite's share_url): services/web.
  app.use(createWebRouter(deps));

  // Body-parser failures (malformed JSON, too large) answer as JSON-RPC errors, not HTML.
  app.use((err: Error & { type?: string; status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    if (err.type === 'entity.parse.failed')
      return rpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
    if (err.type === 'entity.too.large') return rpcError(res, 413, -32600, 'Invalid Request: body larger than 1 MB');
    requestLog(res).error({ err }, 'unhandled error');
    rpcError(res, 500, -32603, 'Internal error');
  });
  return app;
}
