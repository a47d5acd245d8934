import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses a server-side request may reach: global unicast only, as IANA's registries define
 * it. An address is refused when
 *  - ipaddr.js names a special range for it (its `range()` is anything but "unicast"; ipaddr.js 2.5.0
 *    carries every row of the IANA IPv4 Special-Purpose Address Registry, plus multicast 224/4, and
 *    every row of the IPv6 one but 100:0:0:1::/64, plus ff00::/8 multicast and fec0::/10 site-local), or
 *  - it falls under a row of OWN_RANGES below (what ipaddr.js misses), or
 *  - it is IPv6 outside 2000::/3, the only block the IANA IPv6 Address Space registry marks Global
 *    Unicast (this also catches whatever is carved out of the reserved space later).
 *
 * IPv6 forms that carry an IPv4 address are refused whatever that address is: IPv4-mapped
 * ::ffff:0:0/96, IPv4-translated ::ffff:0:0:0/96, IPv4-compatible ::/96 (deprecated, RFC 4291
 * §2.5.5.1), NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16 and Teredo 2001::/32. The registries
 * mark these "not globally reachable" (or "N/A" for 6to4/Teredo, whose reachability is that of a relay),
 * and a server that dials one reaches the embedded IPv4 host through the kernel or a translator, out of
 * sight of the IPv4 check. The embedded address is still extracted and judged, so the message says what
 * it was (e.g. "IPv4-compatible form of 127.0.0.1 (loopback)"). Consequence: on an IPv6-only network
 * behind DNS64/NAT64, names that resolve only to 64:ff9b::/96 answers are refused; such a deployment
 * must pass the translator's exact addresses in allowedPrivateAddresses or run with a dual stack.
 */

export interface AddressVerdict {
  allowed: boolean;
  /** The ipaddr.js range name of the address, or the name of the OWN_RANGES row it falls under. */
  range: string;
  /** Words for the range in error messages. */
  label: string;
  /** For an IPv6 form that carries an IPv4 address: that address and its own verdict (the form is refused regardless). */
  embedded?: { address: string; range: string; label: string };
}

type Rule = 'refuse-inside' | 'refuse-outside';

interface OwnRange {
  cidr: string;
  rule: Rule;
  range: string;
  label: string;
  /** The registry entry (or RFC, where IANA lists none) the row comes from. */
  source: string;
}

/**
 * Our own range data: only what ipaddr.js 2.5.0's `range()` does not name. One table, checked in order
 * after ipaddr.js (so ::, ::1 keep their own names before ::/96 applies).
 */
const OWN_RANGES: readonly OwnRange[] = [
  {
    cidr: '::/96',
    rule: 'refuse-inside',
    range: 'ipv4Compatible',
    label: 'IPv4-compatible',
    source:
      'RFC 4291 §2.5.5.1 "IPv4-Compatible IPv6 Address" (deprecated); inside ::/8 "Reserved by IETF", IANA IPv6 Address Space registry',
  },
  {
    cidr: '100:0:0:1::/64',
    rule: 'refuse-inside',
    range: 'dummyPrefix',
    label: 'dummy IPv6 prefix',
    source:
      'IANA IPv6 Special-Purpose Address Registry, 100:0:0:1::/64 "Dummy IPv6 Prefix" (RFC 9780), globally reachable: false',
  },
  {
    cidr: '2000::/3',
    rule: 'refuse-outside',
    range: 'notGlobalUnicast',
    label: 'outside the IPv6 global unicast space 2000::/3',
    source:
      'IANA IPv6 Address Space registry, 2000::/3 "Global Unicast" (RFC 3513, RFC 4291): the only block allocated as global unicast',
  },
];

const OWN_PARSED = OWN_RANGES.map((row) => ({ ...row, net: ipaddr.parseCIDR(row.cidr) as [ipaddr.IPv6, number] }));

const LABELS: Record<string, string> = {
  // IPv4 (ipaddr.js names)
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'RFC 1918 private',
  reserved: 'reserved',
  as112: 'AS112 DNS',
  amt: 'AMT',
  // IPv6 (ipaddr.js names)
  uniqueLocal: 'unique-local',
  ipv4Mapped: 'IPv4-mapped',
  deprecatedSiteLocal: 'site-local',
  discard: 'discard-only',
  rfc6145: 'IPv4-translated',
  rfc6052: 'NAT64',
  '6to4': '6to4',
  teredo: 'Teredo',
  benchmarking: 'benchmarking',
  as112v6: 'AS112 DNS',
  deprecatedOrchid: 'ORCHID',
  orchid2: 'ORCHIDv2',
  droneRemoteIdProtocolEntityTags: 'drone remote ID',
  segmentRouting: 'SRv6 SIDs',
};

