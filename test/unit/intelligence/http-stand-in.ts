import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A local HTTP server that records each request and answers with `reply`. Tests parse the recorded
 * bodies with the platform's own parsers (Request#formData for multipart, JSON.parse), as a real
 * server would.
 */
export async function standIn(reply: (req: Received) => { status?: number; body: unknown; delayMs?: number }) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      received.push(r);
      const answer = reply(r);
      setTimeout(() => {
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
        res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The multipart body as the FormData a server framework would hand over. */
export async function formDataOf(r: Received): Promise<FormData> {
  const request = new Request(`http://stand-in${r.url}`, {
    method: 'POST',
    headers: { 'content-type': String(r.headers['content-type']) },
    body: r.body,
  });
  return request.formData();
}
