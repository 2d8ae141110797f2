import { describe, expect, it } from 'vitest';
import { ANNOTATION_PREFIX, InvalidAnnotationError, annotationDefinitions, loadBalancerConfigOf, parseLoadBalancerAnnotations } from './annotations.ts';

const a = (name: string): string => ANNOTATION_PREFIX + name;

describe('parseLoadBalancerAnnotations', () => {
  it('returns the documented defaults when nothing is set', () => {
    const result = parseLoadBalancerAnnotations(undefined);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config).toMatchObject({
      protocol: 'tcp',
      proxyProtocol: 'none',
      algorithm: 'round_robin',
      healthCheckProtocol: 'tcp',
      healthCheckPort: undefined,
      healthCheckPath: '/',
      healthCheckInterval: 10,
      healthCheckTimeout: 5,
      healthCheckRetries: 3,
      hostnameOnlyIngress: false,
      preserve: false,
      loadBalancerId: undefined,
    });
    expect(result.config.portOverrides.size).toBe(0);
  });

  it('parses every annotation to its typed value', () => {
    const result = parseLoadBalancerAnnotations({
      [a('protocol')]: 'http',
      [a('proxy-protocol')]: 'v2',
      [a('algorithm')]: 'least_connections',
      [a('health-check-protocol')]: 'http',
      [a('health-check-port')]: '8080',
      [a('health-check-path')]: '/ready',
      [a('health-check-interval')]: '3',
      [a('health-check-timeout')]: '2',
      [a('health-check-retries')]: '5',
      [a('hostname-only-ingress')]: 'TRUE',
      [a('preserve')]: 'true',
      [a('load-balancer-id')]: 'lb-123',
      [a('port-443')]: '{"protocol":"https","proxy-protocol":"v1"}',
      'unrelated.example.com/x': 'whatever',
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config).toMatchObject({
      protocol: 'http',
      proxyProtocol: 'v2',
      algorithm: 'least_connections',
      healthCheckProtocol: 'http',
      healthCheckPort: 8080,
      healthCheckPath: '/ready',
      healthCheckInterval: 3,
      healthCheckTimeout: 2,
      healthCheckRetries: 5,
      hostnameOnlyIngress: true,
      preserve: true,
      loadBalancerId: 'lb-123',
    });
    expect(result.config.portOverrides.get(443)).toEqual({ protocol: 'https', 'proxy-protocol': 'v1' });
  });

  it('names the annotation and its allowed values for every bad value', () => {
    const result = parseLoadBalancerAnnotations({
      [a('protocol')]: 'udp',
      [a('health-check-port')]: '70000',
      [a('preserve')]: 'yes',
      [a('health-check-path')]: 'ready',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const byKey = new Map(result.errors.map((e) => [e.annotation, e]));
    expect(byKey.get(a('protocol'))?.message).toBe(`annotation ${a('protocol')}="udp" must be one of: tcp, http, https`);
    expect(byKey.get(a('health-check-port'))?.allowed).toBe('integer 1..65535');
    expect(byKey.get(a('preserve'))?.message).toContain('true, false');
    expect(byKey.get(a('health-check-path'))?.message).toContain('starting with /');
    expect(result.errors).toHaveLength(4);
  });

  it('rejects non-numeric and fractional integers', () => {
    for (const bad of ['abc', '1.5', '-1', '', '0']) {
      const result = parseLoadBalancerAnnotations({ [a('health-check-interval')]: bad });
      expect(result.ok, bad).toBe(false);
    }
  });

  it('rejects bad per-port overrides: not JSON, unknown keys, bad values, bad port', () => {
    const result = parseLoadBalancerAnnotations({
      [a('port-80')]: '{protocol: http}',
      [a('port-81')]: '{"protocl":"http"}',
      [a('port-82')]: '{"proxy-protocol":"v3"}',
      [a('port-0')]: '{}',
      [a('port-abc')]: '{}',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.annotation).sort()).toEqual(['port-0', 'port-80', 'port-81', 'port-82', 'port-abc'].map(a).sort());
    expect(result.errors[0]?.allowed).toContain('proxy-protocol (none, v1, v2)');
  });

  it('reports unknown keys under the prefix with the list of known ones', () => {
    const result = parseLoadBalancerAnnotations({ [a('protocl')]: 'tcp' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]?.message).toContain(`${a('protocl')} is not known`);
    expect(result.errors[0]?.allowed).toContain('protocol');
  });
});

describe('loadBalancerConfigOf', () => {
  it('throws one InvalidAnnotationError naming every problem', () => {
    const call = (): unknown => loadBalancerConfigOf({ [a('algorithm')]: 'random', [a('proxy-protocol')]: 'v9' });
    expect(call).toThrow(InvalidAnnotationError);
    expect(call).toThrow(/proxy-protocol="v9" must be one of: none, v1, v2; .*algorithm="random" must be one of: round_robin, least_connections/);
  });
});

describe('annotationDefinitions', () => {
  it('documents every entry with a prefixed key, a type, allowed values and a description', () => {
    const defs = annotationDefinitions();
    expect(defs.length).toBeGreaterThanOrEqual(13);
    for (const def of defs) {
      expect(def.key.startsWith(ANNOTATION_PREFIX)).toBe(true);
      expect(def.allowed).not.toBe('');
      expect(def.description).not.toBe('');
    }
    expect(new Set(defs.map((d) => d.key)).size).toBe(defs.length);
  });
});
