import { describe, expect, it } from 'vitest';
import { CreateServiceBody, FaultBody, faultRule, ServerActionBody } from './actions.ts';

describe('action bodies', () => {
  it('names the field of a bad server action', () => {
    const r = ServerActionBody.safeParse({ serverId: 'nope', action: 'poweroff' });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['serverId']);
  });

  it("checks annotations with the registry's parser and refuses unknown keys", () => {
    expect(CreateServiceBody.safeParse({ name: 'web', annotations: { 'loadbalancer.simcloud.dev/proxy-protocol': 'v1' } }).success).toBe(true);
    const bad = CreateServiceBody.safeParse({ name: 'web', annotations: { 'loadbalancer.simcloud.dev/proxy-protocol': 'v9' } });
    expect(bad.error!.issues[0]).toMatchObject({ path: ['annotations', 'loadbalancer.simcloud.dev/proxy-protocol'], message: 'must be one of: none, v1, v2' });
    const unknown = CreateServiceBody.safeParse({ name: 'web', annotations: { 'loadbalancer.simcloud.dev/typo': 'x' } });
    expect(unknown.error!.issues[0]!.message).toContain('unknown annotation');
  });

  it('turns each fault kind into a simcloud rule on the chosen paths', () => {
    expect(faultRule(FaultBody.parse({ kind: 'latency', latencyMs: 300 }))).toEqual({ kind: 'latency', match: { path: '/v1/**' }, latency_ms: 300 });
    expect(faultRule(FaultBody.parse({ kind: 'error', scope: 'servers', probability: 0.5 }))).toMatchObject({
      kind: 'error',
      status: 503,
      code: 'service_unavailable',
      match: { path: '/v1/servers/**' },
    });
    expect(faultRule(FaultBody.parse({ kind: 'rate_limit', limit: 5, windowSeconds: 10 }))).toMatchObject({ kind: 'rate_limit', limit: 5, window_seconds: 10 });
    expect(FaultBody.safeParse({ kind: 'latency', latencyMs: 0 }).error!.issues[0]!.path).toEqual(['latencyMs']);
  });
});
