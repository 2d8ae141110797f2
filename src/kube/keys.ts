/** Object keys as client-go's `MetaNamespaceKeyFunc`: `namespace/name`, or `name` for cluster objects. */
import type { KubernetesObject } from '@kubernetes/client-node';

export function objectKey(obj: KubernetesObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

/** Splits a key into namespace (empty for cluster objects) and name. */
export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
