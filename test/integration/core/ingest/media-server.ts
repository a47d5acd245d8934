/**
 * A local HTTP server that serves recordings the way a storage bucket would, with the misbehaviours
 * the pipeline must survive: auth, 404, oversized and stalled downloads. Shared by the ingest tests and
 * the ingestion benchmark.
 */
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Route {
  body: Buffer | string;
  contentType?: string;
  status?: number;
  /** Exact Authorization header required; anything else gets 401. */
  authorization?: string;
  /** Send the headers and the first bytes, then hang until released (a stalled download). */
  stall?: boolean;
}

export interface MediaServer {
  /** Base URL like http://127.0.0.1:PORT */
  url: string;
  serve(path: string, route: Route): string;
  /** Requests seen per path, with their Authorization header. */
  hits(path: string): { authorization?: string }[];
  /** Let stalled responses finish (and stop stalling new ones on that path). */
  release(path: string): void;
  /** Resolves when a request for the path has arrived (and, for stalled routes, is hanging). */
  waitForHit(path: string, count?: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startMediaServer(): Promise<MediaServer> {
  const routes = new Map<string, Route>();
  const seen = new Map<string, { authorization?: string }[]>();
  const stalled = new Map<string, (() => void)[]>();

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const list = seen.get(path) ?? [];
    list.push({ authorization: req.headers.authorization });
    seen.set(path, list);
    const route = routes.get(path);
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (route.authorization && req.headers.authorization !== route.authorization) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end('unauthorized');
      return;
    }
    const body = Buffer.isBuffer(route.body) ? route.body : Buffer.from(route.body);
    res.writeHead(route.status ?? 200, {
      'content-type': route.contentType ?? 'application/octet-stream',
      'content-length': String(body.length),
    });
    if (!route.stall) {
      res.end(body);
      return;
    }
    res.write(body.subarray(0, Math.min(16, body.length)));
    const waiting = stalled.get(path) ?? [];
    waiting.push(() => res.end(body.subarray(Math.min(16, body.length))));
    stalled.set(path, waiting);
  };

  const server: Server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    serve: (path, route) => {
      routes.set(path, route);
      return `${url}${path}`;
    },
    hits: (path) => seen.get(path) ?? [],
    release: (path) => {
      const r = routes.get(path);
      if (r) r.stall = false;
      for (const done of stalled.get(path) ?? []) done();
      stalled.delete(path);
    },
    waitForHit: async (path, count = 1, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while ((seen.get(path)?.length ?? 0) < count) {
        if (Date.now() > deadline) throw new Error(`no request for ${path} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const list of stalled.values()) for (const done of list) done();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
