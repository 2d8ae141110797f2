/**
 * The cloud contract the controllers consume, mirroring upstream `k8s.io/cloud-provider` `cloud.go`.
 *
 * Capabilities are optional: an accessor returns `undefined` when the capability is absent
 * (upstream's `(nil, false)`), and the manager does not start the controllers that need it.
 * Legacy `Instances`, `Zones` and `Clusters` are not part of this contract: only InstancesV2 exists,
 * so the controllers implement the V2 paths of upstream.
 */
import type { InstancesV2 } from './instances.ts';
import type { LoadBalancer } from './load-balancer.ts';
import type { Routes } from './routes.ts';

/**
 * The cloud-provider interface methods by their upstream (Go) names. A provider sends the one it is executing
 * with every cloud call, so the cloud's call log says which method a request belongs to without guessing.
 */
export const CloudMethod = {
  initialize: 'Initialize',
  instanceExists: 'InstanceExists',
  instanceShutdown: 'InstanceShutdown',
  instanceMetadata: 'InstanceMetadata',
  getLoadBalancer: 'GetLoadBalancer',
  ensureLoadBalancer: 'EnsureLoadBalancer',
  updateLoadBalancer: 'UpdateLoadBalancer',
  ensureLoadBalancerDeleted: 'EnsureLoadBalancerDeleted',
  listRoutes: 'ListRoutes',
  createRoute: 'CreateRoute',
  deleteRoute: 'DeleteRoute',
} as const;
export type CloudMethod = (typeof CloudMethod)[keyof typeof CloudMethod];

/**
 * Per-call context: `signal` cancels the call, `caller` says who asks (controller name + object key,
 * e.g. `service-lb-controller default/web`), `method` which interface method is running; the simcloud
 * provider sends them as `X-Simcloud-Caller` and `X-Simcloud-Method`.
 */
export interface CallContext {
  readonly signal?: AbortSignal;
  readonly caller?: string;
  readonly method?: CloudMethod;
}

/** `ctx` inside interface method `method` (set by the provider at the method's entry). */
export function inMethod(ctx: CallContext | undefined, method: CloudMethod): CallContext {
  return { ...ctx, method };
}

export interface CloudProvider {
  /** Upstream `ProviderName()`: the providerID scheme, e.g. `simcloud` in `simcloud://<id>`. */
  readonly providerName: string;
  /**
   * Upstream `Initialize(clientBuilder, stop)`: called once before any controller starts; may start
   * background work that ends with `signal`. May probe the cloud and throw on bad credentials.
   */
  initialize?(signal: AbortSignal): Promise<void>;
  /** Upstream `InstancesV2()`; `undefined` = unsupported (node controllers are skipped). */
  instances(): InstancesV2 | undefined;
  /** Upstream `LoadBalancer()`; `undefined` = unsupported (service controller is skipped). */
  loadBalancer(): LoadBalancer | undefined;
  /** Upstream `Routes()`; `undefined` = unsupported (route controller is skipped). */
  routes(): Routes | undefined;
}
