import { checkAddress } from '../../../services/net';

describe('checkAddress', () => {
  it.each([['8.8.8.8'], ['93.184.216.34'], ['2606:4700:4700::1111']])('allows public %s', (ip) => {
    expect(checkAddress(ip).allowed).toBe(true);
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.5', 'private'],
    ['172.16.4.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['198.51.100.7', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['fe80::1%eth0', 'linkLocal'],
  ])('refuses %s (%s)', (ip, range) => {
    expect(checkAddress(ip)).toMatchObject({ allowed: false, range });
  });

  // IPv6 forms that carry an IPv4 address are refused as such; the address inside is named and judged.
  it.each([
    ['::ffff:127.0.0.1', 'ipv4Mapped', 'loopback'],
    ['::ffff:10.1.2.3', 'ipv4Mapped', 'private'],
    ['::ffff:169.254.169.254', 'ipv4Mapped', 'linkLocal'],
    ['64:ff9b::a00:1', 'rfc6052', 'private'], // NAT64 of 10.0.0.1
    ['2002:a00:1::', '6to4', 'private'], // 6to4 of 10.0.0.1
    ['::ffff:8.8.8.8', 'ipv4Mapped', 'unicast'],
    ['64:ff9b::808:808', 'rfc6052', 'unicast'], // NAT64 of 8.8.8.8
  ])('refuses %s (%s of a %s address)', (ip, range, inner) => {
    expect(checkAddress(ip)).toMatchObject({ allowed: false, range, embedded: { range: inner } });
  });

  it('marks the cloud metadata address in its label', () => {
    expect(checkAddress('169.254.169.254').label).toBe('link-local, cloud metadata');
  });
});
