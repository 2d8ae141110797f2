import type { V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_PREFIX, loadBalancerConfigOf } from '../annotations.ts';
import { InvalidServiceError, diffByKey, diffIds, planLoadBalancer, sameJson, sourceRangesOf } from './plan.ts';

function service(over: { annotations?: Record<string, string>; spec?: Partial<NonNullable<V1Service['spec']>> } = {}): V1Service {
  return {
    metadata: { name: 'web', namespace: 'shop', uid: '0b8c6f4e-1a2b-4c3d-9e8f-001122334455', annotations: over.annotations ?? {} },
    spec: {
      type: 'LoadBalancer',
      ports: [
        { name: 'http', port: 80, protocol: 'TCP', nodePort: 30080 },
        { name: 'https', port: 443, protocol: 'TCP', nodePort: 30443 },
      ],
      ...over.spec,
    },
  };
}

const plan = (svc: V1Service) => planLoadBalancer(svc, loadBalancerConfigOf(svc.metadata?.annotations));

describe('planLoadBalancer', () => {
  it('makes one tcp listener per port to its node port, with tcp health checks on the node port', () => {
    const p = plan(service());
    expect(p.listeners).toEqual([
      {
        protocol: 'tcp',
        listenPort: 80,
        destinationPort: 30080,
        proxyProtocol: 'none',
        healthCheck: { protocol: 'tcp', port: 30080, path: '/', intervalSeconds: 10, timeoutSeconds: 5, retries: 3 },
      },
      {
        protocol: 'tcp',
        listenPort: 443,
        destinationPort: 30443,
        proxyProtocol: 'none',
        healthCheck: { protocol: 'tcp', port: 30443, path: '/', intervalSeconds: 10, timeoutSeconds: 5, retries: 3 },
      },
    ]);
    expect(p.algorithm).toBe('round_robin');
    expect(p.sessionAffinity).toBe('none');
    expect(p.requestedIp).toBeUndefined();
  });

  it('opens one firewall rule per node port to the source ranges (0.0.0.0/0 by default)', () => {
    expect(plan(service()).firewallRules).toEqual([
      { protocol: 'tcp', port: 30080, sourceCidrs: ['0.0.0.0/0'] },
      { protocol: 'tcp', port: 30443, sourceCidrs: ['0.0.0.0/0'] },
    ]);
    const ranged = plan(service({ spec: { loadBalancerSourceRanges: ['10.0.0.0/8', ' 192.168.1.0/24'] } }));
    expect(ranged.firewallRules[0]?.sourceCidrs).toEqual(['10.0.0.0/8', '192.168.1.0/24']);
  });

  it('applies annotations, per-port overrides, affinity and the requested IP', () => {
    const p = plan(
      service({
        annotations: {
          [`${ANNOTATION_PREFIX}protocol`]: 'http',
          [`${ANNOTATION_PREFIX}proxy-protocol`]: 'v1',
          [`${ANNOTATION_PREFIX}health-check-protocol`]: 'http',
          [`${ANNOTATION_PREFIX}health-check-path`]: '/ready',
          [`${ANNOTATION_PREFIX}algorithm`]: 'least_connections',
          [`${ANNOTATION_PREFIX}port-443`]: '{"protocol":"https","proxy-protocol":"v2","health-check-port":31000}',
        },
        spec: { sessionAffinity: 'ClientIP', loadBalancerIP: '127.0.100.7' },
      }),
    );
    expect(p.listeners[0]).toMatchObject({ protocol: 'http', proxyProtocol: 'v1', healthCheck: { protocol: 'http', port: 30080, path: '/ready' } });
    expect(p.listeners[1]).toMatchObject({ protocol: 'https', proxyProtocol: 'v2', healthCheck: { protocol: 'http', port: 31000, path: '/ready' } });
    expect(p.firewallRules.map((r) => r.port)).toEqual([30080, 30443, 31000]);
    expect(p.algorithm).toBe('least_connections');
    expect(p.sessionAffinity).toBe('source_ip');
    expect(p.requestedIp).toBe('127.0.100.7');
  });

  it('checks /healthz on the health-check node port for externalTrafficPolicy Local, as upstream', () => {
    const p = plan(service({ spec: { externalTrafficPolicy: 'Local', healthCheckNodePort: 32000 } }));
    expect(p.listeners[0]?.healthCheck).toMatchObject({ protocol: 'http', port: 32000, path: '/healthz' });
    expect(p.firewallRules.map((r) => r.port)).toEqual([30080, 30443, 32000]);
  });

  it('makes a UDP port a udp listener without PROXY protocol, checked only through a health-check node port, opened over UDP', () => {
    const udp = { name: 'dns', port: 53, protocol: 'UDP', nodePort: 30053 };
    const p = plan(
      service({
        annotations: { [`${ANNOTATION_PREFIX}proxy-protocol`]: 'v1', [`${ANNOTATION_PREFIX}protocol`]: 'http' },
        spec: { ports: [{ name: 'http', port: 80, protocol: 'TCP', nodePort: 30080 }, udp] },
      }),
    );
    expect(p.listeners[1]).toEqual({
      protocol: 'udp',
      listenPort: 53,
      destinationPort: 30053,
      proxyProtocol: 'none',
      healthCheck: { protocol: 'none', port: 30053, path: '/', intervalSeconds: 10, timeoutSeconds: 5, retries: 3 },
    });
    expect(p.firewallRules).toEqual([
      { protocol: 'udp', port: 30053, sourceCidrs: ['0.0.0.0/0'] },
      { protocol: 'tcp', port: 30080, sourceCidrs: ['0.0.0.0/0'] },
    ]);
    const local = plan(service({ spec: { ports: [udp], externalTrafficPolicy: 'Local', healthCheckNodePort: 32000 } }));
    expect(local.listeners[0]?.healthCheck).toMatchObject({ protocol: 'http', port: 32000, path: '/healthz' });
    expect(local.firewallRules.map((r) => `${r.protocol}/${r.port}`)).toEqual(['udp/30053', 'tcp/32000']);
  });

  it('rejects SCTP ports, a port listed for two protocols, bad source ranges and overrides for unknown ports before any cloud call', () => {
    const svc = service({
      annotations: { [`${ANNOTATION_PREFIX}port-8080`]: '{}' },
      spec: {
        ports: [
          { port: 9, protocol: 'SCTP', nodePort: 30009 },
          { port: 53, protocol: 'UDP', nodePort: 30053 },
          { port: 53, protocol: 'TCP', nodePort: 30054 },
        ],
        loadBalancerSourceRanges: ['10.0.0.0/33'],
      },
    });
    expect(() => plan(svc)).toThrow(InvalidServiceError);
    expect(() => plan(svc)).toThrow(
      /protocol SCTP is not supported; allowed: TCP, UDP.*port 53 is listed twice.*port-8080 names no port.*"10.0.0.0\/33" must be an IPv4 CIDR/,
    );
  });
});

