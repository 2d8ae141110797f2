import { describe, expect, it } from 'vitest';
import { Balancer, hash32, pickByAffinity, type Candidate } from './balancer.ts';

const targets = (...ids: string[]): Candidate[] => ids.map((id) => ({ id, activeConnections: 0 }));

describe('Balancer round robin', () => {
  it('cycles through the candidates in order', () => {
    const b = new Balancer({ algorithm: 'round_robin', sessionAffinity: 'none' });
    const picks = Array.from({ length: 6 }, () => b.pick(targets('a', 'b', 'c'), '127.0.0.1'));
    expect(picks).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('returns null without candidates and keeps spreading when the set shrinks', () => {
    const b = new Balancer({ algorithm: 'round_robin', sessionAffinity: 'none' });
    expect(b.pick([], '127.0.0.1')).toBeNull();
    const picks = new Set(Array.from({ length: 4 }, () => b.pick(targets('a', 'c'), '127.0.0.1')));
    expect(picks).toEqual(new Set(['a', 'c']));
  });
});

describe('Balancer least connections', () => {
  it('picks the target with the fewest active connections', () => {
    const b = new Balancer({ algorithm: 'least_connections', sessionAffinity: 'none' });
    const c = [
      { id: 'a', activeConnections: 3 },
      { id: 'b', activeConnections: 1 },
      { id: 'c', activeConnections: 2 },
    ];
    expect(b.pick(c, '127.0.0.1')).toBe('b');
  });

  it('rotates among ties', () => {
    const b = new Balancer({ algorithm: 'least_connections', sessionAffinity: 'none' });
    const c = [
      { id: 'a', activeConnections: 0 },
      { id: 'b', activeConnections: 5 },
      { id: 'c', activeConnections: 0 },
    ];
    expect([b.pick(c, 'x'), b.pick(c, 'x'), b.pick(c, 'x')]).toEqual(['a', 'c', 'a']);
  });

  it('switches policy in place', () => {
    const b = new Balancer({ algorithm: 'round_robin', sessionAffinity: 'none' });
    b.setPolicy({ algorithm: 'least_connections', sessionAffinity: 'none' });
    expect(b.policy.algorithm).toBe('least_connections');
    expect(
      b.pick(
        [
          { id: 'a', activeConnections: 1 },
          { id: 'b', activeConnections: 0 },
        ],
        'x',
      ),
    ).toBe('b');
  });
});

describe('source IP affinity', () => {
  const ips = Array.from({ length: 200 }, (_, i) => `127.3.${i >> 4}.${i & 15}`);

  it('pins a client to one target regardless of the algorithm cursor', () => {
    const b = new Balancer({ algorithm: 'round_robin', sessionAffinity: 'source_ip' });
    for (const ip of ips.slice(0, 20)) {
      const first = b.pick(targets('a', 'b', 'c'), ip);
      expect([b.pick(targets('c', 'b', 'a'), ip), b.pick(targets('a', 'b', 'c'), ip)]).toEqual([first, first]);
    }
  });

  it('spreads clients and moves only those of a removed target', () => {
    const before = new Map(ips.map((ip) => [ip, pickByAffinity(targets('a', 'b', 'c'), ip)?.id]));
    const counts = new Map<string, number>();
    for (const id of before.values()) counts.set(id!, (counts.get(id!) ?? 0) + 1);
    expect([...counts.values()].every((n) => n > 30)).toBe(true);
    for (const ip of ips) {
      const after = pickByAffinity(targets('a', 'c'), ip)?.id;
      if (before.get(ip) !== 'b') expect(after).toBe(before.get(ip));
    }
  });

  it('hash32 is stable and unsigned', () => {
    expect(hash32('abc')).toBe(hash32('abc'));
    expect(hash32('abc')).not.toBe(hash32('abd'));
    expect(hash32('')).toBeGreaterThanOrEqual(0);
  });
});
