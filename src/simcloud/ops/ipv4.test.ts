import { describe, expect, it } from 'vitest';
import { cidrContains, intToIp, ipToInt, nthAddress } from './ipv4.ts';

describe('ipv4', () => {
  it('converts addresses both ways', () => {
    expect(intToIp(ipToInt('127.0.200.8'))).toBe('127.0.200.8');
    expect(() => ipToInt('1.2.3')).toThrow();
  });
  it('gives the third address of a /29 as the VIP', () => {
    expect(nthAddress('127.0.200.8/29', 2)).toBe('127.0.200.10');
    expect(nthAddress('127.0.200.13/29', 2)).toBe('127.0.200.10');
  });
  it('tests membership', () => {
    expect(cidrContains('10.244.0.0/16', '10.244.3.1')).toBe(true);
    expect(cidrContains('10.244.0.0/16', '10.245.0.0')).toBe(false);
    expect(cidrContains('0.0.0.0/0', '8.8.8.8')).toBe(true);
  });
});
