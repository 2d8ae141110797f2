/**
 * What the Hetzner persona answers, as the Hetzner Cloud API documents it (field names and nullability from its
 * reference and hcloud-go/v2's hcloud/schema): every route declares one of these as its response, the views
 * return their types, and docs/reference/hcloud-parity.md lists their fields. A field the API always fills is
 * not nullable here: a load balancer's public_net.ipv6.ip, which Hetzner's CCM writes into the Service's
 * status, is a string.
 */
import { z } from 'zod';
import { Int, NoContent } from '../responses.ts';

const Time = z.iso.datetime({ offset: true });
const Labels = z.record(z.string(), z.string());
const Deprecation = z.strictObject({ announced: Time, unavailable_after: Time }).nullable();
const Price = z.strictObject({ net: z.string(), gross: z.string() });
const LocationPrice = z.strictObject({ location: z.string(), price_hourly: Price, price_monthly: Price });

export const Location = z.strictObject({
  id: Int,
  name: z.string(),
  description: z.string(),
  country: z.string(),
  city: z.string(),
  latitude: z.number(),
  longitude: z.number(),
  network_zone: z.string(),
});
export type Location = z.infer<typeof Location>;

export const Datacenter = z.strictObject({
  id: Int,
  name: z.string(),
  description: z.string(),
  location: Location,
  server_types: z.strictObject({ supported: z.array(Int), available: z.array(Int), available_for_migration: z.array(Int) }),
});
export type Datacenter = z.infer<typeof Datacenter>;

export const ServerType = z.strictObject({
  id: Int,
  name: z.string(),
  description: z.string(),
  category: z.string(),
  cores: Int,
  memory: z.number(),
  disk: Int,
  storage_type: z.enum(['local', 'network']),
  cpu_type: z.enum(['shared', 'dedicated']),
  architecture: z.enum(['x86', 'arm']),
  included_traffic: Int,
  prices: z.array(LocationPrice),
  deprecated: z.boolean(),
  deprecation: Deprecation,
  locations: z.array(z.strictObject({ id: Int, name: z.string(), recommended: z.boolean(), available: z.boolean(), deprecation: Deprecation })),
});
export type ServerType = z.infer<typeof ServerType>;

export const Image = z.strictObject({
  id: Int,
  status: z.enum(['available', 'creating', 'unavailable']),
  type: z.enum(['system', 'app', 'snapshot', 'backup', 'temporary']),
  name: z.string().nullable(),
  description: z.string(),
  image_size: z.number().nullable(),
  disk_size: z.number(),
  created: Time,
  created_from: z.strictObject({ id: Int, name: z.string() }).nullable(),
  bound_to: Int.nullable(),
  os_flavor: z.string(),
  os_version: z.string().nullable(),
  architecture: z.enum(['x86', 'arm']),
  rapid_deploy: z.boolean(),
  protection: z.strictObject({ delete: z.boolean() }),
  deprecated: Time.nullable(),
  deleted: Time.nullable(),
  labels: Labels,
});
export type Image = z.infer<typeof Image>;

export const LoadBalancerType = z.strictObject({
  id: Int,
  name: z.string(),
  description: z.string(),
  max_connections: Int,
  max_services: Int,
  max_targets: Int,
  max_assigned_certificates: Int,
  prices: z.array(LocationPrice),
  deprecated: z.string().nullable(),
  deprecation: Deprecation,
});
export type LoadBalancerType = z.infer<typeof LoadBalancerType>;

export const Action = z.strictObject({
  id: Int,
  command: z.string(),
  status: z.enum(['running', 'success', 'error']),
  progress: Int.min(0).max(100),
  started: Time,
  finished: Time.nullable(),
  error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
  resources: z.array(z.strictObject({ id: Int, type: z.string() })),
});
export type Action = z.infer<typeof Action>;

