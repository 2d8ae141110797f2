import { describe, expect, it } from 'vitest';
import { FaultEngine, globToRegExp, resourceTypeOfPath } from './faults.ts';

const facts = (over: Partial<Parameters<FaultEngine['fire']>[1]> = {}) => ({
  method: 'GET',
  path: '/v1/servers/srv-1',
  resourceType: resourceTypeOfPath('/v1/servers/srv-1'),
  tokenId: 'tok-1',
  labels: () => ({ chaos: 'true' }),
  ...over,
});

describe('FaultEngine', () => {
  it('matches path globs', () => {
    expect(globToRegExp('/v1/servers/*').test('/v1/servers/srv-1')).toBe(true);
    expect(globToRegExp('/v1/servers/*').test('/v1/servers/srv-1/actions/poweron')).toBe(false);
    expect(globToRegExp('/v1/**').test('/v1/servers/srv-1/actions/poweron')).toBe(true);
  });

  it('fires by method, path, type, token and label, with count and probability', () => {
    let r = 0.9;
    const f = new FaultEngine({ now: () => 0, random: () => r, newId: () => 'flt-1' });
    f.add({
      kind: 'error',
      status: 503,
      code: 'service_unavailable',
      count: 1,
      match: { method: 'get', path: '/v1/servers/*', resource_type: 'server', token: 'tok-1', label: 'chaos=true' },
    });
    expect(f.fire('error', facts({ tokenId: 'tok-2' }))).toHaveLength(0);
    expect(f.fire('error', facts({ labels: () => ({}) }))).toHaveLength(0);
    expect(f.fire('error', facts())).toHaveLength(1);
    expect(f.fire('error', facts())).toHaveLength(0);
    f.clear();
    f.add({ kind: 'latency', latency_ms: 1, probability: 0.5 });
    expect(f.fire('latency', facts())).toHaveLength(0);
    r = 0.1;
    expect(f.fire('latency', facts())).toHaveLength(1);
  });

  it('keeps per-token budgets in fixed windows', () => {
    let now = 0;
    const f = new FaultEngine({ now: () => now, newId: () => 'flt-1' });
    f.add({ kind: 'rate_limit', limit: 2, window_seconds: 10 });
    expect(f.consumeBudget(facts())!.remaining).toBe(1);
    expect(f.consumeBudget(facts())!.remaining).toBe(0);
    expect(f.consumeBudget(facts())).toMatchObject({ remaining: -1, resetSeconds: 10 });
    expect(f.consumeBudget(facts({ tokenId: 'tok-2' }))!.remaining).toBe(1);
    now = 10_000;
    expect(f.consumeBudget(facts())!.remaining).toBe(1);
  });

  it('reports hidden windows and stuck transitions', () => {
    const f = new FaultEngine({ now: () => 0, newId: () => 'flt-1' });
    f.add({ kind: 'eventual_consistency', hide_seconds: 5, match: { resource_type: 'server' } });
    f.add({ kind: 'stuck_transition', match: { resource_type: 'load_balancer', label: 'stuck=yes' } });
    expect(f.hiddenForMs('server')).toBe(5000);
    expect(f.hiddenForMs('network')).toBe(0);
    expect(f.isStuck('load_balancer', { stuck: 'yes' })).toBe(true);
    expect(f.isStuck('load_balancer', {})).toBe(false);
  });
});
