import type { Principal } from '../../../services/core/access';
import { validateUpload } from '../../../services/core/uploads/validate';
import { validateWebhookUrl } from '../../../services/core/webhooks';
import { ServiceError } from '../../../services/platform/errors';
import { NetError, safeFetch, type SafeFetchOptions } from '../../../services/net';
import { localServer } from './local-server';

/**
 * IPv6 literals that carry an IPv4 address (mapped, compatible, translated, NAT64, 6to4, Teredo), and
 * the odd IPv4 spellings the URL parser normalizes, are refused at submit time by the real validators
 * (uploadAudio's url and webhook, saved and team webhooks) and again at connect time by safeFetch,
 * before any connection is made.
 */

const TARGETS = ['127.0.0.1', '169.254.169.254', '10.0.0.1'];

function embeddings(v4: string): [string, string][] {
  const o = v4.split('.').map(Number);
  const hex = (a: number, b: number) => ((a << 8) | b).toString(16);
  return [
    ['IPv4-mapped', `::ffff:${v4}`],
    ['IPv4-compatible', `::${v4}`],
    ['IPv4-compatible (hex)', `::${hex(o[0], o[1])}:${hex(o[2], o[3])}`],
    ['IPv4-translated', `::ffff:0:${v4}`],
    ['NAT64', `64:ff9b::${v4}`],
    ['NAT64 local-use', `64:ff9b:1::${v4}`],
    ['6to4', `2002:${hex(o[0], o[1])}:${hex(o[2], o[3])}::1`],
    ['Teredo', `2001:0:4136:e378:8000:63bf:${hex(o[0] ^ 0xff, o[1] ^ 0xff)}:${hex(o[2] ^ 0xff, o[3] ^ 0xff)}`],
  ];
}

const FORMS = TARGETS.flatMap((v4) => embeddings(v4).map(([form, literal]) => [form, v4, literal] as const));

/** The same hosts spelled as IPv4 in ways the WHATWG URL parser normalizes to them. */
const SPELLINGS: [string, string][] = [
  ['0x7f.1', '127.0.0.1'],
  ['2130706433', '127.0.0.1'],
  ['0177.0.0.1', '127.0.0.1'],
  ['127.1', '127.0.0.1'],
  ['127.0.0.1.', '127.0.0.1'],
  ['0xa9fea9fe', '169.254.169.254'],
  ['2852039166', '169.254.169.254'],
  ['0251.0376.0251.0376', '169.254.169.254'],
  ['169.254.43518', '169.254.169.254'],
  ['012.1', '10.0.0.1'],
  ['167772161', '10.0.0.1'],
];

const member: Principal = {
  userId: 'u1',
  teamId: 't1',
  email: 'a@example.com',
  name: 'A',
  role: 'member',
  tier: 'pro',
  flags: [],
};
const guardedConfig = { allowPrivateNetwork: false };

function refusal(fn: () => unknown): ServiceError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    return e as ServiceError;
  }
  throw new Error('expected a refusal');
}

describe('submit time: the validators refuse IPv6 forms that carry an IPv4 address', () => {
  it.each(FORMS)('uploadAudio url: %s of %s [%s]', (_form, _v4, literal) => {
    const e = refusal(() => validateUpload(member, { url: `http://[${literal}]/call.mp3` }, guardedConfig));
    expect(e.details).toEqual({ field: 'url', rule: 'must be a public address' });
    expect(e.message).toMatch(
      /^url points at a private, loopback or reserved address \(\[[0-9a-f:]+\]\); use a publicly reachable host$/,
    );
  });

  it.each(FORMS)('uploadAudio webhook: %s of %s [%s]', (_form, _v4, literal) => {
    const e = refusal(() =>
      validateUpload(
        member,
        { url: 'https://media.example.com/call.mp3', webhook: `https://[${literal}]/hook` },
        guardedConfig,
      ),
    );
    expect(e.details).toEqual({ field: 'webhook', rule: 'must be a public address' });
    expect(e.message).toMatch(/^webhook points at a private, loopback or reserved address/);
  });

  it.each(FORMS)('saved webhook url: %s of %s [%s]', (_form, _v4, literal) => {
    const e = refusal(() =>
      validateWebhookUrl('webhook_url', `https://[${literal}]:8443/hooks`, { allowPrivateNetwork: false }),
    );
    expect(e.details).toEqual({ field: 'webhook_url', rule: 'must be a public address' });
    expect(e.message).toMatch(/^webhook_url points at a private, loopback or reserved address/);
  });

  it.each(SPELLINGS)('odd IPv4 spelling %s (%s) is refused in url and webhook', (spelling) => {
    expect(refusal(() => validateUpload(member, { url: `http://${spelling}/a.mp3` }, guardedConfig)).details).toEqual({
      field: 'url',
      rule: 'must be a public address',
    });
    expect(
      refusal(() => validateWebhookUrl('webhook', `https://${spelling}/h`, { allowPrivateNetwork: false })).details,
    ).toEqual({ field: 'webhook', rule: 'must be a public address' });
  });

  it('a zone id is not a URL host: refused as an invalid URL', () => {
    expect(
      refusal(() => validateUpload(member, { url: 'http://[fe80::1%25eth0]/a.mp3' }, guardedConfig)).details.field,
    ).toBe('url');
    expect(
      refusal(() => validateWebhookUrl('webhook', 'https://[fe80::1%25eth0]/h', { allowPrivateNetwork: false }))
        .details,
    ).toEqual({ field: 'webhook', rule: 'must be a valid https URL' });
  });

  it('public hosts and public IPv6 literals pass', () => {
    expect(
      validateUpload(
        member,
        { url: 'https://[2606:4700:4700::1111]/a.mp3', webhook: 'https://[2a00:1450::1]/h' },
        guardedConfig,
      ).webhook,
    ).toBe('https://[2a00:1450::1]/h');
    expect(validateWebhookUrl('webhook', 'https://8.8.8.8/h', { allowPrivateNetwork: false })).toBe(
      'https://8.8.8.8/h',
    );
  });

  it('ALLOW_PRIVATE_NETWORK lets them through (local development)', () => {
    expect(validateWebhookUrl('webhook', 'https://[::127.0.0.1]/h', { allowPrivateNetwork: true })).toBe(
      'https://[::7f00:1]/h',
    );
  });
});