export const Server = z.strictObject({
  id: Int,
  name: z.string(),
  status: z.enum(['running', 'initializing', 'starting', 'stopping', 'off', 'deleting', 'migrating', 'rebuilding', 'unknown']),
  created: Time,
  public_net: z.strictObject({
    // A server created without a public IPv4 or IPv6 has null there.
    ipv4: z.strictObject({ id: Int, ip: z.ipv4(), blocked: z.boolean(), dns_ptr: z.string() }).nullable(),
    ipv6: z.strictObject({ id: Int, ip: z.cidrv6(), blocked: z.boolean(), dns_ptr: z.array(z.strictObject({ ip: z.ipv6(), dns_ptr: z.string() })) }).nullable(),
    floating_ips: z.array(Int),
    firewalls: z.array(z.strictObject({ id: Int, status: z.enum(['applied', 'pending']) })),
  }),
  private_net: z.array(z.strictObject({ network: Int, ip: z.ipv4(), alias_ips: z.array(z.ipv4()), mac_address: z.string() })),
  server_type: ServerType,
  // Hetzner deprecated a server's datacenter (its location stays); the persona still returns it, as Hetzner did.
  datacenter: Datacenter,
  location: Location,
  image: Image.nullable(),
  iso: z.strictObject({ id: Int, name: z.string().nullable(), description: z.string(), type: z.string().nullable() }).nullable(),
  rescue_enabled: z.boolean(),
  locked: z.boolean(),
  backup_window: z.string().nullable(),
  outgoing_traffic: Int.nullable(),
  ingoing_traffic: Int.nullable(),
  included_traffic: Int,
  protection: z.strictObject({ delete: z.boolean(), rebuild: z.boolean() }),
  labels: Labels,
  volumes: z.array(Int),
  load_balancers: z.array(Int),
  primary_disk_size: Int,
  placement_group: z.strictObject({ id: Int, name: z.string(), labels: Labels, type: z.string(), created: Time, servers: z.array(Int) }).nullable(),
});
export type Server = z.infer<typeof Server>;

export const Network = z.strictObject({
  id: Int,
  name: z.string(),
  created: Time,
  ip_range: z.cidrv4(),
  subnets: z.array(z.strictObject({ type: z.enum(['cloud', 'server', 'vswitch']), ip_range: z.cidrv4(), network_zone: z.string(), gateway: z.ipv4() })),
  routes: z.array(z.strictObject({ destination: z.cidrv4(), gateway: z.ipv4() })),
  servers: z.array(Int),
  load_balancers: z.array(Int),
  protection: z.strictObject({ delete: z.boolean() }),
  labels: Labels,
  expose_routes_to_vswitch: z.boolean(),
});
export type Network = z.infer<typeof Network>;

const HealthStatus = z.array(z.strictObject({ listen_port: Int, status: z.enum(['healthy', 'unhealthy', 'unknown']) }));
const ServerTarget = z.strictObject({
  type: z.literal('server'),
  server: z.strictObject({ id: Int }),
  health_status: HealthStatus,
  use_private_ip: z.boolean(),
});
const LbTarget = z.discriminatedUnion('type', [
  ServerTarget,
  z.strictObject({
    type: z.literal('label_selector'),
    label_selector: z.strictObject({ selector: z.string() }),
    health_status: HealthStatus,
    use_private_ip: z.boolean(),
    targets: z.array(ServerTarget),
  }),
  z.strictObject({ type: z.literal('ip'), ip: z.strictObject({ ip: z.ipv4() }), health_status: HealthStatus }),
]);
export type LbTarget = z.infer<typeof LbTarget>;

