import { describe, expect, it } from 'vitest';
import { formatCidr, parseCidr } from '../../lib/ipv4.ts';
import { firstFree, firstFreeRange, isLocalAddress } from './ipam.ts';

describe('ipam', () => {
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
