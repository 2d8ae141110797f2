import { describe, expect, it } from 'vitest';
import {
  bigIntToIpv6,
  canonicalIp,
  canonicalIpv6,
  isLoopback,
  contains6,
  enclosingRange6,
  formatCidr6,
  ipv6ToBigInt,
  isIPv4Cidr,
  parseCidr6,
  rangeSize6,
  subtractCidrs,
  blockOf,
  cidrContains,
  contains,
  formatCidr,
  hasHostBits,
  intToIp,
  ipToInt,
  isIPv4,
  nthAddress,
  overlaps,
  parseCidr,
  rangeContains,
  translateAddress,
  translateCidr,
} from './ip.ts';

describe('ipv4', () => {
  it.each(['10.0.0.0/8', '0.0.0.0/0', '127.0.0.1/32'])('takes the CIDR %j', (cidr) => {
    expect(isIPv4Cidr(cidr)).toBe(true);
  });

  it.each(['300.0.0.0/8', '10.0.0.0/33', '0x0a.0.0.0/8', '10.1/16', '10.0.0.0/'])('refuses the CIDR %j without throwing', (cidr) => {
    expect(isIPv4Cidr(cidr)).toBe(false);
  });

  it('converts addresses both ways, unsigned', () => {
    expect(intToIp(ipToInt('255.1.2.3'))).toBe('255.1.2.3');
    expect(ipToInt('255.255.255.255')).toBe(2 ** 32 - 1);
    expect(intToIp(ipToInt('127.0.200.8'))).toBe('127.0.200.8');
  });

  it.each(['1.2.3', '1.2.3.4.5', '256.1.1.1', '01.2.3.4', '1.2.3.-4', 'a.b.c.d', '', '0x7f.0.0.1', '127.1'])('rejects the address %j', (ip) => {
    expect(isIPv4(ip)).toBe(false);
    expect(() => ipToInt(ip)).toThrow('not an IPv4 address');
  });

  it.each(['10.0.0.0/33', '10.0.0.0/', '10.0.0.0', '10.0.0.0/8/8', '10.0.0.0/-1'])('rejects the CIDR %j', (cidr) => {
    expect(() => parseCidr(cidr)).toThrow();
  });

  it('converts and compares ranges', () => {
    expect(formatCidr(parseCidr('10.1.2.3/16'))).toBe('10.1.0.0/16');
    expect(hasHostBits('10.1.2.3/16')).toBe(true);
    expect(hasHostBits('10.1.0.0/16')).toBe(false);
    expect(contains(parseCidr('127.0.64.0/18'), '127.0.127.255')).toBe(true);
    expect(contains(parseCidr('127.0.64.0/18'), '127.0.128.0')).toBe(false);
    expect(overlaps(parseCidr('10.0.0.0/8'), parseCidr('10.2.0.0/24'))).toBe(true);
    expect(overlaps(parseCidr('10.0.0.0/24'), parseCidr('10.0.1.0/24'))).toBe(false);
    expect(rangeContains(parseCidr('10.0.0.0/8'), parseCidr('10.2.0.0/24'))).toBe(true);
    expect(rangeContains(parseCidr('10.2.0.0/24'), parseCidr('10.0.0.0/8'))).toBe(false);
  });

  it('gives the third address of a /29 as the VIP and tests membership', () => {
    expect(nthAddress('127.0.200.8/29', 2)).toBe('127.0.200.10');
    expect(nthAddress('127.0.200.13/29', 2)).toBe('127.0.200.10');
    expect(cidrContains('10.244.0.0/16', '10.244.3.1')).toBe(true);
    expect(cidrContains('10.244.0.0/16', '10.245.0.0')).toBe(false);
    expect(cidrContains('0.0.0.0/0', '8.8.8.8')).toBe(true);
  });

  it('translates between two blocks at the same offset, both ways, and nothing outside', () => {
    const loop = parseCidr('127.19.0.0/17');
    const shown = parseCidr('192.168.128.0/17');
    expect(translateAddress('127.19.3.7', loop, shown)).toBe('192.168.131.7');
    expect(translateAddress('192.168.131.7', shown, loop)).toBe('127.19.3.7');
    expect(translateAddress('127.19.200.1', loop, shown)).toBeUndefined();
    expect(translateAddress('127.19.3.7', parseCidr('127.19.0.0/16'), parseCidr('192.168.128.0/17'))).toBe('192.168.131.7');
    expect(translateAddress('127.19.130.7', parseCidr('127.19.0.0/16'), parseCidr('192.168.128.0/17'))).toBeUndefined();
    expect(translateCidr('127.19.4.0/24', loop, shown)).toBe('192.168.132.0/24');
    expect(translateCidr('127.0.0.0/8', loop, shown)).toBeUndefined();
    expect(translateCidr('127.19.0.0/16', parseCidr('127.19.0.0/16'), parseCidr('10.0.0.0/16'))).toBe('10.0.0.0/16');
    expect(blockOf('127.19.3.7', 16)).toEqual(parseCidr('127.19.0.0/16'));
  });

  it('subtracts CIDR lists into the fewest CIDRs, covering exactly what is left', () => {
    const rest = subtractCidrs(['0.0.0.0/0'], ['8.8.8.8/32']);
    expect(rest).toHaveLength(32);
    expect(rest.some((c) => cidrContains(c, '8.8.8.8'))).toBe(false);
    for (const ip of ['0.0.0.0', '8.8.8.7', '8.8.8.9', '127.0.0.1', '255.255.255.255']) expect(rest.some((c) => cidrContains(c, ip))).toBe(true);
    expect(subtractCidrs(['127.0.0.0/8'], ['127.0.0.0/9', '127.128.0.0/9'])).toEqual([]);
    expect(subtractCidrs(['10.0.0.0/24'], [])).toEqual(['10.0.0.0/24']);
    expect(subtractCidrs(['10.0.0.0/30', '10.0.0.4/30'], ['10.0.0.2/31'])).toEqual(['10.0.0.0/31', '10.0.0.4/30']);
    expect(subtractCidrs(['8.8.8.8/32'], ['8.8.8.0/24'])).toEqual([]);
  });
});

