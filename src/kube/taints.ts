/**
 * Node taint helpers (upstream `cloud-provider/node/helpers/taints.go`). Writes replace `spec.taints`
 * with a strategic-merge patch that includes `metadata.resourceVersion`, so a concurrent writer
 * causes a conflict, retried 5 × 100 ms. The first read is `resourceVersion=0` (apiserver cache),
 * retries do a full GET.
 */
import type { V1Node, V1Taint } from '@kubernetes/client-node';
import type { Clock } from './clock.ts';
import type { KubePort } from './kube-port.ts';
import { NodeWriteBackoff, retryOnConflict } from './retry.ts';

export const TaintKey = {
  Uninitialized: 'node.cloudprovider.kubernetes.io/uninitialized',
  Shutdown: 'node.cloudprovider.kubernetes.io/shutdown',
  ToBeDeletedByClusterAutoscaler: 'ToBeDeletedByClusterAutoscaler',
} as const;

/** The shutdown taint: key only, effect NoSchedule, no value, no timeAdded. */
export const ShutdownTaint: V1Taint = { key: TaintKey.Shutdown, effect: 'NoSchedule' };

/** Taint equality as upstream `Taint.MatchTaint`: key and effect. */
export function matchTaint(a: V1Taint, b: V1Taint): boolean {
  return a.key === b.key && a.effect === b.effect;
}

export function hasTaint(node: V1Node, taint: V1Taint): boolean {
  return (node.spec?.taints ?? []).some((t) => matchTaint(t, taint));
}

/** True if any taint has `key` (value and effect ignored). */
export function hasTaintKey(node: V1Node, key: string): boolean {
  return (node.spec?.taints ?? []).some((t) => t.key === key);
}

/** Adds `taint` unless an identical one (key, effect, value) is already there. */
export async function addTaintToNode(kube: KubePort, name: string, taint: V1Taint, clock: Clock): Promise<void> {
  await retryOnConflict(
    NodeWriteBackoff,
    async (attempt) => {
      const node = await kube.getNode(name, { fromCache: attempt === 0 });
      const taints = node.spec?.taints ?? [];
      const same = taints.find((t) => matchTaint(t, taint));
      if (same && same.value === taint.value) return;
      const next = [...taints.filter((t) => !matchTaint(t, taint)), taint];
      await kube.patchNodeTaints(name, next, node.metadata?.resourceVersion ?? '');
    },
    { clock },
  );
}

/** Removes `taint` (key + effect). No API call when the given node does not carry it. */
export async function removeTaintFromNode(kube: KubePort, node: V1Node, taint: V1Taint, clock: Clock): Promise<void> {
  if (!hasTaint(node, taint)) return;
  const name = node.metadata?.name ?? '';
  await retryOnConflict(
    NodeWriteBackoff,
    async (attempt) => {
      const current = await kube.getNode(name, { fromCache: attempt === 0 });
      if (!hasTaint(current, taint)) return;
      const next = (current.spec?.taints ?? []).filter((t) => !matchTaint(t, taint));
      await kube.patchNodeTaints(name, next, current.metadata?.resourceVersion ?? '');
    },
    { clock },
  );
}