describe('connect time: safeFetch refuses them before connecting', () => {
  let server: Awaited<ReturnType<typeof localServer>>;
  beforeAll(async () => {
    server = await localServer({ '/hello': (_req, res) => res.end('hello') });
  });
  afterAll(() => server.close());

  const guarded = (): SafeFetchOptions => ({ maxBytes: 10_000, timeoutMs: 2_000, allowPrivateNetwork: false });

  async function refused(p: Promise<unknown>): Promise<NetError> {
    const before = server.connections();
    const e = await p.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(NetError);
    expect(server.connections()).toBe(before);
    return e as NetError;
  }

  it('the loopback server answers when private networks are allowed (the refusals below are the policy, not the network)', async () => {
    const r = await safeFetch(`http://[::ffff:127.0.0.1]:${server.port}/hello`, {
      ...guarded(),
      allowPrivateNetwork: true,
    });
    expect(r.body.toString()).toBe('hello');
  });

  it.each(FORMS)('literal URL: %s of %s [%s]', async (_form, v4, literal) => {
    const e = await refused(safeFetch(`http://[${literal}]:${server.port}/hello`, guarded()));
    expect(e.details).toEqual({ field: 'url', rule: 'private_address' });
    expect(e.retryable).toBe(false);
    expect(e.message).toContain(` form of ${v4} (`);
    expect(e.message).toMatch(
      /^url: resolves to a private address \([0-9a-f:]+, .*\); set ALLOW_PRIVATE_NETWORK=true for local development only$/,
    );
  });

  it.each(FORMS)('DNS answer: %s of %s [%s], named field', async (_form, v4, literal) => {
    const resolve = async () => [{ address: literal, family: 6 as const }];
    const e = await refused(
      safeFetch(`http://hooks.example.test:${server.port}/hello`, { ...guarded(), resolve, field: 'webhook' }),
    );
    expect(e.details).toEqual({ field: 'webhook', rule: 'private_address' });
    expect(e.message).toContain(`(${literal}, `);
    expect(e.message).toContain(` form of ${v4} (`);
  });

  it('a DNS answer mixing a public address with an embedded private one is refused', async () => {
    const resolve = async () => [
      { address: '2606:4700:4700::1111', family: 6 as const },
      { address: '::a9fe:a9fe', family: 6 as const },
    ];
    const e = await refused(safeFetch('http://mixed.example.test/a.mp3', { ...guarded(), resolve }));
    expect(e.message).toBe(
      'url: resolves to a private address (::a9fe:a9fe, IPv4-compatible form of 169.254.169.254 (link-local, cloud metadata)); set ALLOW_PRIVATE_NETWORK=true for local development only',
    );
  });

  it.each(SPELLINGS)('odd IPv4 spelling %s (%s)', async (spelling, v4) => {
    const e = await refused(safeFetch(`http://${spelling}:${server.port}/hello`, guarded()));
    expect(e.message).toContain(`(${v4}`);
    expect(e.details.rule).toBe('private_address');
  });

  it('a zone id in a literal is an invalid URL, refused before anything else', async () => {
    const e = await refused(safeFetch(`http://[fe80::1%25lo]:${server.port}/hello`, guarded()));
    expect(e.details.rule).toBe('invalid_url');
  });

  it('a DNS answer with a zone id is judged by its address', async () => {
    const resolve = async () => [{ address: 'fe80::1%lo', family: 6 as const }];
    const e = await refused(safeFetch('http://scoped.example.test/a.mp3', { ...guarded(), resolve }));
    expect(e.message).toMatch(/^url: resolves to a private address \(fe80::1%lo, link-local\)/);
  });

  it('a redirect to an embedded form is refused at that hop', async () => {
    const redirector = await localServer({
      '/go': (_req, res) => {
        res.writeHead(302, { location: 'http://[::a9fe:a9fe]/latest/meta-data/' });
        res.end();
      },
    });
    try {
      const e = await refused(
        safeFetch(redirector.url('/go'), { ...guarded(), allowedPrivateAddresses: ['127.0.0.1'] }),
      );
      expect(e.message).toMatch(
        /^url: resolves to a private address \(::a9fe:a9fe, IPv4-compatible form of 169\.254\.169\.254 \(link-local, cloud metadata\)\)/,
      );
    } finally {
      await redirector.close();
    }
  });
});
