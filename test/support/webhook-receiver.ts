/**
 * A real webhook receiver on 127.0.0.1 for the webhook tests and benchmark: an https server (webhooks
 * must be https URLs) that records every request's raw body and headers and answers from a script per
 * path (status codes, Retry-After, a connection reset, a slow answer), 200 by default.
 *
 * Trust: the service verifies the receiver's certificate (services/net), as it must. Its certificate
 * (test/integration/core/webhooks/tls) is self-signed, and Node 20 cannot add a CA to a running process
 * (tls.setDefaultCACertificates is Node 22+; NODE_EXTRA_CA_CERTS is read at start only). So while a
 * receiver runs, https requests from THIS process to the receiver's own address and port carry its
 * certificate as their `ca`; nothing else is touched, verification stays on, and closing the receiver
 * undoes it. A worker in another process gets NODE_EXTRA_CA_CERTS=RECEIVER_CERT_PATH instead.
 */
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';

export const RECEIVER_CERT_PATH = join(__dirname, '..', 'integration', 'core', 'webhooks', 'tls', 'cert.pem');
const RECEIVER_KEY_PATH = join(__dirname, '..', 'integration', 'core', 'webhooks', 'tls', 'key.pem');

/** An answer: a status code, `reset` (drop the connection unanswered), or a status with headers/delay. */
export type Answer =
  number | 'reset' | { status: number; headers?: Record<string, string>; body?: string; delayMs?: number };

export interface ReceivedRequest {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes received. */
  rawBody: Buffer;
  /** Date.now() when the request was complete. */
  at: number;
  /** What it was answered. */
  answered: number | 'reset';
}

export interface WebhookReceiver {
  /** https://127.0.0.1:PORT */
  base: string;
  port: number;
  url(path: string): string;
  /** Answers for the next requests to path, in order; the last one repeats (default: 200). */
  script(path: string, answers: Answer[]): void;
  requests(path?: string): ReceivedRequest[];
  /** Resolves with the path's requests once there are at least `count`. */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

// --- trust for the receivers of this process ------------------------------------------------------------

const trusted = new Map<number, Buffer>();
const originalRequest = https.request;

function trustingRequest(this: unknown, ...args: unknown[]) {
  const [first] = args;
  if (first && typeof first === 'object' && !(first instanceof URL)) {
    const o = first as https.RequestOptions;
    const ca = (o.hostname === '127.0.0.1' || o.host === '127.0.0.1') && trusted.get(Number(o.port));
    if (ca) args[0] = { ...o, ca };
  }
  return (originalRequest as (...a: unknown[]) => ReturnType<typeof https.request>).apply(this, args);
}

function trust(port: number, cert: Buffer): () => void {
  trusted.set(port, cert);
  (https as { request: typeof https.request }).request = trustingRequest as typeof https.request;
  return () => {
    trusted.delete(port);
    if (trusted.size === 0) (https as { request: typeof https.request }).request = originalRequest;
  };
}

// --- the receiver ----------------------------------------------------------------------------------------

export async function startWebhookReceiver(
  opts: { record?: boolean; onRequest?: (r: ReceivedRequest) => void } = {},
): Promise<WebhookReceiver> {
  const cert = readFileSync(RECEIVER_CERT_PATH);
  const key = readFileSync(RECEIVER_KEY_PATH);
  const scripts = new Map<string, Answer[]>();
  const seen: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const record = opts.record !== false;

  const next = (path: string): Answer => {
    const list = scripts.get(path);
    if (!list || list.length === 0) return 200;
    return list.length > 1 ? list.shift()! : list[0];
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      const answer = next(path);
      const entry: ReceivedRequest = {
        path,
        method: req.method ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks),
        at: Date.now(),
        answered: answer === 'reset' ? 'reset' : typeof answer === 'number' ? answer : answer.status,
      };
      if (record) seen.push(entry);
      opts.onRequest?.(entry);
      if (answer === 'reset') {
        req.socket.destroy();
        return;
      }
      const a = typeof answer === 'number' ? { status: answer } : answer;
      const send = () => res.writeHead(a.status, { 'content-type': 'text/plain', ...a.headers }).end(a.body ?? 'ok');
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  };

  const server = https.createServer({ key, cert }, handle);
  server.on('secureConnection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const untrust = trust(port, cert);
  const base = `https://127.0.0.1:${port}`;

  return {
    base,
    port,
    url: (path) => `${base}${path}`,
    script: (path, answers) => void scripts.set(path, [...answers]),
    requests: (path) => (path === undefined ? [...seen] : seen.filter((r) => r.path === path)),
    waitFor: async (path, count, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const got = seen.filter((r) => r.path === path);
        if (got.length >= count) return got;
        if (Date.now() > deadline)
          throw new Error(`receiver: ${got.length} of ${count} requests to ${path} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        untrust();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
