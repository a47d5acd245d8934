import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { NetError, safeFetch, type SafeFetchOptions } from '../../../services/net';
import { localServer } from './local-server';

const open: SafeFetchOptions = { maxBytes: 10_000, timeoutMs: 2_000, allowPrivateNetwork: true };
const guarded: SafeFetchOptions = { ...open, allowPrivateNetwork: false };

async function failure(p: Promise<unknown>): Promise<NetError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(NetError);
  return e as NetError;
}

describe('safeFetch against real local servers', () => {
  let server: Awaited<ReturnType<typeof localServer>>;
  beforeAll(async () => {
    server = await localServer({
      '/hello': (req, res) => res.end(`hello ${req.headers.host}`),
      '/hop1': (_req, res) => {
        res.writeHead(302, { location: '/hop2' });
        res.end('moved');
      },
      '/hop2': (_req, res) => {
        res.writeHead(301, { location: `http://localhost:${server.port}/hello` });
        res.end();
      },
      '/loop': (_req, res) => {
        res.writeHead(302, { location: '/loop' });
        res.end();
      },
      '/to-metadata': (_req, res) => {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        res.end();
      },
      '/to-private': (_req, res) => {
        res.writeHead(307, { location: 'http://10.0.0.5/file.mp3' });
        res.end();
      },
      '/to-ftp': (_req, res) => {
        res.writeHead(302, { location: 'ftp://example.org/file.mp3' });
        res.end();
      },
      '/see-other': (_req, res) => {
        res.writeHead(303, { location: `http://localhost:${server.port}/echo` });
        res.end();
      },
      '/echo': (req, res, body) =>
        res.end(JSON.stringify({ method: req.method, auth: req.headers.authorization ?? null, body: body.toString() })),
      '/big-declared': (_req, res) => {
        res.writeHead(200, { 'content-length': '20000' });
        res.end(Buffer.alloc(20_000));
      },
      '/big-chunked': (_req, res) => {
        res.writeHead(200);
        for (let i = 0; i < 30; i++) res.write(Buffer.alloc(1000, 1));
        res.end();
      },
      '/slow-body': (_req, res) => {
        res.writeHead(200);
        res.write('first bytes…');
      },
      '/silent': () => undefined,
      '/unavailable': (_req, res) => {
        res.writeHead(503);
        res.end('try later');
      },
    });
  });
  afterAll(() => server.close());

  it('downloads from a loopback server when private networks are allowed', async () => {
    const r = await safeFetch(server.url('/hello'), open);
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe(`hello 127.0.0.1:${server.port}`);
    expect(r.address).toBe('127.0.0.1');
    expect(r.redirects).toEqual([]);
  });

  it('refuses loopback when private networks are not allowed, before connecting', async () => {
    const before = server.seen.length;
    const e = await failure(safeFetch(server.url('/hello'), guarded));
    expect(e.message).toBe(
      'url: resolves to a private address (127.0.0.1, loopback); set ALLOW_PRIVATE_NETWORK=true for local development only',
    );
    expect(e).toMatchObject({
      retryable: false,
      code: 'invalid_arguments',
      details: { field: 'url', rule: 'private_address' },
    });
    expect(server.seen.length).toBe(before);
  });

  it('refuses "localhost" and IPv6 loopback as well', async () => {
    expect((await failure(safeFetch(`http://localhost:${server.port}/hello`, guarded))).message).toMatch(
      /private address \((127\.0\.0\.1|::1), loopback\)/,
    );
    expect((await failure(safeFetch(`http://[::1]:${server.port}/hello`, guarded))).message).toMatch(
      /private address \(::1, loopback\)/,
    );
    expect((await failure(safeFetch(`http://[::ffff:127.0.0.1]:${server.port}/`, guarded))).message).toMatch(
      /private address/,
    );
  });

  it('follows redirects by hand, relative and absolute, and reports the hops', async () => {
    const r = await safeFetch(server.url('/hop1'), open);
    expect(r.body.toString()).toBe(`hello localhost:${server.port}`);
    expect(r.redirects).toEqual([server.url('/hop2'), `http://localhost:${server.port}/hello`]);
    expect(r.url).toBe(`http://localhost:${server.port}/hello`);
  });

  it('re-checks every redirect: a hop to the metadata service or a private address is refused', async () => {
    const onlyThisServer = { ...guarded, allowedPrivateAddresses: ['127.0.0.1'] };
    expect((await safeFetch(server.url('/hello'), onlyThisServer)).status).toBe(200);
    const metadata = await failure(safeFetch(server.url('/to-metadata'), onlyThisServer));
    expect(metadata.message).toMatch(
      /^url: resolves to a private address \(169\.254\.169\.254, link-local, cloud metadata\)/,
    );
    const rfc1918 = await failure(safeFetch(server.url('/to-private'), onlyThisServer));
    expect(rfc1918.message).toBe(
      'url: resolves to a private address (10.0.0.5); set ALLOW_PRIVATE_NETWORK=true for local development only',
    );
  });

  it('refuses redirects to other schemes and stops after five hops', async () => {
    expect((await failure(safeFetch(server.url('/to-ftp'), open))).message).toBe(
      'url: redirects to ftp, which is not http or https',
    );
    const loop = await failure(safeFetch(server.url('/loop'), open));
    expect(loop.message).toBe('url: more than 5 redirects');
    expect(server.seen.filter((s) => s.url === '/loop').length).toBe(6);
  });

  it('follows no redirect when told not to (webhooks) and can return the status instead of failing', async () => {
    const r = await safeFetch(server.url('/hop1'), { ...open, maxRedirects: 0, throwOnHttpError: false });
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe('/hop2');
    expect((await failure(safeFetch(server.url('/hop1'), { ...open, maxRedirects: 0 }))).message).toBe(
      'url: server answered 302 (redirects are not followed here)',
    );
  });

  it('turns a POST into a GET on 303 and drops credentials when the origin changes', async () => {
    const r = await safeFetch(server.url('/see-other'), {
      ...open,
      method: 'POST',
      body: '{"a":1}',
      headers: { Authorization: 'Bearer secret', 'Content-Type': 'application/json' },
    });
    expect(JSON.parse(r.body.toString())).toEqual({ method: 'GET', auth: null, body: '' });
    const direct = await safeFetch(server.url('/echo'), {
      ...open,
      method: 'POST',
      body: 'x=1',
      headers: { authorization: 'Bearer secret' },
    });
    expect(JSON.parse(direct.body.toString())).toEqual({ method: 'POST', auth: 'Bearer secret', body: 'x=1' });
  });

  it('reports HTTP errors with the status, retryable only for server-side ones', async () => {
    const missing = await failure(safeFetch(server.url('/nope'), open));
    expect(missing).toMatchObject({
      message: 'url: server answered 404',
      retryable: false,
      status: 404,
      name: 'NonRetryableNetError',
    });
    const unavailable = await failure(safeFetch(server.url('/unavailable'), open));
    expect(unavailable).toMatchObject({
      message: 'url: server answered 503',
      retryable: true,
      status: 503,
      name: 'RetryableNetError',
    });
  });

  it('refuses a body over the cap, from Content-Length or while streaming, or keeps the first bytes when asked', async () => {
    expect((await failure(safeFetch(server.url('/big-declared'), open))).message).toBe(
      'url: file is larger than the 10000-byte limit',
    );
    expect((await failure(safeFetch(server.url('/big-chunked'), open))).message).toBe(
      'url: file is larger than the 10000-byte limit',
    );
    const kept = await safeFetch(server.url('/big-chunked'), { ...open, onOversize: 'truncate' });
    expect(kept.truncated).toBe(true);
    expect(kept.body.length).toBe(10_000);
  });

  it('gives up at the deadline, whether the server is silent or slow, as a retryable timeout', async () => {
    const started = Date.now();
    const silent = await failure(safeFetch(server.url('/silent'), { ...open, timeoutMs: 300 }));
    expect(silent).toMatchObject({
      message: 'url: no complete answer within 0.3 s',
      retryable: true,
      details: { rule: 'timeout' },
    });
    const slow = await failure(safeFetch(server.url('/slow-body'), { ...open, timeoutMs: 300 }));
    expect(slow.details.rule).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('keeps to the deadline while DNS hangs', async () => {
    const resolve = () => new Promise<never>(() => undefined);
    const e = await failure(safeFetch('http://slow-dns.example.test/a.mp3', { ...guarded, timeoutMs: 200, resolve }));
    expect(e.details.rule).toBe('timeout');
  });

  it('accepts http and https only', async () => {
    for (const url of ['ftp://example.org/a.mp3', 'file:///etc/passwd', 'gopher://x/', 'data:text/plain,hi']) {
      expect((await failure(safeFetch(url, open))).message).toBe('url: must be http or https');
    }
    expect((await failure(safeFetch('not a url', open))).message).toBe('url: is not a valid URL');
  });

  it('dials the address it checked, not whatever DNS says later (no rebinding)', async () => {
    let lookups = 0;
    // First answer: this server. Any later answer would point elsewhere; safeFetch must not ask again.
    const resolve = async () =>
      lookups++ === 0 ? [{ address: '127.0.0.1', family: 4 as const }] : [{ address: '10.9.9.9', family: 4 as const }];
    const r = await safeFetch(`http://media.example.test:${server.port}/hello`, {
      ...guarded,
      allowedPrivateAddresses: ['127.0.0.1'],
      resolve,
    });
    expect(r.body.toString()).toBe(`hello media.example.test:${server.port}`);
    expect(r.address).toBe('127.0.0.1');
    expect(lookups).toBe(1);
  });

  it('keeps a connection only when asked (webhooks), and only for the address it checked', async () => {
    const hello = server.url('/hello');
    let before = server.connections();
    await safeFetch(hello, open);
    await safeFetch(hello, open);
    expect(server.connections() - before).toBe(2);

    before = server.connections();
    for (let i = 0; i < 3; i++) expect((await safeFetch(hello, { ...open, keepAlive: true })).status).toBe(200);
    expect(server.connections() - before).toBe(1);

    // The same name, now resolving elsewhere: the kept socket (to 127.0.0.1) is not used for a request
    // whose checked address is 127.0.0.2, where nothing listens.
    let answer = '127.0.0.1';
    const resolve = async () => [{ address: answer, family: 4 as const }];
    const named = `http://hooks.example.test:${server.port}/hello`;
    expect((await safeFetch(named, { ...open, keepAlive: true, resolve })).status).toBe(200);
    answer = '127.0.0.2';
    expect((await failure(safeFetch(named, { ...open, keepAlive: true, resolve }))).details.rule).toBe('connect');
  });

  it('refuses a name when any of its addresses is private', async () => {
    const resolve = async () => [
      { address: '93.184.216.34', family: 4 as const },
      { address: '192.168.1.20', family: 4 as const },
    ];
    const e = await failure(safeFetch('http://mixed.example.test/file.mp3', { ...guarded, resolve }));
    expect(e.message).toBe(
      'url: resolves to a private address (192.168.1.20); set ALLOW_PRIVATE_NETWORK=true for local development only',
    );
  });

  it('reports an unknown host as not retryable and a refused connection as retryable', async () => {
    expect((await failure(safeFetch('http://no-such-host.invalid/a.mp3', open))).message).toBe(
      'url: host no-such-host.invalid was not found',
    );
    const refused = await failure(safeFetch('http://127.0.0.1:1/a.mp3', open));
    expect(refused).toMatchObject({ retryable: true, message: 'url: could not connect to 127.0.0.1:1 (ECONNREFUSED)' });
  });
});

describe('safeFetch over https', () => {
  const tls = join(__dirname, '../../fixtures/tls');
  let server: https.Server;
  let port: number;
  beforeAll(async () => {
    server = https.createServer(
      { key: readFileSync(join(tls, 'key.pem')), cert: readFileSync(join(tls, 'cert.pem')) },
      (_req, res) => res.end('secret'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('verifies certificates (a self-signed one is refused) while dialing the pinned address', async () => {
    const resolve = async () => [{ address: '127.0.0.1', family: 4 as const }];
    const untrusted = await failure(safeFetch(`https://media.example.test:${port}/a.mp3`, { ...open, resolve }));
    expect(untrusted).toMatchObject({ retryable: false, details: { rule: 'tls' } });
    expect(untrusted.message).toBe(
      `url: TLS certificate of media.example.test:${port} is not valid (DEPTH_ZERO_SELF_SIGNED_CERT)`,
    );
  });
});
