/**
 * Upstream `LoadBalancer`: the service-lb-controller's view of a cloud load balancer. Arguments are
 * read-only: implementations must not mutate the Service or Nodes they are given.
 */
import type { V1LoadBalancerStatus, V1Node, V1Service } from '@kubernetes/client-node';
import type { CallContext } from './provider.ts';

/** Result of `getLoadBalancer`. */
export interface LoadBalancerLookup {
  readonly status: V1LoadBalancerStatus | undefined;
  /** True if ANY cloud resource created for this Service still exists (upstream contract). */
  readonly exists: boolean;
}

export interface LoadBalancer {
  /**
   * Upstream `GetLoadBalancer(cluster, svc)`: whether an LB for the Service exists and its status.
   * Must report `exists: true` while anything created for the Service remains, so the finalizer stays.
   */
  getLoadBalancer(clusterName: string, service: V1Service, ctx?: CallContext): Promise<LoadBalancerLookup>;
  /** Upstream `GetLoadBalancerName`: the cloud name for the Service's LB (see `defaultLoadBalancerName`). */
  getLoadBalancerName(clusterName: string, service: V1Service): string;
  /**
   * Upstream `EnsureLoadBalancer(cluster, svc, nodes)`: create or update the LB so that it serves the
   * Service through `nodes`, and return its status. Idempotent. May throw `ImplementedElsewhereError`
   * (controller then skips the status write) or `RetryError` (requeue after exactly that delay).
   */
  ensureLoadBalancer(clusterName: string, service: V1Service, nodes: readonly V1Node[], ctx?: CallContext): Promise<V1LoadBalancerStatus>;
  /**
   * Upstream `UpdateLoadBalancer(cluster, svc, nodes)`: update only the backend hosts. Called by the
   * node sync, never to create an LB. May throw `ImplementedElsewhereError`.
   */
  updateLoadBalancer(clusterName: string, service: V1Service, nodes: readonly V1Node[], ctx?: CallContext): Promise<void>;
  /**
   * Upstream `EnsureLoadBalancerDeleted(cluster, svc)`: delete everything created for the Service.
   * Must succeed when nothing exists. Must not throw `ImplementedElsewhereError`.
   */
  ensureLoadBalancerDeleted(clusterName: string, service: V1Service, ctx?: CallContext): Promise<void>;
}

/**
 * Upstream `cloudprovider.DefaultLoadBalancerName`: `"a"` + the UID without dashes, at most 32 chars.
 */
export function defaultLoadBalancerName(service: V1Service): string {
  const name = `a${service.metadata?.uid ?? ''}`.replaceAll('-', '');
  return name.slice(0, 32);
}
