/**
 * Brightbox persona: the objects its routes answer with, as zod schemas following Brightbox's API reference and
 * gobrightbox v2.2.2's structs (field names, nesting of related resources as short references). Enumerations
 * decode strictly in gobrightbox (an empty string is an error), so an unset one is null, never "".
 */
import { z } from 'zod';

const Ref = { id: z.string(), resource_type: z.string(), url: z.string() };
const Time = z.string();

export const ZoneRef = z.strictObject({ ...Ref, handle: z.string() });
export const Zone = ZoneRef;

export const ServerType = z.strictObject({
  ...Ref,
  name: z.string(),
  handle: z.string(),
  status: z.enum(['experimental', 'available', 'deprecated']),
  cores: z.number().int(),
  ram: z.number().int(),
  disk_size: z.number().int(),
  storage_type: z.enum(['local', 'network']),
});
export type ServerType = z.infer<typeof ServerType>;

export const Image = z.strictObject({
  ...Ref,
  name: z.string(),
  username: z.string(),
  status: z.enum(['creating', 'available', 'deprecated', 'unavailable', 'deleting', 'deleted', 'failed']),
  locked: z.boolean(),
  description: z.string(),
  source: z.string(),
  arch: z.enum(['x86_64', 'i686']),
  official: z.boolean(),
  public: z.boolean(),
  owner: z.string(),
  source_type: z.enum(['upload', 'snapshot']),
  virtual_size: z.number().int(),
  disk_size: z.number().int(),
  created_at: Time,
});
export type Image = z.infer<typeof Image>;

export const Interface = z.strictObject({ ...Ref, mac_address: z.string(), ipv4_address: z.string(), ipv6_address: z.string() });

const NamedRef = { ...Ref, name: z.string() };
export const AccountRef = z.strictObject({ ...NamedRef, status: z.literal('active') });
export type AccountRef = z.infer<typeof AccountRef>;
export const ServerRef = z.strictObject({ ...NamedRef, status: z.string(), hostname: z.string(), fqdn: z.string() });
export const GroupRef = z.strictObject({ ...NamedRef, description: z.string(), default: z.boolean(), fqdn: z.string() });
export const LbRef = z.strictObject({ ...NamedRef, status: z.string() });
export type ServerRef = z.infer<typeof ServerRef>;
export type GroupRef = z.infer<typeof GroupRef>;
export type CloudIpRef = z.infer<typeof CloudIpRef>;
export const CloudIpRef = z.strictObject({
  ...NamedRef,
  public_ip: z.string(),
  public_ipv4: z.string(),
  public_ipv6: z.string(),
  reverse_dns: z.string(),
  fqdn: z.string(),
});

export const Server = z.strictObject({
  ...NamedRef,
  status: z.enum(['creating', 'active', 'inactive', 'deleting', 'deleted', 'failed', 'unavailable']),
  hostname: z.string(),
  fqdn: z.string(),
  created_at: Time,
  deleted_at: Time.nullable(),
  started_at: Time.nullable(),
  locked: z.boolean(),
  compatibility_mode: z.boolean(),
  disk_encrypted: z.boolean(),
  account: AccountRef,
  image: z.strictObject({ ...NamedRef, username: z.string() }),
  zone: ZoneRef,
  server_type: ServerType,
  cloud_ips: z.array(CloudIpRef),
  server_groups: z.array(GroupRef),
  interfaces: z.array(Interface),
  snapshots: z.array(z.never()),
});
export type Server = z.infer<typeof Server>;

export const ServerGroup = z.strictObject({
  ...NamedRef,
  description: z.string(),
  default: z.boolean(),
  fqdn: z.string(),
  created_at: Time,
  account: AccountRef,
  firewall_policy: z.strictObject({ ...NamedRef, default: z.boolean() }).nullable(),
  servers: z.array(ServerRef),
});
export type ServerGroup = z.infer<typeof ServerGroup>;

export const FirewallRule = z.strictObject({
  ...Ref,
  source: z.string().nullable(),
  source_port: z.string().nullable(),
  destination: z.string().nullable(),
  destination_port: z.string().nullable(),
  protocol: z.string().nullable(),
  icmp_type_name: z.string().nullable(),
  description: z.string().nullable(),
  created_at: Time,
  firewall_policy: z.strictObject({ ...NamedRef, default: z.boolean() }),
});
export type FirewallRule = z.infer<typeof FirewallRule>;

export const FirewallPolicy = z.strictObject({
  ...NamedRef,
  default: z.boolean(),
  description: z.string().nullable(),
  created_at: Time,
  account: AccountRef,
  server_group: GroupRef.nullable(),
  rules: z.array(FirewallRule.omit({ firewall_policy: true })),
});
export type FirewallPolicy = z.infer<typeof FirewallPolicy>;

export const Listener = z.strictObject({
  protocol: z.enum(['tcp', 'http', 'https']),
  in: z.number().int(),
  out: z.number().int(),
  timeout: z.number().int(),
  proxy_protocol: z.enum(['v1', 'v2', 'v2-ssl', 'v2-ssl-cn']).nullable(),
});
export const Healthcheck = z.strictObject({
  type: z.enum(['tcp', 'http']),
  port: z.number().int(),
  request: z.string(),
  interval: z.number().int(),
  timeout: z.number().int(),
  threshold_up: z.number().int(),
  threshold_down: z.number().int(),
});

export const LoadBalancer = z.strictObject({
  ...NamedRef,
  status: z.enum(['creating', 'active', 'deleting', 'deleted', 'failing', 'failed']),
  locked: z.boolean(),
  https_redirect: z.boolean(),
  ssl_minimum_version: z.string(),
  buffer_size: z.number().int(),
  policy: z.enum(['least-connections', 'round-robin', 'source-address']),
  listeners: z.array(Listener),
  healthcheck: Healthcheck,
  certificate: z.strictObject({ expires_at: Time, valid_from: Time, sslv3: z.boolean(), issuer: z.string(), subject: z.string() }).nullable(),
  acme: z.null(),
  created_at: Time,
  deleted_at: Time.nullable(),
  account: AccountRef,
  nodes: z.array(ServerRef),
  cloud_ips: z.array(CloudIpRef),
});
export type LoadBalancer = z.infer<typeof LoadBalancer>;

export const CloudIp = z.strictObject({
  ...CloudIpRef.shape,
  status: z.enum(['mapped', 'unmapped']),
  mode: z.enum(['nat', 'route']),
  account: AccountRef,
  interface: Interface.nullable(),
  server: ServerRef.nullable(),
  server_group: z.null(),
  load_balancer: LbRef.nullable(),
  database_server: z.null(),
  port_translators: z.array(z.never()),
});
export type CloudIp = z.infer<typeof CloudIp>;

export const Account = z.strictObject({
  ...AccountRef.shape,
  ram_limit: z.number().int(),
  ram_used: z.number().int(),
  servers_used: z.number().int(),
  cloud_ips_limit: z.number().int(),
  cloud_ips_used: z.number().int(),
  load_balancers_limit: z.number().int(),
  load_balancers_used: z.number().int(),
  created_at: Time,
  zones: z.array(ZoneRef),
});
export type Account = z.infer<typeof Account>;