describe('ipv6', () => {
  it('converts addresses both ways in the canonical form (RFC 5952)', () => {
    expect(bigIntToIpv6(ipv6ToBigInt('2001:0DB8:0000:0000:0000:0000:0000:0001'))).toBe('2001:db8::1');
    expect(canonicalIpv6('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1');
    expect(canonicalIpv6('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1');
    expect(canonicalIpv6('::')).toBe('::');
    expect(canonicalIpv6('::ffff:127.0.0.1')).toBe('::ffff:7f00:1');
    expect(ipv6ToBigInt('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')).toBe((1n << 128n) - 1n);
  });

  it.each(['2001:db8::1::2', '127.0.0.1', '2001:db8:::1', 'g::1', '', 'fe80::1%eth0'])('rejects the address %j', (ip) => {
    expect(() => ipv6ToBigInt(ip)).toThrow('not an IPv6 address');
  });

  it.each(['2001:db8::/129', '2001:db8::', '2001:db8::/64/1', '2001:db8::/x'])('rejects the CIDR %j', (cidr) => {
    expect(() => parseCidr6(cidr)).toThrow();
  });

  it('handles ranges', () => {
    expect(formatCidr6(parseCidr6('2001:db8:1:5::1/64'))).toBe('2001:db8:1:5::/64');
    expect(formatCidr6(enclosingRange6('2001:db8:1:5::1', 64))).toBe('2001:db8:1:5::/64');
    expect(rangeSize6(parseCidr6('2001:db8::/120'))).toBe(256n);
    expect(contains6(parseCidr6('2001:db8:1::/48'), '2001:db8:1:ffff::9')).toBe(true);
    expect(contains6(parseCidr6('2001:db8:1::/48'), '2001:db8:2::')).toBe(false);
  });
});

describe('either family', () => {
  it('recognises loopback addresses in both families, and nothing that is no address', () => {
    expect(['127.255.0.1', '::1', '::ffff:127.0.0.1', '10.0.0.1', '2001:db8::1', 'x', ''].map(isLoopback)).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });

  it('gives one text per address: IPv4-mapped IPv6 as IPv4, IPv6 shortened', () => {
    expect(['::ffff:10.0.0.5', '2001:0db8:0:0:0:0:0:1', '127.0.0.1'].map(canonicalIp)).toEqual(['10.0.0.5', '2001:db8::1', '127.0.0.1']);
  });
});
