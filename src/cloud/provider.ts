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
 * Per-call context: `signal` cancels the call, `caller` says who asks (controller name + object key,
 * e.g. `service-lb-controller default/web`); the simcloud provider sends it as `X-Simcloud-Caller`.
 */
export interface CallContext {
  readonly signal?: AbortSignal;
  readonly caller?: string;
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
