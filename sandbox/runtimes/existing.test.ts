import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { commonSupernet, defaultKubeconfig, describeNode, machineForNode } from './existing.ts';

describe('commonSupernet', () => {
  it('is the smallest IPv4 network holding every podCIDR', () => {
    expect(commonSupernet(['10.244.0.0/24', '10.244.1.0/24', '10.244.2.0/24'])).toBe('10.244.0.0/22');
    expect(commonSupernet(['10.244.0.0/24'])).toBe('10.244.0.0/24');
    expect(commonSupernet(['10.0.0.0/24', '10.128.0.0/24'])).toBe('10.0.0.0/8');
    expect(commonSupernet(['10.244.3.0/24', 'fd00:10:244::/64'])).toBe('10.244.3.0/24');
    expect(commonSupernet([])).toBeUndefined();
  });
});

const NODE: V1Node = {
  metadata: { name: 'cp-1', labels: { 'node-role.kubernetes.io/control-plane': '' }, annotations: { a: 'b' } },
  spec: { podCIDRs: ['10.244.0.0/24'], taints: [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' }] },
  status: {
    addresses: [
      { type: 'Hostname', address: 'cp-1' },
      { type: 'InternalIP', address: 'fd00::5' },
      { type: 'InternalIP', address: '192.168.56.10' },
      { type: 'ExternalIP', address: '203.0.113.7' },
    ],
    conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
  },
};

describe('nodes', () => {
  it('a Node becomes a machine with its role and IPv4 addresses', () => {
    expect(machineForNode(NODE)).toEqual({ name: 'cp-1', role: 'control-plane', privateIPv4: '192.168.56.10', publicIPv4: '203.0.113.7' });
    expect(machineForNode({ metadata: { name: 'w' } })).toEqual({ name: 'w', role: 'worker' });
  });

  it('describes a Node like kubectl describe', () => {
    const text = describeNode(NODE);
    expect(text).toContain('Name:         cp-1');
    expect(text).toContain('  node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule');
    expect(text).toContain('  InternalIP: 192.168.56.10');
    expect(text).toContain('  Ready=True (KubeletReady) kubelet is posting ready status');
  });

  it('the default kubeconfig is the first $KUBECONFIG entry, else ~/.kube/config', () => {
    expect(defaultKubeconfig({ KUBECONFIG: '/a/config:/b/config' })).toBe('/a/config');
    expect(defaultKubeconfig({})).toMatch(/\.kube\/config$/);
  });
});
