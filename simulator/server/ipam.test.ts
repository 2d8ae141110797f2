import { describe, expect, it } from 'vitest';
import { formatCidr, parseCidr } from '../../lib/ip.ts';
import { firstFree, firstFreeRange, firstFreeV6, isLocalAddress } from './ipam.ts';

describe('ipam', () => {
  it('allocates the first free host, skipping network, gateway and broadcast', () => {
    expect(firstFree('10.0.0.0/30', () => false)).toBe('10.0.0.1');
    expect(firstFree('10.0.0.0/30', () => false, true)).toBe('10.0.0.2');
    expect(firstFree('10.0.0.0/30', (ip) => ip === '10.0.0.2', true)).toBeNull();
  });

  it('starts the search at `from` and wraps around (next-fit)', () => {
    expect(firstFree('10.0.0.0/29', () => false, false, 3)).toBe('10.0.0.3');
    expect(firstFree('10.0.0.0/29', (ip) => ip >= '10.0.0.3', false, 3)).toBe('10.0.0.1');
    expect(firstFree('10.0.0.0/29', () => false, false, 7)).toBe('10.0.0.1');
    const taken = [parseCidr('127.2.0.0/29')];
    expect(formatCidr(firstFreeRange('127.2.0.0/27', 29, taken, parseCidr('127.2.0.16/32').base)!)).toBe('127.2.0.16/29');
    expect(formatCidr(firstFreeRange('127.2.0.0/27', 29, [...taken, parseCidr('127.2.0.24/29')], parseCidr('127.2.0.24/32').base)!)).toBe('127.2.0.8/29');
  });

  it('hands out IPv6 as one /64 per holder or one address each, from ::1', () => {
    const used = new Set(['2001:db8:1::1', '2001:db8:1:1::1']);
    expect(firstFreeV6('2001:db8:1::/48', 64, (ip) => used.has(ip))).toBe('2001:db8:1:2::1');
    expect(firstFreeV6('2001:db8:2::/64', 128, (ip) => ip === '2001:db8:2::1')).toBe('2001:db8:2::2');
    expect(firstFreeV6('2001:db8:2::/127', 128, (ip) => ip === '2001:db8:2::1')).toBeNull();
    expect(firstFreeV6('2001:db8:2::/64', 64, (ip) => ip === '2001:db8:2::1')).toBeNull();
  });

  it('tells local addresses (traffic allowed) from the rest', () => {
    for (const ip of ['127.1.0.1', '10.1.2.3', '172.18.0.2', '192.168.56.10']) expect(isLocalAddress(ip), ip).toBe(true);
    for (const ip of ['8.8.8.8', '172.32.0.1', '1.1.1.1']) expect(isLocalAddress(ip), ip).toBe(false);
  });

  it('carves the first free sub-range', () => {
    const taken = [parseCidr('127.2.0.0/29'), parseCidr('127.2.0.16/29')];
    expect(formatCidr(firstFreeRange('127.2.0.0/27', 29, taken)!)).toBe('127.2.0.8/29');
    expect(firstFreeRange('127.2.0.0/29', 29, taken)).toBeNull();
  });
});
