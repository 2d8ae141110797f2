import { describe, expect, it } from 'vitest';
import type { DataPlaneListener, DataPlaneLoadBalancer } from './types.ts';
import { addressProblem, isPort, validateLoadBalancer } from './validate.ts';

const listener = (listenPort: number, over: Partial<DataPlaneListener> = {}): DataPlaneListener => ({
  protocol: 'tcp',
  listenPort,
  destinationPort: 8080,
  proxyProtocol: 'none',
  healthCheck: { protocol: 'tcp', port: null, path: '/', intervalMs: 100, timeoutMs: 50, retries: 2 },
  ...over,
});

const lb = (over: Partial<DataPlaneLoadBalancer> = {}): DataPlaneLoadBalancer => ({
  id: 'lb',
  vip: '127.1.0.1',
  algorithm: 'round_robin',
  sessionAffinity: 'none',
  allowedSourceCidrs: null,
  listeners: [listener(80)],
  targets: [{ id: 'a', ip: '127.2.0.1' }],
  ...over,
});

describe('validateLoadBalancer', () => {
  it('passes a valid LB through', () => {
    expect(validateLoadBalancer(lb(), true)).toEqual({ listeners: [listener(80)], targets: [{ id: 'a', ip: '127.2.0.1' }], issues: [] });
  });

  it('rejects every listener of an LB whose VIP is unusable', () => {
    expect(validateLoadBalancer(lb({ vip: 'example.com' }), true).issues).toEqual([{ listenPort: 80, message: 'VIP "example.com" is not an IP address' }]);
    expect(validateLoadBalancer(lb({ vip: '192.0.2.1' }), true).listeners).toEqual([]);
    expect(validateLoadBalancer(lb({ vip: '192.0.2.1' }), false).issues).toEqual([]);
  });

  it('reports bad and duplicate ports per listener and keeps the rest', () => {
    const out = validateLoadBalancer(
      lb({
        listeners: [
          listener(80),
          listener(80),
          listener(0),
          listener(81, { destinationPort: 70000 }),
          listener(82, { healthCheck: { ...listener(1).healthCheck, port: 1.5 } }),
          listener(83),
        ],
      }),
      true,
    );
    expect(out.listeners.map((l) => l.listenPort)).toEqual([80, 83]);
    expect(out.issues.map((i) => i.message)).toEqual([
      'duplicate listen port 80',
      'invalid listen port 0',
      'invalid destination port 70000',
      'invalid health check port 1.5',
    ]);
  });

  it('skips non-loopback or non-IP targets, reporting them on each valid listener, and dedupes ids', () => {
    const out = validateLoadBalancer(
      lb({
        listeners: [listener(80), listener(81)],
        targets: [
          { id: 'a', ip: '127.2.0.1' },
          { id: 'a', ip: '127.2.0.9' },
          { id: 'b', ip: '10.0.0.1' },
          { id: 'c', ip: 'host' },
        ],
      }),
      true,
    );
    expect(out.targets).toEqual([{ id: 'a', ip: '127.2.0.1' }]);
    expect(out.issues).toHaveLength(4);
    expect(out.issues[0]).toEqual({ listenPort: 80, message: 'target b skipped: 10.0.0.1 is not a loopback address' });
  });
});

describe('address helpers', () => {
  it('takes loopback addresses in both families where only loopback may be used', () => {
    expect(addressProblem('::1', true)).toBeNull();
    expect(addressProblem('10.0.0.1', true)).toBe('10.0.0.1 is not a loopback address');
    expect([isPort(1), isPort(65535), isPort(65536), isPort('80')]).toEqual([true, true, false, false]);
  });
});
