/** Servers: create, list, get, update, delete, power actions and network attachment. */
import { z } from 'zod';
import { Id, Ipv4, Ipv6, Labels, ListMeta, Name, Timestamp } from './common.ts';
import { Action } from './actions.ts';

export const ServerStatus = {
  initializing: 'initializing',
  starting: 'starting',
  running: 'running',
  stopping: 'stopping',
  off: 'off',
  deleting: 'deleting',
} as const;
export type ServerStatus = (typeof ServerStatus)[keyof typeof ServerStatus];

export const PrivateNet = z.object({ network_id: Id, ip: Ipv4 });
export type PrivateNet = z.infer<typeof PrivateNet>;

export const Server = z.object({
  id: Id,
  name: Name,
  status: z.enum(ServerStatus),
  server_type: z.string(),
  image: z.string(),
  zone: z.string(),
  region: z.string(),
  labels: Labels,
  public_ipv4: Ipv4.nullable(),
  /**
   * The server's public IPv6 address: the first host (`::1`) of the /64 it is given from 2001:db8:1::/48 (the
   * documentation prefix). Data only: nothing listens on it and no traffic reaches it. null: no public IPv6.
   */
  public_ipv6: Ipv6.nullable(),
  /** The server's primary private address: its first network's IP, or one given at create. */
  private_ipv4: Ipv4.nullable(),
  private_networks: z.array(PrivateNet),
  /** Set while an action runs on the server; mutating calls get `locked`. */
  locked: z.boolean(),
  created: Timestamp,
});
export type Server = z.infer<typeof Server>;

export const CreateServerRequest = z.strictObject({
  name: Name,
  server_type: z.string().min(1).max(63),
  image: z.string().min(1).max(63),
  zone: z.string().min(1).max(63),
  labels: Labels.optional(),
  /** Network ids to attach at create; the first one gives `private_ipv4`. */
  networks: z.array(Id).max(8).optional(),
  /** Explicit addresses (e.g. a kind container's real IP); conflict when taken. */
  public_ipv4: Ipv4.optional(),
  private_ipv4: Ipv4.optional(),
  /** false: no public IPv4 (and, unless `ipv6` is true, no public IPv6 either). */
  public_net: z.boolean().optional(),
  /** Whether the server gets a public IPv6 /64 (`public_ipv6`); default: as `public_net`. */
  ipv6: z.boolean().optional(),
  /** Start powered on (default true); false leaves the server `off` after create. */
  start_after_create: z.boolean().optional(),
});
export type CreateServerRequest = z.infer<typeof CreateServerRequest>;

export const UpdateServerRequest = z.strictObject({ name: Name.optional(), labels: Labels.optional() });
export type UpdateServerRequest = z.infer<typeof UpdateServerRequest>;

export const AttachServerToNetworkRequest = z.strictObject({ network_id: Id, ip: Ipv4.optional() });
export type AttachServerToNetworkRequest = z.infer<typeof AttachServerToNetworkRequest>;
export const DetachServerFromNetworkRequest = z.strictObject({ network_id: Id });
export type DetachServerFromNetworkRequest = z.infer<typeof DetachServerFromNetworkRequest>;

export const ServerActionName = { poweron: 'poweron', poweroff: 'poweroff', shutdown: 'shutdown', reboot: 'reboot' } as const;
export type ServerActionName = (typeof ServerActionName)[keyof typeof ServerActionName];

export const ServerResponse = z.object({ server: Server });
export const ServerCreateResponse = z.object({ server: Server, action: Action });
export const ServerListResponse = z.object({ servers: z.array(Server), meta: ListMeta });
