import { describe, expect, it } from 'vitest';
import { bigIntToIpv6, canonicalIpv6, contains6, enclosingRange6, formatCidr6, ipv6ToBigInt, parseCidr6, rangeSize6 } from './ipv6.ts';

describe('ipv6', () => {
  it('converts addresses both ways in the canonical form (RFC 5952)', () => {
    expect(bigIntToIpv6(ipv6ToBigInt('2001:0DB8:0000:0000:0000:0000:0000:0001'))).toBe('2001:db8::1');
    expect(canonicalIpv6('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1');
    expect(canonicalIpv6('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1');
    expect(canonicalIpv6('::')).toBe('::');
    expect(canonicalIpv6('::ffff:127.0.0.1')).toBe('::ffff:7f00:1');
    expect(ipv6ToBigInt('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')).toBe((1n << 128n) - 1n);
  });

  it.each(['2001:db8::1::2', '127.0.0.1', '2001:db8:::1', 'g::1', ''])('rejects the address %j', (ip) => {
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
