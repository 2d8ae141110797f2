/**
 * Patch bodies and their content types, one function per write upstream makes, with the same patch type.
 * Pure, so the exact wire shape is unit-tested; `client-kube.ts` sends them.
 */
import { PatchStrategy, type V1LoadBalancerStatus, type V1NodeAddress, type V1NodeCondition, type V1Taint } from '@kubernetes/client-node';

export interface PatchRequest {
  readonly contentType: PatchStrategy;
  readonly body: unknown;
}

/** Labels: strategic merge of only the given keys. */
export function nodeLabelsPatch(labels: Readonly<Record<string, string>>): PatchRequest {
  return { contentType: PatchStrategy.StrategicMergePatch, body: { metadata: { labels } } };
}

/** Taints: the whole list (no merge key on `spec.taints`) guarded by resourceVersion. */
export function nodeTaintsPatch(taints: readonly V1Taint[], resourceVersion: string): PatchRequest {
  return { contentType: PatchStrategy.StrategicMergePatch, body: { metadata: { resourceVersion }, spec: { taints } } };
}

/**
 * Addresses: a JSON patch replacing `status.addresses` as a whole (upstream's strategic patch uses a
 * wrong merge key and works around it with `$patch: replace`). `add` replaces an existing member and
 * also works when the node has no addresses yet, where `replace` would fail.
 */
export function nodeAddressesPatch(addresses: readonly V1NodeAddress[]): PatchRequest {
  return { contentType: PatchStrategy.JsonPatch, body: [{ op: 'add', path: '/status/addresses', value: addresses }] };
}

/** One condition, strategic merge on `status.conditions` (merge key `type`). */
export function nodeConditionPatch(condition: V1NodeCondition): PatchRequest {
  return { contentType: PatchStrategy.StrategicMergePatch, body: { status: { conditions: [condition] } } };
}

/** Appends a finalizer (strategic merge on `metadata.finalizers`, which merges primitive lists). */
export function addFinalizerPatch(existing: readonly string[], finalizer: string): PatchRequest {
  const finalizers = [...existing, finalizer];
  return { contentType: PatchStrategy.StrategicMergePatch, body: { metadata: { finalizers } } };
}

/** Removes exactly one finalizer without clobbering others. */
export function removeFinalizerPatch(finalizer: string): PatchRequest {
  return { contentType: PatchStrategy.StrategicMergePatch, body: { metadata: { '$deleteFromPrimitiveList/finalizers': [finalizer] } } };
}

/** `status.loadBalancer`; an empty status clears the ingress list. */
export function loadBalancerStatusPatch(status: V1LoadBalancerStatus): PatchRequest {
  const ingress = status.ingress && status.ingress.length > 0 ? status.ingress : null;
  return { contentType: PatchStrategy.StrategicMergePatch, body: { status: { loadBalancer: { ingress } } } };
}
