import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses a server-side request may reach. Only globally routable unicast passes; every
 * special range (loopback, RFC 1918, link-local including the 169.254.169.254 cloud metadata service,
 * carrier-grade NAT, IPv6 unique-local, multicast, unspecified, reserved and documentation ranges) is
 * refused. IPv6 forms that carry an IPv4 address (::ffff:a.b.c.d, 64:ff9b::/96 NAT64, 2002::/16 6to4)
 * are judged by the IPv4 address inside.
 */

export interface AddressVerdict {
  allowed: boolean;
  /** The ipaddr.js range name of the address (or of the IPv4 address inside it). */
  range: string;
  /** Words for the range in error messages. */
  label: string;
}

const LABELS: Record<string, string> = {
  loopback: 'loopback',
  private: 'RFC 1918 private',
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local',
  carrierGradeNat: 'carrier-grade NAT',
  unspecified: 'unspecified',
  multicast: 'multicast',
  broadcast: 'broadcast',
  reserved: 'reserved',
  deprecatedSiteLocal: 'site-local',
};

function embeddedIPv4(addr: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const range = addr.range();
  const b = addr.toByteArray();
  if (addr.isIPv4MappedAddress() || range === 'rfc6145') return new ipaddr.IPv4(b.slice(12, 16));
  if (range === 'rfc6052') return new ipaddr.IPv4(b.slice(12, 16));
  if (range === '6to4') return new ipaddr.IPv4(b.slice(2, 6));
  return undefined;
}

export function checkAddress(address: string): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return { allowed: false, range: 'invalid', label: 'unparseable' };
  }
  if (parsed.kind() === 'ipv6') {
    const inner = embeddedIPv4(parsed as ipaddr.IPv6);
    if (inner) return checkAddress(inner.toString());
  }
  const range = parsed.range();
  if (range === 'unicast') return { allowed: true, range, label: 'public' };
  const metadata = address === '169.254.169.254' || address.toLowerCase() === 'fd00:ec2::254';
  return { allowed: false, range, label: `${LABELS[range] ?? range}${metadata ? ', cloud metadata' : ''}` };
}

/**
 * True for hosts that are an IP literal outside the public unicast space, or `localhost`: refused at
 * once, before anything is stored. Names are checked after DNS by the download itself (services/net).
 */
export function isPrivateLiteralHost(hostname: string): boolean {
  // "localhost." (a fully qualified name) is the same host.
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && !checkAddress(host).allowed;
}
