/**
 * What the DigitalOcean persona answers, as DigitalOcean's API v2 documents it (field names, required fields
 * and nullability from its OpenAPI description and godo's structs): every route declares one of these as its
 * response, the views return their types, and docs/reference/digitalocean-parity.md lists their fields. A
 * field the API always fills is not nullable here.
 */
import { z } from 'zod';
import { Int, NoContent } from '../responses.ts';

/** DigitalOcean's timestamps: UTC, seconds, `Z`. */
const Time = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'a DigitalOcean timestamp (YYYY-MM-DDTHH:MM:SSZ)');
const Tags = z.array(z.string());

export const Region = z.strictObject({ slug: z.string(), name: z.string(), sizes: z.array(z.string()), available: z.boolean(), features: z.array(z.string()) });
export type Region = z.infer<typeof Region>;

export const Size = z.strictObject({
  slug: z.string(),
  memory: Int,
  vcpus: Int,
  disk: Int,
  transfer: z.number(),
  price_monthly: z.number(),
  price_hourly: z.number(),
  regions: z.array(z.string()),
  available: z.boolean(),
  description: z.string(),
});
export type Size = z.infer<typeof Size>;

export const Account = z.strictObject({
  droplet_limit: Int,
  floating_ip_limit: Int,
  volume_limit: Int.optional(),
  email: z.string(),
  uuid: z.string(),
  email_verified: z.boolean(),
  status: z.enum(['active', 'warning', 'locked']),
  status_message: z.string(),
});
export type Account = z.infer<typeof Account>;

const Image = z.strictObject({
  id: Int,
  name: z.string(),
  type: z.enum(['base', 'snapshot', 'backup', 'custom', 'admin']),
  distribution: z.string(),
  slug: z.string().nullable(),
  public: z.boolean(),
  regions: z.array(z.string()),
  min_disk_size: Int.nullable(),
  size_gigabytes: z.number().nullable(),
  status: z.enum(['NEW', 'available', 'pending', 'deleted', 'retired']),
});

const NetworkV4 = z.strictObject({ ip_address: z.ipv4(), netmask: z.ipv4(), gateway: z.string(), type: z.enum(['public', 'private']) });
const NetworkV6 = z.strictObject({ ip_address: z.ipv6(), netmask: Int, gateway: z.string(), type: z.enum(['public']) });

export const Droplet = z.strictObject({
  id: Int,
  name: z.string(),
  memory: Int,
  vcpus: Int,
  disk: Int,
  locked: z.boolean(),
  status: z.enum(['new', 'active', 'off', 'archive']),
  kernel: z.strictObject({ id: Int, name: z.string(), version: z.string() }).nullable(),
  created_at: Time,
  features: z.array(z.string()),
  backup_ids: z.array(Int),
  next_backup_window: z.strictObject({ start: Time, end: Time }).nullable(),
  snapshot_ids: z.array(Int),
  image: Image,
  volume_ids: z.array(z.string()),
  size: Size,
  size_slug: z.string(),
  networks: z.strictObject({ v4: z.array(NetworkV4), v6: z.array(NetworkV6) }),
  region: Region,
  tags: Tags,
  vpc_uuid: z.string(),
});
export type Droplet = z.infer<typeof Droplet>;

export const Action = z.strictObject({
  id: Int,
  status: z.enum(['in-progress', 'completed', 'errored']),
  type: z.string(),
  started_at: Time,
  completed_at: Time.nullable(),
  resource_id: Int.nullable(),
  resource_type: z.string(),
  region: Region.nullable(),
  region_slug: z.string().nullable(),
});
export type Action = z.infer<typeof Action>;

const ForwardingRule = z.strictObject({
  entry_protocol: z.enum(['http', 'https', 'http2', 'http3', 'tcp', 'udp']),
  entry_port: Int,
  target_protocol: z.enum(['http', 'https', 'http2', 'tcp', 'udp']),
  target_port: Int,
  certificate_id: z.string(),
  tls_passthrough: z.boolean(),
});

