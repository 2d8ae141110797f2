import { describe, expect, it } from 'vitest';
import { benchClusterCidr, waitIdle } from './env.ts';

const subnets = (cidr: string): number => 2 ** (24 - Number(cidr.split('/')[1]));

describe('benchClusterCidr', () => {
  it('gives every node of the fleet and its arrivals a /24, with room to spare', () => {
    for (const nodes of [10, 100, 1000, 5000]) expect(subnets(benchClusterCidr(nodes))).toBeGreaterThanOrEqual(2 * nodes + 64);
    expect(benchClusterCidr(1000)).toBe('10.0.0.0/12');
  });

  it("stays inside 10.0.0.0/10, clear of the service range, and within node-ipam's 16-bit limit", () => {
    expect(benchClusterCidr(1_000_000)).toBe('10.0.0.0/10');
    expect(benchClusterCidr(1)).toBe('10.0.0.0/16');
  });
});

describe('waitIdle', () => {
  it('is true once the last activity is old enough, false when the timeout comes first', async () => {
    await expect(waitIdle(() => Date.now() - 1000, 500, 5000)).resolves.toBe(true);
    await expect(waitIdle(() => Date.now(), 500, 300)).resolves.toBe(false);
  });

  it('stops at the first failure to read the activity and rethrows it, instead of retrying until the timeout', async () => {
    // Retrying would outlast the test's own timeout (60 s against vitest's 5 s).
    await expect(
      waitIdle(
        () => {
          throw new Error('audit log shrank');
        },
        500,
        60_000,
      ),
    ).rejects.toThrow('audit log shrank');
  });
});
