/**
 * What the Linode persona answers, as Linode API v4 documents it (field names and nullability from the API's
 * reference and linodego/v2's structs): every route declares one of these as its response, the views return
 * their types, and docs/reference/linode-parity.md lists their fields. A field the API always fills is not
 * nullable here.
 */
import { z } from 'zod';
import { Int } from '../responses.ts';
import { NodeMode } from './attrs.ts';

/** Linode's timestamps: UTC without zone or fraction, the only form linodego parses. */
const Time = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/, 'a Linode timestamp (YYYY-MM-DDTHH:MM:SS)');
const Tags = z.array(z.string());
const Price = z.strictObject({ hourly: z.number().nullable(), monthly: z.number().nullable() });
const RegionPrice = Price.extend({ id: z.string() });
/** What an entity reference looks like (an LKE cluster, a reserved IP's assignee). */
const EntityRef = z.strictObject({ id: Int, label: z.string(), type: z.string(), url: z.string() });

export const Region = z.strictObject({
  id: z.string(),
  label: z.string(),
  country: z.string(),
  capabilities: z.array(z.string()),
  status: z.enum(['ok', 'outage']),
  resolvers: z.strictObject({ ipv4: z.string(), ipv6: z.string() }),
  site_type: z.enum(['core', 'distributed']),
  placement_group_limits: z.strictObject({ maximum_pgs_per_customer: Int.nullable(), maximum_linodes_per_pg: Int }).nullable(),
  monitors: z.strictObject({ alerts: z.array(z.string()), metrics: z.array(z.string()) }),
});
export type Region = z.infer<typeof Region>;

export const LinodeType = z.strictObject({
  id: z.string(),
  label: z.string(),
  class: z.enum(['nanode', 'standard', 'dedicated', 'highmem', 'gpu', 'premium', 'accelerated', 'metal', 'prodedicated']),
  disk: Int,
  memory: Int,
  vcpus: Int,
  transfer: Int,
  network_out: Int,
  gpus: Int,
  accelerated_devices: Int,
  successor: z.string().nullable(),
  price: Price,
  region_prices: z.array(RegionPrice),
  addons: z.strictObject({ backups: z.strictObject({ price: Price, region_prices: z.array(RegionPrice) }) }),
});
export type LinodeType = z.infer<typeof LinodeType>;

export const Profile = z.strictObject({
  uid: Int,
  username: z.string(),
  email: z.string(),
  timezone: z.string(),
  email_notifications: z.boolean(),
  ip_whitelist_enabled: z.boolean(),
  lish_auth_method: z.enum(['password_keys', 'keys_only', 'disabled']),
  authorized_keys: z.array(z.string()).nullable(),
  two_factor_auth: z.boolean(),
  restricted: z.boolean(),
  authentication_type: z.enum(['password', 'github', 'google']),
  verified_phone_number: z.string().nullable(),
  referrals: z.strictObject({ code: z.string(), url: z.string(), total: Int, completed: Int, pending: Int, credit: z.number() }),
});
export type Profile = z.infer<typeof Profile>;

