/**
 * KubePort: every Kubernetes API write (and uncached read) the controllers make, one method per
 * upstream call shape. `ClientKube` (client-kube.ts) implements it over the CCM's `KubeClient` with the right
 * patch types; `MemoryKube` (memory-kube.ts) implements it in memory for controller unit tests.
 *
 * Errors: API failures are thrown as `KubeApiError`s (classify with `isConflict` /
 * `isNotFound` from errors.ts), so retry-on-conflict works against both implementations.
 */
import type { CoreV1Event, V1LoadBalancerStatus, V1Node, V1NodeAddress, V1NodeCondition, V1Service, V1Taint } from '@kubernetes/client-node';

export interface KubePort {
  /** GET a node. `fromCache` sends `resourceVersion=0` (served from the apiserver cache). */
  getNode(name: string, options?: { fromCache?: boolean }): Promise<V1Node>;
  /** Full PUT of the Node (optimistic concurrency on `metadata.resourceVersion`). */
  updateNode(node: V1Node): Promise<V1Node>;
  /** Strategic-merge patch of `metadata.labels` (only the given keys). */
  patchNodeLabels(name: string, labels: Readonly<Record<string, string>>): Promise<V1Node>;
  /** Strategic-merge patch replacing `spec.taints`, guarded by `metadata.resourceVersion`. */
  patchNodeTaints(name: string, taints: readonly V1Taint[], resourceVersion: string): Promise<V1Node>;
  /** Replaces `status.addresses` as a whole (JSON patch on the status subresource). */
  replaceNodeAddresses(name: string, addresses: readonly V1NodeAddress[]): Promise<V1Node>;
  /** Strategic-merge patch of one `status.conditions` entry (merge key `type`) on the status subresource. */
  patchNodeCondition(name: string, condition: V1NodeCondition): Promise<V1Node>;
  /** DELETE the Node (no preconditions). */
  deleteNode(name: string): Promise<void>;
  /** Appends `finalizer` to the Service via a strategic-merge patch on `services/status`. */
  addServiceFinalizer(service: V1Service, finalizer: string): Promise<V1Service>;
  /** Removes only `finalizer` (`$deleteFromPrimitiveList`) via `services/status`. */
  removeServiceFinalizer(service: V1Service, finalizer: string): Promise<V1Service>;
  /** Sets `status.loadBalancer` via a strategic-merge patch on `services/status`. */
  patchServiceLoadBalancerStatus(service: V1Service, status: V1LoadBalancerStatus): Promise<V1Service>;
  /** Creates an Event (namespace from `event.metadata.namespace`). */
  createEvent(event: CoreV1Event): Promise<void>;
  /** Patches an existing Event's count/lastTimestamp/message (aggregation). */
  patchEvent(namespace: string, name: string, patch: { count: number; lastTimestamp: Date; message: string }): Promise<void>;
}
