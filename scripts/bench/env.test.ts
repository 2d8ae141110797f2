import { describe, expect, it } from 'vitest';
import { benchClusterCidr } from './env.ts';

const subnets = (cidr: string): number => 2 ** (24 - Number(cidr.split('/')[1]));

describe('benchClusterCidr', () => {
  it('gives every node of the fleet and its arrivals a /24, with room to spare', () => {
    for (const nodes of [10, 100, 1000, 5000]) expect(subnets(benchClusterCidr(nodes))).toBeGreaterThanOrEqual(2 * nodes + 64);
    expect(benchClusterCidr(1000)).toBe('10.0.0.0/12');
  });

  it('stays inside 10.0.0.0/10, clear of the service range, and within node-ipam\'s 16-bit limit', () => {
    expect(benchClusterCidr(1_000_000)).toBe('10.0.0.0/10');
    expect(benchClusterCidr(1)).toBe('10.0.0.0/16');
  });
});
