import { describe, expect, it } from 'vitest';
import type { V1Node, V1Service } from '@kubernetes/client-node';
import { diffNode, diffService, explainResourceChange, LB_FINALIZER, serviceGroupOf, SHUTDOWN_TAINT, UNINITIALIZED_TAINT } from './changes.ts';

const groupOf = (type: string, id: string): string => (type === 'gateway' ? `Node/gw-${id}` : `Cloud/${id}`);

function node(over: { ready?: string; taints?: string[]; providerID?: string; podCIDR?: string; net?: string } = {}): V1Node {
  return {
    metadata: { name: 'w1' },
    spec: { providerID: over.providerID, podCIDR: over.podCIDR, taints: (over.taints ?? []).map((key) => ({ key, effect: 'NoSchedule' })) },
    status: { conditions: [{ type: 'Ready', status: over.ready ?? 'True' }, ...(over.net ? [{ type: 'NetworkUnavailable', status: over.net }] : [])] },
  };
}

function service(over: { finalizer?: boolean; ip?: string; deleting?: boolean } = {}): V1Service {
  return {
    metadata: { name: 'web', namespace: 'default', finalizers: over.finalizer ? [LB_FINALIZER] : [], ...(over.deleting ? { deletionTimestamp: new Date() } : {}) },
    status: { loadBalancer: { ingress: over.ip ? [{ ip: over.ip }] : [] } },
  };
}

describe('explainResourceChange', () => {
  it('explains a server going off as the start of the shutdown flow, grouped under its Node', () => {
    const [step] = explainResourceChange(
      { change: 'updated', resource_type: 'server', resource_id: 'srv-1', resource: { name: 'w1', status: 'off' } },
      { name: 'w1', status: 'stopping' }, groupOf,
    );
    expect(step).toMatchObject({ group: 'Node/w1', title: 'server w1: stopping → off' });
    expect(step!.sentence).toContain('InstanceShutdown');
  });

  it('groups a load balancer under the Service of its owner label and reports it active with its VIP', () => {
    const lb = { status: 'active', public_ipv4: '127.0.0.9', labels: { 'simcloud.dev/service': 'default.web' }, resolved_targets: [] };
    const [step] = explainResourceChange({ change: 'updated', resource_type: 'load_balancer', resource_id: 'lb-1', resource: lb }, { ...lb, status: 'provisioning' }, groupOf);
    expect(step).toMatchObject({ group: 'Service/default/web', title: 'load balancer lb-1: provisioning → active' });
    expect(step!.sentence).toContain('127.0.0.9');
  });

  it('reports target health flips without blaming the CCM', () => {
    const t = (status: string): Record<string, unknown> => ({ status: 'active', labels: {}, resolved_targets: [{ id: 'srv-1', health: [{ listen_port: 80, status }] }] });
    const [step] = explainResourceChange({ change: 'updated', resource_type: 'load_balancer', resource_id: 'lb-1', resource: t('unhealthy') }, t('healthy'), groupOf);
    expect(step).toMatchObject({ controller: null, title: 'load balancer lb-1: target health srv-1:80=unhealthy' });
  });

  it('turns a network change into one step per route added or removed, grouped by the gateway', () => {
    const net = (routes: { destination: string; gateway: string }[]): Record<string, unknown> => ({ routes });
    const steps = explainResourceChange(
      { change: 'updated', resource_type: 'network', resource_id: 'net-1', resource: net([{ destination: '10.0.1.0/24', gateway: '10.1.0.2' }]) },
      net([{ destination: '10.0.0.0/24', gateway: '10.1.0.1' }]), groupOf,
    );
    expect(steps.map((s) => [s.method, s.group])).toEqual([['CreateRoute', 'Node/gw-10.1.0.2'], ['DeleteRoute', 'Node/gw-10.1.0.1']]);
  });

  it('groups an action under the resource it acts on, and owned resources under their Service', () => {
    const [a] = explainResourceChange({ change: 'created', resource_type: 'action', resource_id: 'act-1', resource: { command: 'poweroff_server', status: 'running', resources: [{ type: 'server', id: 'srv-1' }] } }, undefined, groupOf);
    expect(a).toMatchObject({ group: 'Cloud/srv-1', title: 'action poweroff_server running' });
    const [g] = explainResourceChange({ change: 'deleted', resource_type: 'ip_block', resource_id: 'ipb-1', resource: null }, { tags: { service: 'default.web' } }, groupOf);
    expect(g).toMatchObject({ group: 'Service/default/web', method: 'EnsureLoadBalancerDeleted' });
    expect(serviceGroupOf({ labels: {} })).toBeUndefined();
  });
});

describe('diffNode', () => {
  it('reports NotReady and then the shutdown taint with the controller and method that caused it', () => {
    expect(diffNode(node(), node({ ready: 'Unknown' }))[0]).toMatchObject({ title: 'Node w1 NotReady (Ready True → Unknown)', controller: 'kube-controller-manager' });
    const [taint] = diffNode(node({ ready: 'Unknown' }), node({ ready: 'Unknown', taints: [SHUTDOWN_TAINT] }));
    expect(taint).toMatchObject({ title: `taint ${SHUTDOWN_TAINT}:NoSchedule added`, controller: 'cloud-node-lifecycle-controller', method: 'InstanceShutdown' });
  });

  it('reports initialisation: providerID set, uninitialized taint removed, podCIDR and route', () => {
    const steps = diffNode(node({ taints: [UNINITIALIZED_TAINT] }), node({ providerID: 'simcloud://srv-1', podCIDR: '10.244.1.0/24', net: 'False' }));
    expect(steps.map((s) => s.title)).toEqual([
      `taint ${UNINITIALIZED_TAINT}:NoSchedule removed`, 'providerID simcloud://srv-1', 'podCIDR 10.244.1.0/24', 'NetworkUnavailable=False (RouteCreated)',
    ]);
    expect(steps[0]!.method).toBe('InstanceMetadata');
  });

  it('reports a Node registered and a Node deleted', () => {
    expect(diffNode(undefined, node())[0]!.title).toBe('Node w1 registered');
    expect(diffNode(node(), undefined)[0]).toMatchObject({ title: 'Node w1 deleted', method: 'InstanceExists' });
    expect(diffNode(node(), node())).toEqual([]);
  });
});

describe('diffService', () => {
  it('reports the finalizer, the ingress IP, the deletion and the removal', () => {
    expect(diffService(undefined, service())[0]!.title).toBe('Service default/web created');
    expect(diffService(service(), service({ finalizer: true })).map((s) => s.method)).toEqual(['EnsureLoadBalancer']);
    expect(diffService(service({ finalizer: true }), service({ finalizer: true, ip: '127.0.0.9' }))[0]!.title).toBe('ingress 127.0.0.9');
    expect(diffService(service({ finalizer: true }), service({ finalizer: true, deleting: true }))[0]!.title).toBe('Service/default/web deleting');
    expect(diffService(service({ finalizer: true }), service())[0]!.method).toBe('EnsureLoadBalancerDeleted');
    expect(diffService(service(), undefined)[0]!.title).toBe('Service default/web deleted');
  });
});