export const LbService = z.strictObject({
  protocol: z.enum(['tcp', 'http', 'https']),
  listen_port: Int,
  destination_port: Int,
  proxyprotocol: z.boolean(),
  http: z
    .strictObject({
      cookie_name: z.string(),
      cookie_lifetime: Int,
      certificates: z.array(Int),
      redirect_http: z.boolean(),
      sticky_sessions: z.boolean(),
      timeout_idle: Int,
    })
    .nullable(),
  health_check: z.strictObject({
    protocol: z.enum(['tcp', 'http', 'https']),
    port: Int,
    interval: Int,
    timeout: Int,
    retries: Int,
    http: z
      .strictObject({ domain: z.string().nullable(), path: z.string(), response: z.string().nullable(), status_codes: z.array(z.string()), tls: z.boolean() })
      .nullable(),
  }),
});
export type LbService = z.infer<typeof LbService>;

export const LoadBalancer = z.strictObject({
  id: Int,
  name: z.string(),
  created: Time,
  labels: Labels,
  public_net: z.strictObject({
    enabled: z.boolean(),
    ipv4: z.strictObject({ ip: z.ipv4(), dns_ptr: z.string(), blocked: z.boolean() }),
    ipv6: z.strictObject({ ip: z.ipv6(), dns_ptr: z.string(), blocked: z.boolean() }),
  }),
  private_net: z.array(z.strictObject({ network: Int, ip: z.ipv4() })),
  location: Location,
  load_balancer_type: LoadBalancerType,
  protection: z.strictObject({ delete: z.boolean() }),
  services: z.array(LbService),
  targets: z.array(LbTarget),
  algorithm: z.strictObject({ type: z.enum(['round_robin', 'least_connections']) }),
  included_traffic: Int,
  outgoing_traffic: Int.nullable(),
  ingoing_traffic: Int.nullable(),
});
export type LoadBalancer = z.infer<typeof LoadBalancer>;

export const Certificate = z.strictObject({
  id: Int,
  name: z.string(),
  labels: Labels,
  type: z.enum(['uploaded', 'managed']),
  certificate: z.string().nullable(),
  created: Time,
  not_valid_before: Time.nullable(),
  not_valid_after: Time.nullable(),
  domain_names: z.array(z.string()),
  fingerprint: z.string().nullable(),
  status: z.strictObject({ issuance: z.string(), renewal: z.string(), error: z.strictObject({ code: z.string(), message: z.string() }).nullable() }).nullable(),
  used_by: z.array(z.strictObject({ id: Int, type: z.string() })),
});
export type Certificate = z.infer<typeof Certificate>;

/** Hetzner's `meta` of a list. */
export const Meta = z.strictObject({
  pagination: z.strictObject({
    page: Int,
    per_page: Int,
    previous_page: Int.nullable(),
    next_page: Int.nullable(),
    last_page: Int.nullable(),
    total_entries: Int.nullable(),
  }),
});

/** Hetzner's error envelope; details.fields for invalid_input. */
export const ErrorBody = z.strictObject({
  error: z.strictObject({
    code: z.string(),
    message: z.string(),
    details: z.union([z.strictObject({ fields: z.array(z.strictObject({ name: z.string(), messages: z.array(z.string()) })) }), z.strictObject({})]),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

type ListShape<K extends string, T extends z.ZodType> = { [P in K]: z.ZodArray<T> } & { meta: typeof Meta };

/** A list: the items under `key` and `meta.pagination`. */
export function list<K extends string, T extends z.ZodType>(key: K, item: T): z.ZodObject<ListShape<K, T>, z.core.$strict> {
  return z.strictObject({ [key]: z.array(item), meta: Meta } as ListShape<K, T>);
}

/** A single object under its key (`{"server": {...}}`), with more keys where the answer has them. */
export function one<K extends string, T extends z.ZodType>(key: K, item: T): z.ZodObject<{ [P in K]: T }, z.core.$strict> {
  return z.strictObject({ [key]: item } as { [P in K]: T });
}

/** What an action endpoint answers. */
export const ActionAnswer = one('action', Action);

export const ServerCreated = z.strictObject({ server: Server, action: Action, next_actions: z.array(Action), root_password: z.string().nullable() });
export const LoadBalancerCreated = z.strictObject({ load_balancer: LoadBalancer, action: Action });

export { NoContent };
