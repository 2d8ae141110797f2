/** Private networks: an IP range, subnets per zone, attached servers/LBs and routes. */
import { z } from 'zod';
import { Cidr, Id, Ipv4, Labels, ListMeta, Name, Timestamp } from './common.ts';
import { Action } from './actions.ts';

export const Subnet = z.object({ zone: z.string(), ip_range: Cidr, gateway: Ipv4 });
export type Subnet = z.infer<typeof Subnet>;

/** A route sends `destination` to `gateway`, an address inside the network (typically a node). */
export const Route = z.object({
  id: Id,
  /** Optional name given at create, e.g. `<cluster>-<node UID>` from a CCM's name hint; null when none. */
  name: Name.nullable(),
  destination: Cidr,
  gateway: Ipv4,
  created: Timestamp,
});
export type Route = z.infer<typeof Route>;

export const Network = z.object({
  id: Id,
  name: Name,
  ip_range: Cidr,
  subnets: z.array(Subnet),
  routes: z.array(Route),
  servers: z.array(Id),
  load_balancers: z.array(Id),
  labels: Labels,
  created: Timestamp,
});
export type Network = z.infer<typeof Network>;

export const CreateSubnet = z.strictObject({ zone: z.string().min(1).max(63), ip_range: Cidr });
export const CreateNetworkRequest = z.strictObject({
  name: Name,
  /** Defaults to the next free /24 of the private pool. */
  ip_range: Cidr.optional(),
  subnets: z.array(CreateSubnet).max(16).optional(),
  labels: Labels.optional(),
});
export type CreateNetworkRequest = z.infer<typeof CreateNetworkRequest>;

export const UpdateNetworkRequest = z.strictObject({ name: Name.optional(), labels: Labels.optional() });
export type UpdateNetworkRequest = z.infer<typeof UpdateNetworkRequest>;

export const CreateRouteRequest = z.strictObject({ destination: Cidr, gateway: Ipv4, name: Name.optional() });
export type CreateRouteRequest = z.infer<typeof CreateRouteRequest>;

export const NetworkResponse = z.object({ network: Network });
export const NetworkListResponse = z.object({ networks: z.array(Network), meta: ListMeta });
export const RouteListResponse = z.object({ routes: z.array(Route) });
export const RouteCreateResponse = z.object({ route: Route, action: Action });