export const Instance = z.strictObject({
  id: Int,
  label: z.string(),
  region: z.string(),
  type: z.string().nullable(),
  image: z.string().nullable(),
  group: z.string(),
  status: z.enum([
    'running',
    'offline',
    'booting',
    'rebooting',
    'shutting_down',
    'provisioning',
    'deleting',
    'migrating',
    'rebuilding',
    'cloning',
    'restoring',
    'stopped',
  ]),
  ipv4: z.array(z.ipv4()),
  ipv6: z.string().nullable(),
  tags: Tags,
  created: Time,
  updated: Time,
  hypervisor: z.enum(['kvm']),
  specs: z.strictObject({ disk: Int, memory: Int, vcpus: Int, transfer: Int, gpus: Int, accelerated_devices: Int }),
  alerts: z.strictObject({ cpu: Int, io: Int, network_in: Int, network_out: Int, transfer_quota: Int }),
  backups: z.strictObject({
    enabled: z.boolean(),
    available: z.boolean(),
    last_successful: Time.nullable(),
    schedule: z.strictObject({ day: z.string().nullable(), window: z.string().nullable() }),
  }),
  watchdog_enabled: z.boolean(),
  has_user_data: z.boolean(),
  host_uuid: z.string(),
  placement_group: z
    .strictObject({ id: Int, label: z.string(), placement_group_type: z.string(), placement_group_policy: z.string(), migrating_to: Int.nullable() })
    .nullable(),
  lke_cluster_id: Int.nullable(),
  capabilities: z.array(z.string()),
  interface_generation: z.enum(['legacy_config', 'linode']),
  maintenance_policy: z.string(),
  locks: z.array(z.string()),
  disk_encryption: z.enum(['enabled', 'disabled']),
});
export type Instance = z.infer<typeof Instance>;

/**
 * An address of an instance (GET /linode/instances/{id}/ips: private ones have no gateway or reverse DNS), or
 * any address (/networking/ips, /networking/reserved/ips: `linode_id` null when no instance holds it).
 */
export const InstanceIP = z.strictObject({
  address: z.string(),
  gateway: z.string().nullable(),
  subnet_mask: z.string(),
  prefix: Int,
  type: z.enum(['ipv4', 'ipv6', 'ipv6/pool', 'ipv6/range']),
  public: z.boolean(),
  rdns: z.string().nullable(),
  linode_id: Int.nullable(),
  interface_id: Int.nullable(),
  region: z.string(),
  vpc_nat_1_1: z.strictObject({ address: z.string(), subnet_id: Int, vpc_id: Int }).nullable(),
  reserved: z.boolean(),
  tags: Tags,
  assigned_entity: EntityRef.nullable(),
});
export type InstanceIP = z.infer<typeof InstanceIP>;

/** An address, or a routed range, of an instance on a VPC (GET /vpcs/{id}/ips and an instance's ips). */
export const VPCIP = z.strictObject({
  address: z.string().nullable(),
  address_range: z.string().nullable(),
  gateway: z.string().nullable(),
  subnet_mask: z.string(),
  prefix: Int.nullable(),
  linode_id: Int.nullable(),
  config_id: Int.nullable(),
  interface_id: Int,
  vpc_id: Int,
  subnet_id: Int,
  region: z.string(),
  active: z.boolean(),
  nat_1_1: z.string().nullable(),
});
export type VPCIP = z.infer<typeof VPCIP>;

const IPv6Range = z.strictObject({ range: z.string(), prefix: Int, region: z.string(), route_target: z.string().nullable() });

export const InstanceIPs = z.strictObject({
  ipv4: z.strictObject({
    public: z.array(InstanceIP),
    private: z.array(InstanceIP),
    shared: z.array(InstanceIP),
    reserved: z.array(InstanceIP),
    vpc: z.array(VPCIP),
  }),
  // TODO(issue 24): Linode gives every instance with IPv6 its link-local and SLAAC addresses; the persona has no IPv6 yet and answers null.
  ipv6: z.strictObject({ link_local: InstanceIP.nullable(), slaac: InstanceIP.nullable(), global: z.array(IPv6Range), vpc: z.array(VPCIP) }),
});
export type InstanceIPs = z.infer<typeof InstanceIPs>;

export const NodeBalancer = z.strictObject({
  id: Int,
  label: z.string(),
  region: z.string(),
  hostname: z.string(),
  ipv4: z.ipv4(),
  ipv6: z.string().nullable(),
  client_conn_throttle: Int,
  client_udp_sess_throttle: Int,
  transfer: z.strictObject({ total: z.number().nullable(), out: z.number().nullable(), in: z.number().nullable() }),
  type: z.enum(['common', 'premium', 'premium_40gb']),
  tags: Tags,
  lke_cluster: EntityRef.nullable(),
  locks: z.array(z.string()),
  created: Time,
  updated: Time,
  frontend_address_type: z.enum(['public', 'vpc']),
  frontend_vpc_subnet_id: Int.nullable(),
});
export type NodeBalancer = z.infer<typeof NodeBalancer>;

