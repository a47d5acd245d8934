import { checkAddress } from '../../../services/net';
import { isPrivateLiteralHost } from '../../../services/net/address-policy';

/**
 * Every row of IANA's IPv4 and IPv6 Special-Purpose Address Registries (plus multicast, and the
 * deprecated forms the registries no longer list): an address inside, and the first and last address
 * of the row, are refused; where the neighbouring address is global unicast it is allowed, so each row
 * is shown to end where the registry says.
 */
type Row = { row: string; inside: string[]; outside?: string[] };

const IPV4_ROWS: Row[] = [
  { row: '0.0.0.0/8 this network', inside: ['0.0.0.0', '0.1.2.3', '0.255.255.255'], outside: ['1.0.0.0'] },
  {
    row: '10.0.0.0/8 private-use',
    inside: ['10.0.0.0', '10.20.30.40', '10.255.255.255'],
    outside: ['9.255.255.255', '11.0.0.0'],
  },
  {
    row: '100.64.0.0/10 shared address space',
    inside: ['100.64.0.0', '100.100.1.1', '100.127.255.255'],
    outside: ['100.63.255.255', '100.128.0.0'],
  },
  {
    row: '127.0.0.0/8 loopback',
    inside: ['127.0.0.0', '127.0.0.1', '127.255.255.255'],
    outside: ['126.255.255.255', '128.0.0.0'],
  },
  {
    row: '169.254.0.0/16 link local',
    inside: ['169.254.0.0', '169.254.169.254', '169.254.255.255'],
    outside: ['169.253.255.255', '169.255.0.0'],
  },
  {
    row: '172.16.0.0/12 private-use',
    inside: ['172.16.0.0', '172.20.1.1', '172.31.255.255'],
    outside: ['172.15.255.255', '172.32.0.0'],
  },
  {
    row: '192.0.0.0/24 IETF protocol assignments',
    inside: ['192.0.0.0', '192.0.0.100', '192.0.0.255'],
    outside: ['191.255.255.255', '192.0.1.0'],
  },
  { row: '192.0.0.0/29 IPv4 service continuity prefix', inside: ['192.0.0.1', '192.0.0.7'] },
  { row: '192.0.0.8/32 IPv4 dummy address', inside: ['192.0.0.8'] },
  { row: '192.0.0.9/32 port control protocol anycast', inside: ['192.0.0.9'] },
  { row: '192.0.0.10/32 TURN anycast', inside: ['192.0.0.10'] },
  { row: '192.0.0.170/32 and 192.0.0.171/32 NAT64/DNS64 discovery', inside: ['192.0.0.170', '192.0.0.171'] },
  {
    row: '192.0.2.0/24 documentation TEST-NET-1',
    inside: ['192.0.2.0', '192.0.2.55', '192.0.2.255'],
    outside: ['192.0.3.0'],
  },
  {
    row: '192.31.196.0/24 AS112-v4',
    inside: ['192.31.196.0', '192.31.196.1', '192.31.196.255'],
    outside: ['192.31.195.255', '192.31.197.0'],
  },
  {
    row: '192.52.193.0/24 AMT',
    inside: ['192.52.193.0', '192.52.193.9', '192.52.193.255'],
    outside: ['192.52.192.255', '192.52.194.0'],
  },
  {
    row: '192.88.99.0/24 deprecated 6to4 relay anycast',
    inside: ['192.88.99.0', '192.88.99.1', '192.88.99.255'],
    outside: ['192.88.98.255', '192.88.100.0'],
  },
  { row: '192.88.99.2/32 6a44-relay anycast', inside: ['192.88.99.2'] },
  {
    row: '192.168.0.0/16 private-use',
    inside: ['192.168.0.0', '192.168.1.1', '192.168.255.255'],
    outside: ['192.167.255.255', '192.169.0.0'],
  },
  {
    row: '192.175.48.0/24 direct delegation AS112',
    inside: ['192.175.48.0', '192.175.48.6', '192.175.48.255'],
    outside: ['192.175.47.255', '192.175.49.0'],
  },
  {
    row: '198.18.0.0/15 benchmarking',
    inside: ['198.18.0.0', '198.19.1.1', '198.19.255.255'],
    outside: ['198.17.255.255', '198.20.0.0'],
  },
  {
    row: '198.51.100.0/24 documentation TEST-NET-2',
    inside: ['198.51.100.0', '198.51.100.7', '198.51.100.255'],
    outside: ['198.51.99.255', '198.51.101.0'],
  },
  {
    row: '203.0.113.0/24 documentation TEST-NET-3',
    inside: ['203.0.113.0', '203.0.113.9', '203.0.113.255'],
    outside: ['203.0.112.255', '203.0.114.0'],
  },
  {
    row: '224.0.0.0/4 multicast',
    inside: ['224.0.0.0', '224.0.0.251', '239.255.255.255'],
    outside: ['223.255.255.255'],
  },
  { row: '240.0.0.0/4 reserved', inside: ['240.0.0.0', '250.1.2.3', '255.255.255.254'] },
  { row: '255.255.255.255/32 limited broadcast', inside: ['255.255.255.255'] },
];

