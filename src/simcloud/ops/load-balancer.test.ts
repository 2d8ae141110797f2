import type { V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { LoadBalancer } from '../../../simulator/api/schema/index.ts';
import { loadBalancerConfigOf } from '../annotations.ts';
import { ingressStatus, loadBalancerSpec, loadBalancerUpdate } from './load-balancer.ts';
import { ownerLabels } from './naming.ts';
import { planLoadBalancer } from './plan.ts';
import { firewallRules } from './server-group.ts';

const svc: V1Service = {
  metadata: { name: 'web', namespace: 'shop', uid: '0b8c6f4e-1a2b-4c3d-9e8f-001122334455' },
  spec: { type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP', nodePort: 30080 }], loadBalancerSourceRanges: ['10.0.0.0/8'] },
};
const plan = planLoadBalancer(svc, loadBalancerConfigOf(undefined));
const spec = loadBalancerSpec(plan, [{ kind: 'server_group', server_group_id: 'grp-1' }]);
const labels = ownerLabels('c1', svc);

function wire(over: Partial<LoadBalancer> = {}): LoadBalancer {
  return {
    id: 'lb-1',
    name: 'c1-a0b8c6f4e1a2b4c3d9e8f00112233445',
    labels,
    location: 'sim-1',
    zone: null,
    status: 'active',
    algorithm: spec.algorithm,
    session_affinity: spec.session_affinity,
    services: spec.services,
    targets: spec.targets,
    resolved_targets: [],
    public_ipv4: '127.0.100.3',
    public_ipv6: '2001:db8:2::3',
    ip_block_id: null,
    network_id: null,
    private_ipv4: null,
    source_ranges: spec.source_ranges,
    public_interface: true,
    forwarding: 'proxy',
    locked: false,
    created: '2026-01-01T00:00:00Z',
    ...over,
  };
}

describe('loadBalancerSpec', () => {
  it('maps listeners to wire services and keeps explicit source ranges', () => {
    expect(spec.services).toEqual([
      {
        protocol: 'tcp',
        listen_port: 80,
        destination_port: 30080,
        proxy_protocol: 'none',
        health_check: { protocol: 'tcp', port: 30080, path: '/', interval_seconds: 10, timeout_seconds: 5, retries: 3 },
      },
    ]);
    expect(spec.source_ranges).toEqual(['10.0.0.0/8']);
    expect(
      loadBalancerSpec(planLoadBalancer({ ...svc, spec: { ...svc.spec, loadBalancerSourceRanges: [] } }, loadBalancerConfigOf(undefined)), []).source_ranges,
    ).toEqual([]);
    expect(loadBalancerSpec(plan, [], false).source_ranges).toEqual([]);
  });
});

describe('loadBalancerUpdate (needs-update for the cloud LB)', () => {
  it('is empty when the LB matches', () => {
    expect(loadBalancerUpdate(wire(), spec, labels)).toEqual({});
  });
  it('sends only what differs', () => {
    const body = loadBalancerUpdate(wire({ algorithm: 'least_connections', targets: [], labels: { other: 'x' } }), spec, labels);
    expect(body).toEqual({ algorithm: 'round_robin', targets: spec.targets, labels: { other: 'x', ...labels } });
  });
  it('ignores order of services and source ranges', () => {
    const two = { ...spec, services: [...spec.services, { ...spec.services[0]!, listen_port: 81 }], source_ranges: ['1.0.0.0/8', '2.0.0.0/8'] };
    const lb = wire({ services: [...two.services].reverse(), source_ranges: ['2.0.0.0/8', '1.0.0.0/8'] });
    expect(loadBalancerUpdate(lb, two, labels)).toEqual({});
  });
});

describe('ingressStatus', () => {
  it('reports the VIP, with ipMode Proxy when the PROXY protocol is on', () => {
    expect(ingressStatus(wire(), loadBalancerConfigOf(undefined))).toEqual({ ingress: [{ ip: '127.0.100.3', ipMode: 'VIP' }] });
    const proxied = wire({ services: spec.services.map((s) => ({ ...s, proxy_protocol: 'v2' as const })) });
    expect(ingressStatus(proxied, loadBalancerConfigOf(undefined)).ingress?.[0]?.ipMode).toBe('Proxy');
  });
  it('reports only a hostname with hostname-only-ingress', () => {
    const config = loadBalancerConfigOf({ 'loadbalancer.simcloud.dev/hostname-only-ingress': 'true' });
    expect(ingressStatus(wire(), config)).toEqual({ ingress: [{ hostname: '127-0-100-3.sim-1.lb.simcloud.dev' }] });
  });
});

describe('firewallRules', () => {
  it('opens each node port to the source ranges', () => {
    expect(firewallRules(svc, plan.firewallRules)).toEqual([
      { direction: 'inbound', protocol: 'tcp', ports: '30080', source_cidrs: ['10.0.0.0/8'], destination_cidrs: [], description: 'shop/web node port 30080' },
    ]);
  });
});
