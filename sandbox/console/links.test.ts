import { describe, expect, it } from 'vitest';
import type { NodeView, ServiceView } from './cluster.ts';
import { computeLinks, type CloudLinkInput } from './links.ts';

const nodeView = (name: string, serverId: string | null, podCIDR: string | null): NodeView => ({
  name, ready: 'True', taints: [], providerID: serverId ? `simcloud://${serverId}` : '', serverId, labels: {}, addresses: [], podCIDR, networkUnavailable: null, created: null, pods: [],
});
const serviceView = (name: string, uid: string): ServiceView => ({ namespace: 'default', name, uid, finalizers: [], ingress: [], ports: [], annotations: {}, deleting: false, endpoints: [] });
const owned = (id: string, uid: string): { id: string; labels: Record<string, string> } => ({ id, labels: { 'simcloud.dev/service-uid': uid } });

describe('computeLinks', () => {
  const cloud: CloudLinkInput = {
    servers: [{ id: 'srv-1', name: 'w1' }, { id: 'srv-2', name: 'w2' }],
    loadBalancers: [owned('lb-1', 'u1'), owned('lb-9', 'other')],
    serverGroups: [owned('grp-1', 'u1')],
    firewallPolicies: [owned('fwp-1', 'u1')],
    ipBlocks: [{ id: 'ipb-1', tags: { 'service-uid': 'u2' } }],
    networks: [{ id: 'net-1', routes: [{ id: 'rte-1', destination: '10.244.1.0/24', gateway: '10.0.0.2' }] }],
  };

  it('links Nodes to servers by providerID, else by name, and podCIDRs to routes', () => {
    const links = computeLinks({ nodes: [nodeView('w1', 'srv-1', '10.244.1.0/24'), nodeView('w2', null, '10.244.2.0/24'), nodeView('gone', 'srv-x', null)], services: [] }, cloud);
    expect(links.nodeToServer).toEqual({ w1: 'srv-1', w2: 'srv-2' });
    expect(links.serverToNode).toEqual({ 'srv-1': 'w1', 'srv-2': 'w2' });
    expect(links.nodeToRoute).toEqual({ w1: 'net-1/rte-1' });
    expect(links.routeToNode).toEqual({ 'net-1/rte-1': 'w1' });
  });

  it('links Services to the cloud resources carrying their UID, both ways', () => {
    const links = computeLinks({ nodes: [], services: [serviceView('web', 'u1'), serviceView('blocky', 'u2')] }, cloud);
    expect(links.serviceToCloud['default/web']).toEqual({ loadBalancers: ['lb-1'], serverGroups: ['grp-1'], firewallPolicies: ['fwp-1'], ipBlocks: [] });
    expect(links.serviceToCloud['default/blocky']!.ipBlocks).toEqual(['ipb-1']);
    expect(links.cloudToService).toEqual({ 'lb-1': 'default/web', 'grp-1': 'default/web', 'fwp-1': 'default/web', 'ipb-1': 'default/blocky' });
  });
});
