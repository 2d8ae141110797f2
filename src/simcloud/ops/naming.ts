/**
 * Names, labels and tags of every cloud resource the provider creates for a Service. They carry the cluster
 * name and the Service UID, so a restarted CCM finds what it made before instead of creating a duplicate,
 * and deletion finds everything. Changing any of them orphans existing resources: treat them as an API.
 */
import type { V1Service } from '@kubernetes/client-node';
import { defaultLoadBalancerName } from '../../cloud/load-balancer.ts';

export const LABELS = {
  managedBy: 'simcloud.dev/managed-by',
  cluster: 'simcloud.dev/cluster',
  serviceUid: 'simcloud.dev/service-uid',
  service: 'simcloud.dev/service',
} as const;

export const MANAGED_BY = 'simcloud-ccm';
/** phoenixNAP's `usage` tag: marks IP blocks allocated automatically by the CCM. */
export const IP_BLOCK_USAGE = 'simcloud-ccm-auto';

export function serviceUid(service: V1Service): string {
  const uid = service.metadata?.uid;
  if (!uid) throw new Error(`service ${serviceKey(service)} has no UID`);
  return uid;
}

/** `<namespace>/<name>`. */
export function serviceKey(service: V1Service): string {
  return `${service.metadata?.namespace ?? 'default'}/${service.metadata?.name ?? ''}`;
}

/** Cuts to at most `max` characters and trims trailing non-alphanumerics (simcloud names and label values). */
function fit(value: string, max: number): string {
  return value.slice(0, max).replace(/[^A-Za-z0-9]+$/, '');
}

/** `<namespace>.<name>`: tags and labels cannot hold `/` (phoenixNAP); at most 63 characters. */
export function serviceTagValue(service: V1Service): string {
  return fit(serviceKey(service).replace('/', '.'), 63);
}

/**
 * `<cluster>-a<uid without dashes, 31 chars>` (upstream's default LB name after the cluster name), at most
 * 63 characters: the cluster part is cut to 29; the UID part keeps it unique.
 */
export function resourceName(clusterName: string, service: V1Service): string {
  return `${fit(clusterName, 29)}-${defaultLoadBalancerName(service)}`;
}

export function ownerLabels(clusterName: string, service: V1Service): Record<string, string> {
  return {
    [LABELS.managedBy]: MANAGED_BY,
    [LABELS.cluster]: clusterName,
    [LABELS.serviceUid]: serviceUid(service),
    [LABELS.service]: serviceTagValue(service),
  };
}

/** Label selector for everything owned by this Service in this cluster. */
export function ownerSelector(clusterName: string, service: V1Service): string {
  return `${LABELS.cluster}=${clusterName},${LABELS.serviceUid}=${serviceUid(service)}`;
}

/** True when the labels say the resource belongs to this Service of this cluster. */
export function isOwnedBy(labels: Readonly<Record<string, string>> | undefined, clusterName: string, service: V1Service): boolean {
  return labels?.[LABELS.cluster] === clusterName && labels[LABELS.serviceUid] === service.metadata?.uid;
}

/** IP block tags, phoenixNAP style (`usage`, `cluster`, `service`) plus the UID for lookups. */
export function ipBlockTags(clusterName: string, service: V1Service): Record<string, string> {
  return { usage: IP_BLOCK_USAGE, cluster: clusterName, service: serviceTagValue(service), 'service-uid': serviceUid(service) };
}