/** A NodeBalancer's VPC config (GET /nodebalancers/{id}/vpcs): the subnet it reaches its backends in and its range there. */
export const NodeBalancerVPCConfig = z.strictObject({
  id: Int,
  ipv4_range: z.string(),
  ipv6_range: z.string().nullable(),
  nodebalancer_id: Int,
  subnet_id: Int,
  vpc_id: Int,
  purpose: z.enum(['backend', 'frontend']),
});
export type NodeBalancerVPCConfig = z.infer<typeof NodeBalancerVPCConfig>;

export const NodeBalancerNode = z.strictObject({
  id: Int,
  address: z.string(),
  label: z.string(),
  status: z.enum(['UP', 'DOWN', 'unknown']),
  weight: Int,
  mode: NodeMode,
  config_id: Int,
  nodebalancer_id: Int,
  vpc_config_id: Int.nullable(),
});
export type NodeBalancerNode = z.infer<typeof NodeBalancerNode>;

export const NodeBalancerConfig = z.strictObject({
  id: Int,
  port: Int,
  protocol: z.enum(['http', 'https', 'tcp', 'udp']),
  proxy_protocol: z.enum(['none', 'v1', 'v2']),
  algorithm: z.enum(['roundrobin', 'leastconn', 'source', 'ring_hash']),
  stickiness: z.enum(['none', 'session', 'table', 'http_cookie', 'source_ip']),
  check: z.enum(['none', 'connection', 'http', 'http_body']),
  check_interval: Int,
  check_attempts: Int,
  check_path: z.string(),
  check_body: z.string(),
  check_passive: z.boolean(),
  check_timeout: Int,
  udp_check_port: Int,
  udp_session_timeout: Int,
  cipher_suite: z.enum(['recommended', 'legacy', 'none']),
  nodebalancer_id: Int,
  ssl_commonname: z.string(),
  ssl_fingerprint: z.string(),
  ssl_cert: z.string().nullable(),
  ssl_key: z.string().nullable(),
  nodes_status: z.strictObject({ up: Int, down: Int }),
});
export type NodeBalancerConfig = z.infer<typeof NodeBalancerConfig>;

const FirewallRule = z.strictObject({
  action: z.enum(['ACCEPT', 'DROP']),
  label: z.string(),
  description: z.string().optional(),
  protocol: z.enum(['TCP', 'UDP', 'ICMP', 'IPENCAP']),
  ports: z.string().optional(),
  addresses: z.strictObject({ ipv4: z.array(z.string()), ipv6: z.array(z.string()) }),
});

export const FirewallRules = z.strictObject({
  inbound: z.array(FirewallRule),
  inbound_policy: z.enum(['ACCEPT', 'DROP']),
  outbound: z.array(FirewallRule),
  outbound_policy: z.enum(['ACCEPT', 'DROP']),
  version: Int,
  fingerprint: z.string(),
});
export type FirewallRules = z.infer<typeof FirewallRules>;

const DeviceEntity = z.strictObject({
  id: Int,
  type: z.enum(['linode', 'nodebalancer', 'linode_interface']),
  label: z.string().nullable(),
  url: z.string(),
  parent_entity: EntityRef.nullable(),
});

export const Firewall = z.strictObject({
  id: Int,
  label: z.string(),
  status: z.enum(['enabled', 'disabled', 'deleted']),
  tags: Tags,
  rules: FirewallRules,
  entities: z.array(DeviceEntity),
  created: Time,
  updated: Time,
});
export type Firewall = z.infer<typeof Firewall>;

export const FirewallDevice = z.strictObject({ id: Int, entity: DeviceEntity, created: Time, updated: Time });
export type FirewallDevice = z.infer<typeof FirewallDevice>;

