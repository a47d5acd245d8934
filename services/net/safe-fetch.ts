import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { checkAddress } from './address-policy';
import { NetError, isRetryableStatus } from './errors';

/**
 * HTTP(S) for URLs that users hand us (media to download, webhooks to call). It refuses anything but
 * http and https; resolves the host itself and refuses private, loopback, link-local and other
 * non-public addresses (unless allowPrivateNetwork); then connects to exactly the address it checked,
 * through a pinned `lookup`, so a DNS answer that changes between check and connect (DNS rebinding)
 * cannot reach inside. Redirects are followed by hand, each hop checked the same way. The body is capped
 * (Content-Length first, then while streaming) and the whole exchange has one deadline.
 */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Where a streamed body goes: a file's write stream, or anything with its write/drain contract. */
export interface BodySink {
  write(chunk: Buffer): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

export interface SafeFetchOptions {
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Largest body accepted, in bytes (MEDIA_MAX_BYTES for media). */
  maxBytes: number;
  /** What to do with a larger body: fail (media), or keep the first maxBytes (a webhook receiver's reply). */
  onOversize?: 'error' | 'truncate';
  /** Deadline for the whole exchange, redirects included (MEDIA_FETCH_TIMEOUT, WEBHOOK_TIMEOUT). */
  timeoutMs: number;
  /** ALLOW_PRIVATE_NETWORK: reach loopback and private addresses. Local development and tests only. */
  allowPrivateNetwork: boolean;
  /** Exact addresses allowed although private (an internal media host), without opening the whole network. */
  allowedPrivateAddresses?: readonly string[];
  /** Redirects to follow (default 5); 0 returns a 3xx as the answer (webhooks). */
  maxRedirects?: number;
  /** Fail on a non-2xx final status (default true); false returns it (webhooks record the status). */
  throwOnHttpError?: boolean;
  /** Name of the input in error messages (default "url"). */
  field?: string;
  /** DNS resolution; the system resolver by default. */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  signal?: AbortSignal;
  /**
   * Keep the connection for the next request to the same checked address (webhooks: a receiver gets
   * many deliveries, and a TLS handshake per POST cost more CPU than the rest of the attempt). Off by
   * default: a download is one long request.
   */
  keepAlive?: boolean;
  /**
   * Stream the final answer's body here instead of keeping it in memory (a media download to a file):
   * the answer's `body` is then empty, and the size cap still applies. Back-pressure is honoured; the
   * caller ends the stream.
   */
  sink?: BodySink;
}

export interface SafeResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered, after redirects. */
  url: string;
  /** Every URL redirected to, in order. */
  redirects: string[];
  /** The IP address that answered. */
  address: string;
  /** True when onOversize is 'truncate' and the body was longer than maxBytes. */
  truncated: boolean;
  /** Bytes of the body received (those written to `sink` when there is one). */
  size: number;
}

const DEFAULT_MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

async function systemResolve(hostname: string): Promise<ResolvedAddress[]> {
  const all = await dnsLookup(hostname, { all: true, verbatim: true });
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

function fail(field: string, message: string, rule: string, retryable = false, status?: number): NetError {
  return new NetError(`${field}: ${message}`, { retryable, rule, field, status });
}

function parseUrl(raw: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fail(field, 'is not a valid URL', 'invalid_url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail(field, 'must be http or https', 'scheme');
  return url;
}

/** The promise, or the signal's reason as soon as it aborts: a hanging DNS query must not outlive the deadline. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * Resolves the URL's host and returns the address to dial, after checking every address it resolves to.
 * A literal host (already normalized by the URL parser: 0x7f.1, 2130706433, 0177.0.0.1 and 127.1 are
 * 127.0.0.1 here, an IPv6 literal is bracketed and cannot carry a zone id) and every DNS answer (a zone
 * id included) go through the one policy, checkAddress: global unicast only, and no IPv6 form that
 * carries an IPv4 address (mapped, compatible, translated, NAT64, 6to4, Teredo).
 */
async function vetHost(
  url: URL,
  options: SafeFetchOptions,
  field: string,
  signal: AbortSignal,
): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: ResolvedAddress[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await untilAborted((options.resolve ?? systemResolve)(host), signal);
    } catch (e) {
      if (signal.aborted) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOTFOUND' || code === 'ENODATA') throw fail(field, `host ${host} was not found`, 'dns_not_found');
      throw fail(field, `could not resolve host ${host} (${code ?? (e as Error).message})`, 'dns_failed', true);
    }
    if (addresses.length === 0) throw fail(field, `host ${host} was not found`, 'dns_not_found');
  }
  if (!options.allowPrivateNetwork) {
    // Every address must be public: a name that also points inside is refused, not raced.
    for (const a of addresses) {
      const verdict = checkAddress(a.address);
      if (!verdict.allowed && !options.allowedPrivateAddresses?.includes(a.address)) {
        throw fail(
          field,
          `resolves to a private address (${a.address}${verdict.range === 'private' ? '' : `, ${verdict.label}`}); set ALLOW_PRIVATE_NETWORK=true for local development only`,
          'private_address',
        );
      }
    }
  }
  return addresses[0];
}