const IPV6_ROWS: Row[] = [
  { row: '::1/128 loopback', inside: ['::1'] },
  { row: '::/128 unspecified', inside: ['::'] },
  { row: '::ffff:0:0/96 IPv4-mapped', inside: ['::ffff:0:0', '::ffff:1.2.3.4', '::ffff:ffff:ffff'] },
  { row: '::/96 IPv4-compatible (deprecated, RFC 4291)', inside: ['::2', '::127.0.0.1', '::a9fe:a9fe', '::ffff:ffff'] },
  { row: '::ffff:0:0:0/96 IPv4-translated', inside: ['::ffff:0:0:0', '::ffff:0:ffff:ffff'] },
  { row: '64:ff9b::/96 IPv4-IPv6 translation', inside: ['64:ff9b::', '64:ff9b::808:808', '64:ff9b::ffff:ffff'] },
  {
    row: '64:ff9b:1::/48 local-use IPv4/IPv6 translation',
    inside: ['64:ff9b:1::', '64:ff9b:1:2::a00:1', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'],
  },
  { row: '100::/64 discard-only', inside: ['100::', '100::1', '100::ffff:ffff:ffff:ffff'] },
  { row: '100:0:0:1::/64 dummy IPv6 prefix', inside: ['100:0:0:1::', '100:0:0:1::5', '100:0:0:1:ffff:ffff:ffff:ffff'] },
  {
    row: '2001::/23 IETF protocol assignments',
    inside: ['2001::', '2001:100::1', '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff'],
    outside: ['2001:200::', '2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  },
  {
    row: '2001::/32 Teredo',
    inside: ['2001::', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff'],
  },
  { row: '2001:1::1/128 port control protocol anycast', inside: ['2001:1::1'] },
  { row: '2001:1::2/128 TURN anycast', inside: ['2001:1::2'] },
  { row: '2001:1::3/128 DNS-SD service registration protocol anycast', inside: ['2001:1::3'] },
  { row: '2001:2::/48 benchmarking', inside: ['2001:2::', '2001:2::1', '2001:2:0:ffff:ffff:ffff:ffff:ffff'] },
  { row: '2001:3::/32 AMT', inside: ['2001:3::', '2001:3:ffff:ffff:ffff:ffff:ffff:ffff'] },
  { row: '2001:4:112::/48 AS112-v6', inside: ['2001:4:112::', '2001:4:112:ffff:ffff:ffff:ffff:ffff'] },
  { row: '2001:10::/28 deprecated ORCHID', inside: ['2001:10::', '2001:1f:ffff:ffff:ffff:ffff:ffff:ffff'] },
  { row: '2001:20::/28 ORCHIDv2', inside: ['2001:20::', '2001:2a::1', '2001:2f:ffff:ffff:ffff:ffff:ffff:ffff'] },
  {
    row: '2001:30::/28 drone remote ID protocol entity tags',
    inside: ['2001:30::', '2001:3f:ffff:ffff:ffff:ffff:ffff:ffff'],
  },
  {
    row: '2001:db8::/32 documentation',
    inside: ['2001:db8::', '2001:db8::1', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'],
    outside: ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db9::'],
  },
  {
    row: '2002::/16 6to4',
    inside: ['2002::', '2002:808:808::1', '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    outside: ['2003::'],
  },
  {
    row: '2620:4f:8000::/48 direct delegation AS112',
    inside: ['2620:4f:8000::', '2620:4f:8000::6', '2620:4f:8000:ffff:ffff:ffff:ffff:ffff'],
    outside: ['2620:4f:7fff:ffff:ffff:ffff:ffff:ffff', '2620:4f:8001::'],
  },
  {
    row: '3fff::/20 documentation',
    inside: ['3fff::', '3fff:1::1', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff'],
    outside: ['3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '3fff:1000::'],
  },
  { row: '5f00::/16 segment routing SIDs', inside: ['5f00::', '5f00:1::1', '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff'] },
  { row: 'fc00::/7 unique-local', inside: ['fc00::', 'fd00:ec2::254', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'] },
  {
    row: 'fe80::/10 link-local',
    inside: ['fe80::', 'fe80::1', 'fe80::1%eth0', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  },
  { row: 'fec0::/10 site-local (deprecated)', inside: ['fec0::', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'] },
  { row: 'ff00::/8 multicast', inside: ['ff00::', 'ff02::1', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'] },
  {
    row: 'outside 2000::/3 global unicast (IANA IPv6 address space)',
    inside: ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '4000::1', 'e000::1', '::1:0:0:1'],
    outside: ['2000::1', '3fff:ffff::1'],
  },
];

const PUBLIC = ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450::1', '[2a00:1450::1]'];

const insideCases = (rows: Row[]) => rows.flatMap((r) => r.inside.map((a) => [r.row, a] as const));
const outsideCases = (rows: Row[]) => rows.flatMap((r) => (r.outside ?? []).map((a) => [r.row, a] as const));

describe('checkAddress: IANA IPv4 Special-Purpose Address Registry', () => {
  it.each(insideCases(IPV4_ROWS))('%s: refuses %s', (_row, address) => {
    expect(checkAddress(address).allowed).toBe(false);
    expect(isPrivateLiteralHost(address)).toBe(true);
  });
  it.each(outsideCases(IPV4_ROWS))('%s ends there: allows %s', (_row, address) => {
    expect(checkAddress(address)).toEqual({ allowed: true, range: 'unicast', label: 'public' });
    expect(isPrivateLiteralHost(address)).toBe(false);
  });
});

describe('checkAddress: IANA IPv6 Special-Purpose Address Registry', () => {
  it.each(insideCases(IPV6_ROWS))('%s: refuses %s', (_row, address) => {
    expect(checkAddress(address).allowed).toBe(false);
    expect(isPrivateLiteralHost(`[${address}]`)).toBe(true);
  });
  it.each(outsideCases(IPV6_ROWS))('%s ends there: allows %s', (_row, address) => {
    expect(checkAddress(address)).toEqual({ allowed: true, range: 'unicast', label: 'public' });
    expect(isPrivateLiteralHost(`[${address}]`)).toBe(false);
  });
});

describe('checkAddress: public addresses', () => {
  it.each(PUBLIC)('allows %s', (address) => {
    expect(checkAddress(address)).toEqual({ allowed: true, range: 'unicast', label: 'public' });
    expect(isPrivateLiteralHost(address)).toBe(false);
  });

  it('refuses what is not an address at all', () => {
    expect(checkAddress('not-an-ip')).toEqual({ allowed: false, range: 'invalid', label: 'unparseable' });
    expect(checkAddress('')).toMatchObject({ allowed: false });
  });
});

/** Every IPv6 form that carries an IPv4 address, for one IPv4 address. */
export function embeddings(v4: string): [string, string, string][] {
  const o = v4.split('.').map(Number);
  const hex = (a: number, b: number) => ((a << 8) | b).toString(16);
  const hi = hex(o[0], o[1]);
  const lo = hex(o[2], o[3]);
  const inv = hex(o[2] ^ 0xff, o[3] ^ 0xff);
  return [
    ['IPv4-mapped', 'ipv4Mapped', `::ffff:${v4}`],
    ['IPv4-mapped (hex)', 'ipv4Mapped', `::ffff:${hi}:${lo}`],
    ['IPv4-compatible', 'ipv4Compatible', `::${v4}`],
    ['IPv4-compatible (hex)', 'ipv4Compatible', `::${hi}:${lo}`],
    ['IPv4-translated', 'rfc6145', `::ffff:0:${v4}`],
    ['NAT64 64:ff9b::/96', 'rfc6052', `64:ff9b::${v4}`],
    ['NAT64 local-use 64:ff9b:1::/48', 'rfc6052', `64:ff9b:1::${v4}`],
    ['6to4 2002::/16', '6to4', `2002:${hi}:${lo}::1`],
    ['Teredo 2001::/32', 'teredo', `2001:0:4136:e378:8000:63bf:${hex(o[0] ^ 0xff, o[1] ^ 0xff)}:${inv}`],
  ];
}

describe('checkAddress: IPv6 forms that carry an IPv4 address are refused, the IPv4 address named', () => {
  const cases = ['127.0.0.1', '169.254.169.254', '10.0.0.1', '8.8.8.8'].flatMap((v4) =>
    embeddings(v4).map(([form, range, literal]) => [form, v4, range, literal] as const),
  );

  it.each(cases)('%s of %s (%s): %s', (_form, v4, range, literal) => {
    const verdict = checkAddress(literal);
    expect(verdict).toMatchObject({ allowed: false, range, embedded: { address: v4, range: checkAddress(v4).range } });
    expect(verdict.label).toContain(`form of ${v4} (`);
    expect(isPrivateLiteralHost(`[${literal}]`)).toBe(true);
  });

  it('labels the form, the address inside, and what that address is', () => {
    expect(checkAddress('::a9fe:a9fe').label).toBe(
      'IPv4-compatible form of 169.254.169.254 (link-local, cloud metadata)',
    );
    expect(checkAddress('::127.0.0.1').label).toBe('IPv4-compatible form of 127.0.0.1 (loopback)');
    expect(checkAddress('::10.0.0.1').label).toBe('IPv4-compatible form of 10.0.0.1 (RFC 1918 private)');
    expect(checkAddress('2002:808:808::').label).toBe(
      '6to4 form of 8.8.8.8 (public, but IPv6 forms that carry an IPv4 address are refused)',
    );
    expect(checkAddress('2001:0:4136:e378:8000:63bf:80ff:fffe').label).toBe('Teredo form of 127.0.0.1 (loopback)');
  });

  it('keeps :: and ::1 under their own names, not as IPv4-compatible forms', () => {
    expect(checkAddress('::')).toEqual({ allowed: false, range: 'unspecified', label: 'unspecified' });
    expect(checkAddress('::1')).toEqual({ allowed: false, range: 'loopback', label: 'loopback' });
  });
});

describe('isPrivateLiteralHost: spellings', () => {
  it.each([
    ['http://0x7f.1/'],
    ['http://2130706433/'],
    ['http://0177.0.0.1/'],
    ['http://127.1/'],
    ['http://127.0.0.1./'],
    ['http://0xa9fea9fe/'],
    ['http://2852039166/'],
    ['http://0251.0376.0251.0376/'],
    ['http://012.1/'],
    ['http://[::127.0.0.1]/'],
    ['http://[::a9fe:a9fe]/'],
    ['http://[::10.0.0.1]/'],
    ['http://[0:0:0:0:0:ffff:7f00:0001]/'],
    ['http://localhost/'],
    ['http://LOCALHOST./'],
    ['http://api.localhost/'],
  ])('%s, as the URL parser normalizes it, is refused', (raw) => {
    expect(isPrivateLiteralHost(new URL(raw).hostname)).toBe(true);
  });

  it('judges raw spellings the URL parser would have normalized, and zone ids', () => {
    for (const raw of ['0x7f.1', '2130706433', '0177.0.0.1', '127.1', 'fe80::1%eth0', '[fe80::1%eth0]'])
      expect(isPrivateLiteralHost(raw)).toBe(true);
  });

  it('a zone id is not a valid URL host at all', () => {
    expect(() => new URL('http://[fe80::1%25eth0]/')).toThrow();
    expect(() => new URL('http://[fe80::1%eth0]/')).toThrow();
  });

  it('leaves names to the check after DNS', () => {
    expect(isPrivateLiteralHost('example.com')).toBe(false);
    expect(isPrivateLiteralHost('media.example.org.')).toBe(false);
  });
});