export const VPCSubnet = z.strictObject({
  id: Int,
  label: z.string(),
  ipv4: z.string(),
  // TODO(issue 24): a subnet without IPv6 ranges; the persona answers null where Linode's documentation shows a list.
  ipv6: z.array(z.strictObject({ range: z.string() })).nullable(),
  linodes: z.array(z.strictObject({ id: Int, interfaces: z.array(z.strictObject({ id: Int, config_id: Int.nullable(), active: z.boolean() })) })),
  databases: z.array(z.strictObject({ id: Int, ipv4_range: z.string().nullable(), ipv6_ranges: z.array(z.string()) })),
  nodebalancers: z.array(z.strictObject({ id: Int, ipv4_range: z.string() })),
  created: Time,
  updated: Time,
});
export type VPCSubnet = z.infer<typeof VPCSubnet>;

export const VPC = z.strictObject({
  id: Int,
  label: z.string(),
  description: z.string(),
  region: z.string(),
  // TODO(issue 24): as the subnets' ipv6.
  ipv6: z.array(z.strictObject({ range: z.string() })).nullable(),
  subnets: z.array(VPCSubnet),
  created: Time,
  updated: Time,
});
export type VPC = z.infer<typeof VPC>;

export const ConfigInterface = z.strictObject({
  id: Int,
  purpose: z.enum(['public', 'vlan', 'vpc']),
  label: z.string().nullable(),
  ipam_address: z.string().nullable(),
  primary: z.boolean(),
  active: z.boolean(),
  vpc_id: Int.nullable(),
  subnet_id: Int.nullable(),
  ipv4: z.strictObject({ vpc: z.string().nullable(), nat_1_1: z.string().nullable() }),
  ipv6: z
    .strictObject({
      is_public: z.boolean(),
      slaac: z.array(z.strictObject({ range: z.string(), address: z.string() })),
      ranges: z.array(z.strictObject({ range: z.string() })),
    })
    .nullable(),
  ip_ranges: z.array(z.string()),
});
export type ConfigInterface = z.infer<typeof ConfigInterface>;

const Helpers = z.strictObject({
  updatedb_disabled: z.boolean(),
  distro: z.boolean(),
  modules_dep: z.boolean(),
  network: z.boolean(),
  devtmpfs_automount: z.boolean(),
});

export const InstanceConfig = z.strictObject({
  id: Int,
  label: z.string(),
  comments: z.string(),
  kernel: z.string(),
  root_device: z.string(),
  run_level: z.enum(['default', 'single', 'binbash']),
  virt_mode: z.enum(['paravirt', 'fullvirt']),
  memory_limit: Int,
  initrd: Int.nullable(),
  devices: z.record(z.string(), z.strictObject({ disk_id: Int.nullable(), volume_id: Int.nullable() }).nullable()),
  helpers: Helpers,
  interfaces: z.array(ConfigInterface).nullable(),
  created: Time,
  updated: Time,
});
export type InstanceConfig = z.infer<typeof InstanceConfig>;

type PageShape<T extends z.ZodType> = { data: z.ZodArray<T>; page: z.ZodNumber; pages: z.ZodNumber; results: z.ZodNumber };

/** Linode's list envelope around `item`. */
export const page = <T extends z.ZodType>(item: T): z.ZodObject<PageShape<T>, z.core.$strict> =>
  z.strictObject({ data: z.array(item), page: Int.min(1), pages: Int.min(1), results: Int.min(0) });

/** Linode's error envelope: one entry per field at fault (`field` absent for the request as a whole). */
export const ErrorBody = z.strictObject({ errors: z.array(z.strictObject({ field: z.string().optional(), reason: z.string() })).min(1) });
export type ErrorBody = z.infer<typeof ErrorBody>;

/** What deletes, power calls and the like answer: an empty object. */
export const Empty = z.strictObject({});
