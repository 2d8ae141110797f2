/**
 * Patch bodies and their content types, one function per write upstream makes, with the same patch type.
 * Pure, so the exact wire shape is unit-tested; `client-kube.ts` sends them.
 */
import type { V1LoadBalancerStatus, V1NodeAddress, V1NodeCondition, V1Taint } from '@kubernetes/client-node';
import { PatchTypes, type PatchType } from './api-client.ts';

export interface PatchRequest {
  readonly contentType: PatchType;
  readonly body: unknown;
}

/** Labels: strategic merge of only the given keys. */
export function nodeLabelsPatch(labels: Readonly<Record<string, string>>): PatchRequest {
  return { contentType: PatchTypes.strategicMerge, body: { metadata: { labels } } };
}

/** Taints: the whole list (no merge key on `spec.taints`) guarded by resourceVersion. */
export function nodeTaintsPatch(taints: readonly V1Taint[], resourceVersion: string): PatchRequest {
  return { contentType: PatchTypes.strategicMerge, body: { metadata: { resourceVersion }, spec: { taints } } };
}

/**
 * Addresses: a JSON patch replacing `status.addresses` as a whole (upstream's strategic patch uses a
 * wrong merge key and works around it with `$patch: replace`). `add` replaces an existing member and
 * also works when the node has no addresses yet, where `replace` would fail.
 */
export function nodeAddressesPatch(addresses: readonly V1NodeAddress[]): PatchRequest {
  return { contentType: PatchTypes.json, body: [{ op: 'add', path: '/status/addresses', value: addresses }] };
}

/** One condition, strategic merge on `status.conditions` (merge key `type`). */
export function nodeConditionPatch(condition: V1NodeCondition): PatchRequest {
  return { contentType: PatchTypes.strategicMerge, body: { status: { conditions: [condition] } } };
}

/** Appends a finalizer (strategic merge on `metadata.finalizers`, which merges primitive lists). */
export function addFinalizerPatch(existing: readonly string[], finalizer: string): PatchRequest {
  const finalizers = [...existing, finalizer];
  return { contentType: PatchTypes.strategicMerge, body: { metadata: { finalizers } } };
}

/** Removes exactly one finalizer without clobbering others. */
export function removeFinalizerPatch(finalizer: string): PatchRequest {
  return { contentType: PatchTypes.strategicMerge, body: { metadata: { '$deleteFromPrimitiveList/finalizers': [finalizer] } } };
}

/** `status.loadBalancer`; an empty status clears the ingress list. */
export function loadBalancerStatusPatch(status: V1LoadBalancerStatus): PatchRequest {
  const ingress = status.ingress && status.ingress.length > 0 ? status.ingress : null;
  return { contentType: PatchTypes.strategicMerge, body: { status: { loadBalancer: { ingress } } } };
}