describe('sourceRangesOf', () => {
  it('terminates TLS on https listeners with the certificate-id and redirects http listeners to the first https port', () => {
    const p = plan(
      service({
        annotations: {
          [`${ANNOTATION_PREFIX}protocol`]: 'http',
          [`${ANNOTATION_PREFIX}port-443`]: '{"protocol":"https"}',
          [`${ANNOTATION_PREFIX}certificate-id`]: 'crt-7',
          [`${ANNOTATION_PREFIX}redirect-http-to-https`]: 'true',
        },
      }),
    );
    expect(p.listeners.map((l) => [l.protocol, l.listenPort, l.certificateId, l.redirectHttpsPort])).toEqual([
      ['http', 80, undefined, 443],
      ['https', 443, 'crt-7', undefined],
    ]);
    expect(() => plan(service({ annotations: { [`${ANNOTATION_PREFIX}redirect-http-to-https`]: 'true' } }))).toThrow(
      /redirect-http-to-https needs an https listener/,
    );
  });

  it('falls back to the upstream annotation, then 0.0.0.0/0', () => {
    expect(sourceRangesOf(service({ annotations: { 'service.beta.kubernetes.io/load-balancer-source-ranges': '1.2.3.0/24,5.6.7.8/32' } })).cidrs).toEqual([
      '1.2.3.0/24',
      '5.6.7.8/32',
    ]);
    expect(sourceRangesOf(service()).cidrs).toEqual(['0.0.0.0/0']);
  });
});

describe('diffs', () => {
  it('diffByKey splits create, update and remove', () => {
    const have = [
      { k: 1, v: 'a' },
      { k: 2, v: 'b' },
      { k: 3, v: 'c' },
    ];
    const want = [
      { k: 2, v: 'b' },
      { k: 3, v: 'C' },
      { k: 4, v: 'd' },
    ];
    expect(diffByKey(have, want, (x) => x.k, sameJson)).toEqual({ create: [{ k: 4, v: 'd' }], update: [{ k: 3, v: 'C' }], remove: [{ k: 1, v: 'a' }] });
  });
  it('sameJson ignores key order and undefined fields', () => {
    expect(sameJson({ a: 1, b: { c: [1, 2] }, d: undefined }, { b: { c: [1, 2] }, a: 1 })).toBe(true);
    expect(sameJson({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
  });
  it('diffIds is a sorted set difference', () => {
    expect(diffIds(['s3', 's1', 's2'], ['s2', 's4', 's0'])).toEqual({ add: ['s0', 's4'], remove: ['s1', 's3'] });
  });
});
