import { describe, expect, it } from 'vitest';
import { healthz, type HealthCheck } from './serving.ts';

describe('healthz', () => {
  const checks = new Map<string, HealthCheck>([
    ['cloud-node-controller', () => undefined],
    ['leaderElection', () => 'lease not renewed for 31s'],
  ]);

  it('aggregates like upstream: failed checks listed, reason withheld', () => {
    expect(healthz(checks, undefined)).toEqual({
      status: 500,
      body: '[+]cloud-node-controller ok\n[-]leaderElection failed: reason withheld\nhealthz check failed\n',
    });
    expect(healthz(new Map([['a', () => undefined]]), undefined)).toEqual({ status: 200, body: 'ok' });
  });

  it('serves one check at /healthz/<name>', () => {
    expect(healthz(checks, 'cloud-node-controller')).toEqual({ status: 200, body: 'ok' });
    expect(healthz(checks, 'leaderElection').status).toBe(500);
    expect(healthz(checks, 'nope').status).toBe(404);
  });
});
