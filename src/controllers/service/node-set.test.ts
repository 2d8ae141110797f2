import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { loggableNodeNames, nodeSetChanges, nodesSufficientlyEqual, shouldSyncUpdatedNode, stableLoadBalancerNodeSet } from './node-set.ts';

const node = (name: string, extra: Partial<V1Node> & { labels?: Record<string, string> } = {}): V1Node => ({
  metadata: { name, labels: extra.labels, deletionTimestamp: extra.metadata?.deletionTimestamp },
  spec: { providerID: `p://${name}`, ...extra.spec },
  status: extra.status,
});

describe('stable load balancer node set', () => {
  it('excludes deleting nodes, the exclude label (any value) and the autoscaler taint, nothing else', () => {
    const nodes = [
      node('ready'),
      node('notready', { status: { conditions: [{ type: 'Ready', status: 'False' }] } }),
      node('cordoned', { spec: { unschedulable: true } }),
      node('uninit', { spec: { taints: [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', effect: 'NoSchedule' }] } }),
      node('noid', { spec: { providerID: '' } }),
      node('deleting', { metadata: { deletionTimestamp: new Date() } }),
      node('excluded-false', { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': 'false' } }),
      node('autoscaled', { spec: { taints: [{ key: 'ToBeDeletedByClusterAutoscaler', effect: 'PreferNoSchedule' }] } }),
    ];
    expect(stableLoadBalancerNodeSet(nodes).map((n) => n.metadata?.name)).toEqual(['cordoned', 'noid', 'notready', 'ready', 'uninit']);
  });

  it('sets are sufficiently equal when names and providerIDs match', () => {
    expect(nodesSufficientlyEqual([node('a'), node('b')], [node('b'), node('a')])).toBe(true);
    expect(nodesSufficientlyEqual([node('a')], [node('a', { spec: { providerID: 'x' } })])).toBe(false);
    expect(nodesSufficientlyEqual([node('a')], [node('a'), node('b')])).toBe(false);
  });

  it('node updates sync only on exclude-label flips or providerID changes', () => {
    expect(shouldSyncUpdatedNode(node('a'), node('a', { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': '' } }))).toBe(true);
    expect(shouldSyncUpdatedNode(node('a', { spec: { providerID: '' } }), node('a'))).toBe(true);
    expect(shouldSyncUpdatedNode(node('a'), node('a', { status: { conditions: [{ type: 'Ready', status: 'False' }] } }))).toBe(false);
    expect(
      shouldSyncUpdatedNode(node('a'), node('a', { spec: { providerID: 'p://a', taints: [{ key: 'ToBeDeletedByClusterAutoscaler', effect: 'NoSchedule' }] } })),
    ).toBe(false);
  });

  it('limits logged node names to 20', () => {
    const many = Array.from({ length: 23 }, (_, i) => node(`n${i}`));
    expect(loggableNodeNames(many)).toBe(
      `[${many
        .slice(0, 20)
        .map((n) => n.metadata?.name)
        .join(' ')} <3 more>]`,
    );
  });
});

describe('node set changes (for the node-sync log)', () => {
  it('names the nodes added, removed and given another providerID', () => {
    const before = [node('a'), node('b'), node('c', { spec: { providerID: '' } })];
    const after = [node('a'), node('c'), node('d')];
    expect(nodeSetChanges(before, after)).toEqual({ added: ['d'], removed: ['b'], providerIdChanged: ['c'] });
  });

  it('is empty exactly when the sets are sufficiently equal', () => {
    const set = [node('a'), node('b')];
    expect(nodeSetChanges(set, [...set].reverse())).toEqual({ added: [], removed: [], providerIdChanged: [] });
    expect(nodesSufficientlyEqual(set, [...set].reverse())).toBe(true);
  });
});