export const LoadBalancer = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  project_id: z.string(),
  ip: z.string(),
  ipv6: z.string(),
  size_unit: Int,
  size: z.string(),
  type: z.enum(['REGIONAL', 'REGIONAL_NETWORK', 'GLOBAL']),
  algorithm: z.enum(['round_robin', 'least_connections']),
  status: z.enum(['new', 'active', 'errored']),
  created_at: Time,
  forwarding_rules: z.array(ForwardingRule),
  health_check: z.strictObject({
    protocol: z.enum(['http', 'https', 'tcp']),
    port: Int,
    path: z.string(),
    check_interval_seconds: Int,
    response_timeout_seconds: Int,
    unhealthy_threshold: Int,
    healthy_threshold: Int,
    proxy_protocol: z.boolean(),
  }),
  sticky_sessions: z.strictObject({ type: z.enum(['cookies', 'none']), cookie_name: z.string(), cookie_ttl_seconds: Int }),
  region: Region,
  tag: z.string(),
  droplet_ids: z.array(Int),
  redirect_http_to_https: z.boolean(),
  enable_proxy_protocol: z.boolean(),
  enable_backend_keepalive: z.boolean(),
  http_idle_timeout_seconds: Int,
  vpc_uuid: z.string(),
  disable_lets_encrypt_dns_records: z.boolean(),
  firewall: z.strictObject({ allow: z.array(z.string()), deny: z.array(z.string()) }),
  network: z.enum(['EXTERNAL', 'INTERNAL']),
  network_stack: z.enum(['IPV4', 'DUALSTACK']),
  tls_cipher_policy: z.enum(['DEFAULT', 'STRONG']),
});
export type LoadBalancer = z.infer<typeof LoadBalancer>;

export const Certificate = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  not_after: Time,
  sha1_fingerprint: z.string(),
  created_at: Time,
  dns_names: z.array(z.string()),
  state: z.enum(['pending', 'verified', 'error']),
  type: z.enum(['custom', 'lets_encrypt']),
});
export type Certificate = z.infer<typeof Certificate>;

const RuleTarget = z.strictObject({
  addresses: z.array(z.string()).optional(),
  droplet_ids: z.array(Int).optional(),
  load_balancer_uids: z.array(z.string()).optional(),
  kubernetes_ids: z.array(z.string()).optional(),
  tags: z.array(z.string()).optional(),
});
const RuleProtocol = z.enum(['tcp', 'udp', 'icmp']);
/** What every firewall rule has: its protocol and ports (`0` for all, as DigitalOcean answers). */
export type RuleBase = { protocol: z.infer<typeof RuleProtocol>; ports: string };

export const Firewall = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  status: z.enum(['waiting', 'succeeded', 'failed']),
  created_at: Time,
  pending_changes: z.array(z.strictObject({ droplet_id: Int, removing: z.boolean(), status: z.string() })),
  droplet_ids: z.array(Int).nullable(),
  tags: Tags,
  inbound_rules: z.array(z.strictObject({ protocol: RuleProtocol, ports: z.string(), sources: RuleTarget })).nullable(),
  outbound_rules: z.array(z.strictObject({ protocol: RuleProtocol, ports: z.string(), destinations: RuleTarget })).nullable(),
});
export type Firewall = z.infer<typeof Firewall>;

/** DigitalOcean's error body. */
export const ErrorBody = z.strictObject({ id: z.string(), message: z.string(), request_id: z.string() });
export type ErrorBody = z.infer<typeof ErrorBody>;

const Links = z.strictObject({
  pages: z.strictObject({ first: z.string().optional(), prev: z.string().optional(), next: z.string().optional(), last: z.string().optional() }).optional(),
});

type ListShape<K extends string, T extends z.ZodType> = { [P in K]: z.ZodArray<T> } & {
  links: typeof Links;
  meta: z.ZodObject<{ total: typeof Int }, z.core.$strict>;
};

/** DigitalOcean's list envelope: the items under `key`, `links.pages` and `meta.total`. */
export function list<K extends string, T extends z.ZodType>(key: K, item: T): z.ZodObject<ListShape<K, T>, z.core.$strict> {
  return z.strictObject({ [key]: z.array(item), links: Links, meta: z.strictObject({ total: Int }) } as ListShape<K, T>);
}

/** A single object under its key: `{"droplet": {...}}`. */
export function one<K extends string, T extends z.ZodType>(key: K, item: T): z.ZodObject<{ [P in K]: T }, z.core.$strict> {
  return z.strictObject({ [key]: item } as { [P in K]: T });
}

/** POST /v2/droplets: the droplet and a link to its create action. */
export const DropletCreated = z.strictObject({
  droplet: Droplet,
  links: z.strictObject({ actions: z.array(z.strictObject({ id: Int, rel: z.string(), href: z.string() })) }),
});
export type DropletCreated = z.infer<typeof DropletCreated>;

export { NoContent };
