/**
 * Upstream `Routes`: cloud routes sending a node's pod CIDR to the node.
 */
import type { V1NodeAddress } from '@kubernetes/client-node';
import type { CallContext } from './provider.ts';

/** Upstream `cloudprovider.Route`. */
export interface Route {
  /** Cloud-assigned name; ignored by `createRoute` (the cloud derives it from `nameHint`). */
  readonly name: string;
  /** The node name the route points at; empty when the cloud cannot tell (route is then unindexed). */
  readonly targetNode: string;
  /** The node's `status.addresses`; compared only when `enableNodeAddresses` is set. */
  readonly targetNodeAddresses: readonly V1NodeAddress[];
  /** The pod CIDR, e.g. `10.244.1.0/24`. */
  readonly destinationCIDR: string;
  /** True when the route's target is gone; the route controller deletes blackhole routes. */
  readonly blackhole: boolean;
  /** When true the controller compares `targetNodeAddresses` and recreates routes whose addresses drift. */
  readonly enableNodeAddresses: boolean;
}

export interface Routes {
  /** Upstream `ListRoutes(cluster)`: every route of the cluster. */
  listRoutes(clusterName: string, ctx?: CallContext): Promise<Route[]>;
  /**
   * Upstream `CreateRoute(cluster, nameHint, route)`: create the route. `nameHint` is the node UID and
   * may be used to name the cloud route. Should be idempotent for the same (target, CIDR).
   */
  createRoute(clusterName: string, nameHint: string, route: Route, ctx?: CallContext): Promise<void>;
  /** Upstream `DeleteRoute(cluster, route)`: delete the route (matched by target node + CIDR). */
  deleteRoute(clusterName: string, route: Route, ctx?: CallContext): Promise<void>;
}