/** A `lookup` that answers with the already checked address, whatever DNS would say now. */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return ((_hostname: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (opts?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

interface Hop {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

interface HopResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
  size: number;
}

function connectionError(field: string, url: URL, e: NodeJS.ErrnoException): NetError {
  const code = e.code ?? e.message;
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(code)) {
    return fail(field, `TLS certificate of ${url.host} is not valid (${code})`, 'tls', false);
  }
  return fail(field, `could not connect to ${url.host} (${code})`, 'connect', true);
}

/**
 * Keep-alive agents, one per checked address and host: a socket an agent keeps was connected to that
 * address (through the pinned lookup), so reusing it never reaches an address this call did not check.
 * Idle sockets close after a few seconds, before a typical server's keep-alive timeout; the least
 * recently used agents are closed past a bound.
 */
const keepAliveAgents = new Map<string, http.Agent>();
const KEEP_ALIVE_AGENTS_MAX = 256;
const KEEP_ALIVE_IDLE_MS = 4_000;

function keepAliveAgent(url: URL, target: ResolvedAddress): http.Agent {
  const key = `${url.protocol}//${url.host}@${target.address}`;
  const found = keepAliveAgents.get(key);
  if (found) {
    keepAliveAgents.delete(key);
    keepAliveAgents.set(key, found);
    return found;
  }
  const opts = {
    keepAlive: true,
    maxSockets: 32,
    maxFreeSockets: 8,
    timeout: KEEP_ALIVE_IDLE_MS,
    scheduling: 'lifo' as const,
  };
  const agent = url.protocol === 'https:' ? new https.Agent(opts) : new http.Agent(opts);
  keepAliveAgents.set(key, agent);
  if (keepAliveAgents.size > KEEP_ALIVE_AGENTS_MAX) {
    const [oldest, old] = keepAliveAgents.entries().next().value!;
    keepAliveAgents.delete(oldest);
    old.destroy();
  }
  return agent;
}

function send(
  hop: Hop,
  target: ResolvedAddress,
  options: SafeFetchOptions,
  field: string,
  signal: AbortSignal,
): Promise<HopResult> {
  return new Promise((resolve, reject) => {
    const client = hop.url.protocol === 'https:' ? https : http;
    const req = client.request(
      {
        protocol: hop.url.protocol,
        hostname: hop.url.hostname.replace(/^\[|\]$/g, ''),
        port: hop.url.port || undefined,
        path: `${hop.url.pathname}${hop.url.search}`,
        method: hop.method,
        headers: { ...hop.headers, host: hop.url.host },
        auth: hop.url.username
          ? `${decodeURIComponent(hop.url.username)}:${decodeURIComponent(hop.url.password)}`
          : undefined,
        lookup: pinnedLookup(target),
        // No shared pool: a pooled socket could carry a request to an address this call never checked.
        agent: options.keepAlive ? keepAliveAgent(hop.url, target) : false,
        signal,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const finalAnswer = !(REDIRECTS.has(status) && res.headers.location);
        const declared = Number(res.headers['content-length']);
        const truncate = options.onOversize === 'truncate';
        if (finalAnswer && !truncate && Number.isFinite(declared) && declared > options.maxBytes) {
          res.destroy();
          reject(fail(field, `file is larger than the ${options.maxBytes}-byte limit`, 'too_large'));
          return;
        }
        const chunks: Buffer[] = [];
        const sink = finalAnswer ? options.sink : undefined;
        let size = 0;
        let truncated = false;
        res.on('data', (chunk: Buffer) => {
          if (!finalAnswer) return; // a redirect's body is drained, not kept
          size += chunk.length;
          if (size > options.maxBytes) {
            if (!truncate) {
              res.destroy();
              reject(fail(field, `file is larger than the ${options.maxBytes}-byte limit`, 'too_large'));
              return;
            }
            if (!truncated) chunks.push(chunk.subarray(0, chunk.length - (size - options.maxBytes)));
            truncated = true;
            res.destroy();
            resolve({ status, headers: res.headers, body: Buffer.concat(chunks), truncated, size: options.maxBytes });
            return;
          }
          // A streamed body (a download to a file) never sits in memory; a slow disk pauses the socket.
          if (sink && status >= 200 && status <= 299) {
            if (!sink.write(chunk)) {
              res.pause();
              sink.once('drain', () => res.resume());
            }
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status, headers: res.headers, body: Buffer.concat(chunks), truncated, size }));
        res.on('error', (e) => reject(e));
        // A connection cut mid-body (deadline, server gone) ends in 'close' without 'end'.
        res.on('close', () => {
          if (!res.complete)
            reject(Object.assign(new Error('connection closed before the body was complete'), { code: 'ECONNRESET' }));
        });
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => reject(e));
    if (hop.body !== undefined) req.write(hop.body);
    req.end();
  });
}

function nextHop(hop: Hop, status: number, location: string, field: string): Hop {
  let url: URL;
  try {
    url = new URL(location, hop.url);
  } catch {
    throw fail(field, `redirect to an invalid URL (${location.slice(0, 200)})`, 'redirect_invalid');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw fail(field, `redirects to ${url.protocol.replace(':', '')}, which is not http or https`, 'scheme');
  }
  // 303, and 301/302 after a POST, switch to GET without a body, as browsers do; 307/308 keep both.
  const toGet = status === 303 || ((status === 301 || status === 302) && hop.method === 'POST');
  const headers = { ...hop.headers };
  if (toGet) {
    delete headers['content-type'];
    delete headers['content-length'];
  }
  if (url.origin !== hop.url.origin) {
    // Credentials are for the origin they were given to.
    for (const h of Object.keys(headers))
      if (/^(authorization|cookie|proxy-authorization)$/i.test(h)) delete headers[h];
  }
  return { url, method: toGet ? 'GET' : hop.method, headers, body: toGet ? undefined : hop.body };
}

export async function safeFetch(rawUrl: string, options: SafeFetchOptions): Promise<SafeResponse> {
  const field = options.field ?? 'url';
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  const lowerHeaders = Object.fromEntries(Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  let hop: Hop = {
    url: parseUrl(rawUrl, field),
    method: options.method ?? 'GET',
    headers: lowerHeaders,
    body: options.body,
  };
  const redirects: string[] = [];

  for (;;) {
    let target: ResolvedAddress;
    let result: HopResult;
    try {
      target = await vetHost(hop.url, options, field, signal);
      result = await send(hop, target, options, field, signal);
    } catch (e) {
      if (e instanceof NetError) throw e;
      if (deadline.aborted) {
        throw fail(field, `no complete answer within ${formatSeconds(options.timeoutMs)}`, 'timeout', true);
      }
      if (options.signal?.aborted) throw fail(field, 'the request was cancelled', 'cancelled', true);
      throw connectionError(field, hop.url, e as NodeJS.ErrnoException);
    }

    const location = result.headers.location;
    if (REDIRECTS.has(result.status) && location && maxRedirects > 0) {
      if (redirects.length >= maxRedirects)
        throw fail(field, `more than ${maxRedirects} redirects`, 'too_many_redirects');
      hop = nextHop(hop, result.status, location, field);
      redirects.push(hop.url.toString());
      continue;
    }
    if (options.throwOnHttpError !== false && (result.status < 200 || result.status > 299)) {
      const note = REDIRECTS.has(result.status) ? ' (redirects are not followed here)' : '';
      throw fail(
        field,
        `server answered ${result.status}${note}`,
        'http_status',
        isRetryableStatus(result.status),
        result.status,
      );
    }
    return { ...result, url: hop.url.toString(), redirects, address: target.address };
  }
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
