import { describe, expect, it } from 'vitest';
import { contains, firstFree, firstFreeRange, formatCidr, hasHostBits, intToIp, ipToInt, isLocalAddress, overlaps, parseCidr } from './ipam.ts';

describe('ipam', () => {
  it('converts and compares ranges', () => {
    expect(intToIp(ipToInt('255.1.2.3'))).toBe('255.1.2.3');
    expect(formatCidr(parseCidr('10.1.2.3/16'))).toBe('10.1.0.0/16');
    expect(hasHostBits('10.1.2.3/16')).toBe(true);
    expect(contains(parseCidr('127.0.64.0/18'), '127.0.127.255')).toBe(true);
    expect(contains(parseCidr('127.0.64.0/18'), '127.0.128.0')).toBe(false);
    expect(overlaps(parseCidr('10.0.0.0/8'), parseCidr('10.2.0.0/24'))).toBe(true);
    expect(overlaps(parseCidr('10.0.0.0/24'), parseCidr('10.0.1.0/24'))).toBe(false);
  });

  it('allocates the first free host, skipping network, gateway and broadcast', () => {
    expect(firstFree('10.0.0.0/30', () => false)).toBe('10.0.0.1');
    expect(firstFree('10.0.0.0/30', () => false, true)).toBe('10.0.0.2');
    expect(firstFree('10.0.0.0/30', (ip) => ip === '10.0.0.2', true)).toBeNull();
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