/**
 * Where the IPv4 address sits in each IPv6 form that carries one (byte offsets into the 16 bytes).
 * NAT64: the /96 layout of RFC 6052 §2.2, also for the local-use 64:ff9b:1::/48 (RFC 8215), whose
 * operators pick the prefix length: the form is refused whichever layout, the extraction only names it.
 * Teredo (RFC 4380 §4): the client's address, bit-inverted, in the last 32 bits.
 */
const EMBEDDINGS: Record<string, (b: number[]) => number[]> = {
  ipv4Mapped: (b) => b.slice(12, 16), // ::ffff:a.b.c.d, RFC 4291 §2.5.5.2
  rfc6145: (b) => b.slice(12, 16), // ::ffff:0:a.b.c.d, RFC 6145 / RFC 7915
  ipv4Compatible: (b) => b.slice(12, 16), // ::a.b.c.d, RFC 4291 §2.5.5.1
  rfc6052: (b) => b.slice(12, 16), // 64:ff9b::a.b.c.d, RFC 6052 §2.2
  '6to4': (b) => b.slice(2, 6), // 2002:AABB:CCDD::/48, RFC 3056 §2
  teredo: (b) => b.slice(12, 16).map((x) => x ^ 0xff),
};

const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);

/**
 * The address as the kernel would dial it. IPv6 text goes through the WHATWG URL parser first (the one
 * that produced the hostname): ipaddr.js reads "::a.b.c.d" as ::ffff:a.b.c.d, IPv4-mapped, where every
 * other parser (and the socket) reads the IPv4-compatible ::a.b.c.d; the URL parser writes it in hex.
 */
function parse(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = address
    .trim()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '');
  try {
    if (isIP(bare) === 6) return ipaddr.IPv6.parse(new URL(`http://[${bare}]/`).hostname.replace(/^\[|\]$/g, ''));
    return ipaddr.parse(bare);
  } catch {
    return undefined;
  }
}

function rangeOf(addr: ipaddr.IPv4 | ipaddr.IPv6): { range: string; label: string } {
  const range = addr.range();
  if (range !== 'unicast') return { range, label: LABELS[range] ?? range };
  if (addr.kind() === 'ipv6') {
    for (const row of OWN_PARSED) {
      const inside = (addr as ipaddr.IPv6).match(row.net);
      if (row.rule === 'refuse-inside' ? inside : !inside) return { range: row.range, label: row.label };
    }
  }
  return { range: 'unicast', label: 'public' };
}

/** The verdict on one IP address (v4 or v6, with or without brackets or a zone id). */
export function checkAddress(address: string): AddressVerdict {
  const parsed = parse(address);
  if (!parsed) return { allowed: false, range: 'invalid', label: 'unparseable' };
  const { range, label } = rangeOf(parsed);
  const metadata = METADATA.has(parsed.toString()) ? ', cloud metadata' : '';
  const extract = parsed.kind() === 'ipv6' ? EMBEDDINGS[range] : undefined;
  if (extract) {
    const inner = new ipaddr.IPv4(extract((parsed as ipaddr.IPv6).toByteArray()));
    const verdict = checkAddress(inner.toString());
    const why = verdict.allowed ? 'public, but IPv6 forms that carry an IPv4 address are refused' : verdict.label;
    return {
      allowed: false,
      range,
      label: `${label} form of ${inner.toString()} (${why})`,
      embedded: { address: inner.toString(), range: verdict.range, label: verdict.label },
    };
  }
  if (range === 'unicast') return { allowed: true, range, label };
  return { allowed: false, range, label: `${label}${metadata}` };
}

/**
 * True for hosts that are an IP literal outside the public unicast space, or `localhost`: refused at
 * once, before anything is stored. Names are checked after DNS by the download itself (services/net).
 * Hosts from `new URL()` are already normalized (0x7f.1, 2130706433, 0177.0.0.1 and 127.1 all become
 * 127.0.0.1; an IPv6 literal keeps its brackets and cannot carry a zone id); other spellings that
 * ipaddr.js reads as an address are judged as that address.
 */
export function isPrivateLiteralHost(hostname: string): boolean {
  // "localhost." (a fully qualified name) is the same host.
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
    .toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 0 && !ipaddr.isValid(host.replace(/%.*$/, ''))) return false;
  return !checkAddress(host).allowed;
}
