import type { V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { loadBalancerStatusEqual, needsCleanup, needsUpdate, wantsLoadBalancer } from './needs-update.ts';

const base = (): V1Service => ({
  metadata: { name: 's', namespace: 'ns', uid: 'u1', annotations: { a: '1' }, labels: { l: '1' } },
  spec: {
    type: 'LoadBalancer',
    ports: [{ name: 'http', protocol: 'TCP', port: 80, nodePort: 30080, targetPort: 8080 }],
    sessionAffinity: 'None',
    externalTrafficPolicy: 'Cluster',
    ipFamilies: ['IPv4'],
    selector: { app: 'x' },
  },
});

function changed(mutate: (s: V1Service) => void, loadBalancerClass?: string): boolean {
  const next = structuredClone(base());
  mutate(next);
  return needsUpdate(base(), next, loadBalancerClass);
}

describe('wantsLoadBalancer / needsCleanup', () => {
  it('any class opts out without --load-balancer-class; with it, exactly that class is served', () => {
    const classed = { ...base(), spec: { ...base().spec, loadBalancerClass: 'x/y' } };
    expect(wantsLoadBalancer(base())).toBe(true);
    expect(wantsLoadBalancer(classed)).toBe(false);
    expect(wantsLoadBalancer(classed, 'x/y')).toBe(true);
    expect(wantsLoadBalancer(base(), 'x/y')).toBe(false);
  });

  it('needs cleanup only with the finalizer and (deleting or no longer LoadBalancer)', () => {
    const fin = { ...base(), metadata: { ...base().metadata, finalizers: ['service.kubernetes.io/load-balancer-cleanup'] } };
    expect(needsCleanup(fin)).toBe(false);
    expect(needsCleanup({ ...fin, metadata: { ...fin.metadata, deletionTimestamp: new Date() } })).toBe(true);
    expect(needsCleanup({ ...fin, spec: { ...fin.spec, type: 'ClusterIP' } })).toBe(true);
    expect(needsCleanup({ ...base(), spec: { type: 'ClusterIP' } })).toBe(false);
  });
});

describe('needsUpdate', () => {
  it.each([
    ['type', (s: V1Service) => (s.spec!.type = 'ClusterIP')],
    ['source ranges', (s: V1Service) => (s.spec!.loadBalancerSourceRanges = ['10.0.0.0/8'])],
    ['port', (s: V1Service) => (s.spec!.ports![0]!.port = 81)],
    ['nodePort', (s: V1Service) => (s.spec!.ports![0]!.nodePort = 30081)],
    ['targetPort int→string', (s: V1Service) => (s.spec!.ports![0]!.targetPort = '8080')],
    ['appProtocol', (s: V1Service) => (s.spec!.ports![0]!.appProtocol = 'http')],
    ['port added', (s: V1Service) => s.spec!.ports!.push({ port: 443 })],
    ['session affinity', (s: V1Service) => (s.spec!.sessionAffinity = 'ClientIP')],
    ['session affinity config', (s: V1Service) => (s.spec!.sessionAffinityConfig = {})],
    ['loadBalancerIP', (s: V1Service) => (s.spec!.loadBalancerIP = '1.2.3.4')],
    ['externalIPs', (s: V1Service) => (s.spec!.externalIPs = ['1.1.1.1'])],
    ['annotation value', (s: V1Service) => (s.metadata!.annotations = { a: '2' })],
    ['annotations nil vs empty', (s: V1Service) => (s.metadata!.annotations = {})],
    ['uid', (s: V1Service) => (s.metadata!.uid = 'u2')],
    ['externalTrafficPolicy', (s: V1Service) => (s.spec!.externalTrafficPolicy = 'Local')],
    ['healthCheckNodePort', (s: V1Service) => (s.spec!.healthCheckNodePort = 32000)],
    ['ipFamilies count', (s: V1Service) => (s.spec!.ipFamilies = ['IPv4', 'IPv6'])],
  ])('is true when %s changes', (_name, mutate) => {
    expect(changed(mutate)).toBe(true);
  });

  it.each([
    ['labels', (s: V1Service) => (s.metadata!.labels = { l: '2' })],
    ['selector', (s: V1Service) => (s.spec!.selector = { app: 'y' })],
    ['status', (s: V1Service) => (s.status = { loadBalancer: { ingress: [{ ip: '1.1.1.1' }] } })],
    ['internalTrafficPolicy', (s: V1Service) => (s.spec!.internalTrafficPolicy = 'Local')],
    ['allocateLoadBalancerNodePorts', (s: V1Service) => (s.spec!.allocateLoadBalancerNodePorts = false)],
    ['ipFamilies order', (s: V1Service) => (s.spec!.ipFamilies = ['IPv6'])],
  ])('is false when only %s changes', (_name, mutate) => {
    expect(changed(mutate)).toBe(false);
  });

  it('is false when neither wants a load balancer', () => {
    const a = { ...base(), spec: { ...base().spec, type: 'ClusterIP' } };
    expect(needsUpdate(a, { ...a, metadata: { ...a.metadata, annotations: { z: '1' } } })).toBe(false);
  });

  it('annotations nil vs empty map differ (reflect.DeepEqual), as upstream', () => {
    const a = base();
    a.metadata!.annotations = undefined;
    const b = structuredClone(a);
    b.metadata!.annotations = {};
    expect(needsUpdate(a, b)).toBe(true);
  });
});

describe('loadBalancerStatusEqual', () => {
  it('compares ingress semantically (nil == empty), including ipMode and ports', () => {
    expect(loadBalancerStatusEqual(undefined, {})).toBe(true);
    expect(loadBalancerStatusEqual({ ingress: [] }, {})).toBe(true);
    expect(loadBalancerStatusEqual({ ingress: [{ ip: '1.1.1.1' }] }, { ingress: [{ ip: '1.1.1.1' }] })).toBe(true);
    expect(loadBalancerStatusEqual({ ingress: [{ ip: '1.1.1.1' }] }, { ingress: [{ ip: '1.1.1.1', ipMode: 'Proxy' }] })).toBe(false);
    expect(loadBalancerStatusEqual({ ingress: [{ ip: '1.1.1.1', ports: [{ port: 80, protocol: 'TCP' }] }] }, { ingress: [{ ip: '1.1.1.1' }] })).toBe(false);
  });
});
