import { describe, expect, it } from 'vitest';
import type { NodeView, ServiceView } from './cluster.ts';
import { computeLinks, type CloudLinkInput } from './links.ts';
import { inCloudWords } from '../cloud/descriptor.ts';
import { cloudOf } from '../cloud/registry.ts';

const nodeView = (name: string, serverId: string | null, podCIDR: string | null): NodeView => ({
  name,
  ready: 'True',
  taints: [],
  providerID: serverId ? `simcloud://${serverId}` : '',
  serverId,
  labels: {},
  addresses: [],
  podCIDR,
  networkUnavailable: null,
  created: null,
  pods: [],
});
const serviceView = (name: string, uid: string): ServiceView => ({
  namespace: 'default',
  name,
  uid,
  finalizers: [],
  ingress: [],
  ports: [],
  annotations: {},
  deleting: false,
  endpoints: [],
});
const owned = (id: string, uid: string): { id: string; name: string; public_ipv4: string | null; labels: Record<string, string> } => ({
  id,
  name: `simcloud-${id}`,
  public_ipv4: null,
  labels: { 'simcloud.dev/service-uid': uid },
});
/** A load balancer another CCM made: no simcloud labels. */
const foreign = (id: string, name: string, ip: string): { id: string; name: string; public_ipv4: string; labels: Record<string, string> } => ({
  id,
  name,
  public_ipv4: ip,
  labels: {},
});

describe('computeLinks', () => {
  const cloud: CloudLinkInput = {
    servers: [
      { id: 'srv-1', name: 'w1' },
      { id: 'srv-2', name: 'w2' },
    ],
    loadBalancers: [owned('lb-1', 'u1'), owned('lb-9', 'other')],
    serverGroups: [owned('grp-1', 'u1')],
    firewallPolicies: [owned('fwp-1', 'u1')],
    ipBlocks: [{ id: 'ipb-1', tags: { 'service-uid': 'u2' } }],
    networks: [{ id: 'net-1', routes: [{ id: 'rte-1', destination: '10.244.1.0/24', gateway: '10.0.0.2' }] }],
  };

  it('links Nodes to servers by providerID, else by name, and podCIDRs to routes', () => {
    const links = computeLinks(
      { nodes: [nodeView('w1', 'srv-1', '10.244.1.0/24'), nodeView('w2', null, '10.244.2.0/24'), nodeView('gone', 'srv-x', null)], services: [] },
      cloud,
    );
    expect(links.nodeToServer).toEqual({ w1: 'srv-1', w2: 'srv-2' });
    expect(links.serverToNode).toEqual({ 'srv-1': 'w1', 'srv-2': 'w2' });
    expect(links.nodeToRoute).toEqual({ w1: 'net-1/rte-1' });
    expect(links.routeToNode).toEqual({ 'net-1/rte-1': 'w1' });
  });

  it('links Services to the cloud resources carrying their UID, both ways', () => {
    const links = computeLinks(
      { nodes: [], services: [serviceView('web', 'u1'), serviceView('blocky', 'u2')] },
      { ...cloud, serverGroups: [owned('grp-1', 'u1')] },
    );
    expect(links.serviceToCloud['default/web']).toEqual({ loadBalancers: ['lb-1'], serverGroups: ['grp-1'], firewallPolicies: ['fwp-1'], ipBlocks: [] });
    expect(links.serviceToCloud['default/blocky']!.ipBlocks).toEqual(['ipb-1']);
    expect(links.cloudToService).toEqual({ 'lb-1': 'default/web', 'grp-1': 'default/web', 'fwp-1': 'default/web', 'ipb-1': 'default/blocky' });
  });

  it("links a Service to the load balancer any CCM made for it: Kubernetes' default name, a cloud CCM's name annotation, or its ingress address", () => {
    const uid = '5d0c3c5e-1b2a-4f4e-9c1d-2a3b4c5d6e7f';
    const services = [
      serviceView('by-name', uid),
      { ...serviceView('annotated', 'u3'), annotations: { 'load-balancer.hetzner.cloud/name': 'my-lb' } },
      { ...serviceView('by-ip', 'u4'), ingress: ['127.17.0.9'] },
      serviceView('none', 'u5'),
    ];
    const lbs = [
      foreign('lb-20', 'a5d0c3c5e1b2a4f4e9c1d2a3b4c5d6e7', '127.17.0.7'),
      foreign('lb-21', 'my-lb', '127.17.0.8'),
      foreign('lb-22', 'nb-xyz', '127.17.0.9'),
    ];
    const links = computeLinks({ nodes: [], services }, { ...cloud, loadBalancers: lbs });
    expect(Object.fromEntries(Object.entries(links.serviceToCloud).map(([k, v]) => [k, v.loadBalancers]))).toEqual({
      'default/by-name': ['lb-20'],
      'default/annotated': ['lb-21'],
      'default/by-ip': ['lb-22'],
      'default/none': [],
    });
    expect(links.cloudToService).toMatchObject({ 'lb-20': 'default/by-name', 'lb-21': 'default/annotated', 'lb-22': 'default/by-ip' });
  });

  it("names each resource the cloud has in the cloud's words beside simcloud's id, and nothing on simcloud", () => {
    const brightbox = (id: string): string | undefined => inCloudWords(cloudOf('brightbox'), id);
    const withAll = {
      ...cloud,
      loadBalancers: [foreign('lb-00000010', 'x', '127.17.0.1')],
      servers: [{ id: 'srv-00000007', name: 'w1' }],
      serverGroups: [{ id: 'grp-00000003', labels: {} }],
      firewallPolicies: [{ id: 'fwp-00000004', labels: {} }],
    };
    expect(computeLinks({ nodes: [], services: [] }, withAll, brightbox).personaIds).toEqual({
      'srv-00000007': 'Brightbox: Server srv-00007',
      'lb-00000010': 'Brightbox: Load Balancer lba-0000a',
      'grp-00000003': 'Brightbox: Server Group grp-00003',
      'fwp-00000004': 'Brightbox: Firewall Policy fwp-00004',
      'ipb-1': 'Brightbox: Cloud IP cip-00001',
    });
    expect(computeLinks({ nodes: [], services: [] }, withAll).personaIds).toEqual({});
  });
});
