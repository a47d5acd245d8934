import http from 'node:http';
import https from 'node:https';

/**
 * fetch for a model server that may think longer than Node's fetch waits for an answer's headers
 * (five minutes, whatever the caller's timeout): a chat model on a CPU reads and writes a long
 * meeting's part for longer than that before it sends anything. Only what the model-server calls
 * use: a string body, plain headers, the caller's abort signal as the only timeout.
 */
export const patientFetch: typeof fetch = (input, init = {}) =>
  new Promise<Response>((resolve, reject) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return reject(signal.reason);
    const req = (url.protocol === 'https:' ? https : http).request(
      url,
      // A connection per call (calls are few and long): none is left open when the caller is done.
      { method: init.method ?? 'GET', headers: init.headers as Record<string, string>, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
          const status = res.statusCode ?? 500;
          const body = [101, 204, 205, 304].includes(status) ? null : Buffer.concat(chunks);
          resolve(new Response(body, { status, headers }));
        });
      },
    );
    // No socket timeout of its own: the caller's signal says how long to wait.
    req.setTimeout(0);
    req.on('error', (e) => reject(Object.assign(new TypeError('fetch failed'), { cause: e })));
    signal?.addEventListener(
      'abort',
      () => {
        reject(signal.reason);
        req.destroy();
      },
      { once: true },
    );
    if (init.body !== undefined && init.body !== null) req.end(String(init.body));
    else req.end();
  });
