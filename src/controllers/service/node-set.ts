/**
 * The load balancer node set (upstream `StableLoadBalancerNodeSet` predicates) and the node-change
 * rules of the service-lb-controller. Readiness is NOT used and providerID is NOT required.
 */
import type { V1Node } from '@kubernetes/client-node';
import { TaintKey } from '../../kube/taints.ts';
import { compareStrings } from '../../util/order.ts';

export const ExcludeFromExternalLBLabel = 'node.kubernetes.io/exclude-from-external-load-balancers';

/** `metadata.deletionTimestamp` unset. */
export function nodeNotDeleted(node: V1Node): boolean {
  return !node.metadata?.deletionTimestamp;
}

/** No exclude label; presence alone excludes (even `"false"`, as up to 1.33). */
export function nodeIncluded(node: V1Node): boolean {
  return !(ExcludeFromExternalLBLabel in (node.metadata?.labels ?? {}));
}

/** No `ToBeDeletedByClusterAutoscaler` taint (any effect). */
export function nodeUnTainted(node: V1Node): boolean {
  return !(node.spec?.taints ?? []).some((t) => t.key === TaintKey.ToBeDeletedByClusterAutoscaler);
}

export function respectsStablePredicates(node: V1Node): boolean {
  return nodeNotDeleted(node) && nodeIncluded(node) && nodeUnTainted(node);
}

/** The nodes passed to EnsureLoadBalancer/UpdateLoadBalancer, sorted by name for determinism. */
export function stableLoadBalancerNodeSet(nodes: readonly V1Node[]): V1Node[] {
  return nodes.filter(respectsStablePredicates).sort((a, b) => compareStrings(a.metadata?.name ?? '', b.metadata?.name ?? ''));
}

/** Upstream `nodesSufficientlyEqual`: same count and the same name → spec.providerID map. */
export function nodesSufficientlyEqual(a: readonly V1Node[], b: readonly V1Node[]): boolean {
  if (a.length !== b.length) return false;
  const ids = new Map(a.map((n) => [n.metadata?.name ?? '', n.spec?.providerID ?? '']));
  return b.every((n) => ids.has(n.metadata?.name ?? '') && ids.get(n.metadata?.name ?? '') === (n.spec?.providerID ?? ''));
}

/** What differs between two node sets as `nodesSufficientlyEqual` sees them (names, sorted), for logs. */
export interface NodeSetChanges {
  readonly added: string[];
  readonly removed: string[];
  readonly providerIdChanged: string[];
}

export function nodeSetChanges(before: readonly V1Node[], after: readonly V1Node[]): NodeSetChanges {
  const ids = (nodes: readonly V1Node[]): Map<string, string> => new Map(nodes.map((n) => [n.metadata?.name ?? '', n.spec?.providerID ?? '']));
  const [was, now] = [ids(before), ids(after)];
  const sorted = (names: Iterable<string>): string[] => [...names].sort();
  return {
    added: sorted([...now.keys()].filter((n) => !was.has(n))),
    removed: sorted([...was.keys()].filter((n) => !now.has(n))),
    providerIdChanged: sorted([...now].filter(([n, id]) => was.has(n) && was.get(n) !== id).map(([n]) => n)),
  };
}

/** Upstream `shouldSyncUpdatedNode` with the stable node set: exclude-label flip or providerID change. */
export function shouldSyncUpdatedNode(oldNode: V1Node, newNode: V1Node): boolean {
  if (nodeIncluded(oldNode) !== nodeIncluded(newNode)) return true;
  return (oldNode.spec?.providerID ?? '') !== (newNode.spec?.providerID ?? '');
}

/** Upstream `loggableNodeNames`: at most 20 names, then `<K more>`, printed like Go's `%v`. */
export function loggableNodeNames(nodes: readonly V1Node[]): string {
  const names = nodes.map((n) => n.metadata?.name ?? '');
  const shown = names.slice(0, 20);
  if (names.length > 20) shown.push(`<${names.length - 20} more>`);
  return `[${shown.join(' ')}]`;
}
