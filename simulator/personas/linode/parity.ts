/**
 * How closely the Linode persona follows Linode API v4: a status per endpoint it serves (keyed by route
 * operation, so a route without an entry fails parity.test.ts), the endpoints of the same resources it does
 * not serve, and how the fields of the objects it returns differ (the fields themselves come from the response
 * schemas in responses.ts, see ../parity-fields.ts). scripts/generate-docs.ts renders this as
 * docs/reference/linode-parity.md.
 */
import { differs as diff, each, emulated as ok, fieldTables, notEmulated as none, type FieldParity, type ParityEntry } from '../parity-fields.ts';
import * as R from './responses.ts';

const STATIC = "a fixed list: simcloud's catalogue";
const SYNC = 'applied at once; the data plane follows within one sync';
const VPC = 'a simcloud network seen as a VPC: description empty, no IPv6';
const FW_RULES =
  'ACCEPT rules (an allow list under inbound_policy DROP) and DROP rules (a deny list under ACCEPT) are kept and enforced; an ACCEPT rule after a DROP rule is refused with 400 naming its action; IPv6 addresses are dropped';
const RESERVED = 'a reserved address is a simcloud IP block of one address (/32)';

/** Served endpoints, by route operation. */
export const ENDPOINTS: Readonly<Record<string, ParityEntry>> = {
  'linode.regions.list': diff(`${STATIC} (sim-1, sim-2)`),
  'linode.regions.get': ok,
  'linode.types.list': diff(`${STATIC} (sc-small, sc-medium, sc-large) without prices`),
  'linode.types.get': ok,
  'linode.profile.get': diff("the token's project as username; nothing else is real"),
  'linode.instances.list': ok,
  'linode.instances.create': diff(
    "region, type, label, image, tags, booted and vpc interfaces (their subnet_id puts the instance on the VPC's network) are used; vlan interfaces are refused with 400; private_ip, root_pass, keys, firewall_id, placement groups and metadata are accepted and ignored; the instance lands in the region's first zone; a label is at most 63 characters (a simcloud name), not 64",
  ),
  'linode.instances.get': ok,
  'linode.instances.update': diff('label and tags only'),
  'linode.instances.delete': diff(
    "the instance reads `deleting` until simcloud's delete action finishes; its vpc interfaces' ip_ranges (the network's routes via its address) go with it, as on Linode (a server deleted through /v1 keeps them)",
  ),
  'linode.instances.ips': diff(
    "public: the server's public address; private: its network addresses presented in 192.168.128.0/17 (ADR 0013); no IPv6, shared, reserved or VPC addresses",
  ),
  'linode.instances.boot': diff('config_id ignored'),
  'linode.instances.shutdown': ok,
  'linode.instances.reboot': diff('config_id ignored'),
  'linode.nodebalancers.list': ok,
  'linode.nodebalancers.create': diff(
    'ipv4 must be a reserved address of the caller\'s, unassigned, in the region (else 400: "IPv4 address is not reserved" or "Invalid IPv4 address" without a field, as Linode answers; ipv4 named otherwise); backend_vpcs or vpcs (its older name, one entry) puts the load balancer on the subnet\'s network with an address there; frontend_vpcs is refused with 400; type is kept and shown, every plan served alike; a duplicate label is 409; also served at /v4beta, as every route',
  ),
  'linode.nodebalancers.get': ok,
  'linode.nodebalancers.update': diff('client_udp_sess_throttle ignored'),
  'linode.nodebalancers.delete': diff("gone from reads at once; the VIP closes when simcloud's delete action finishes"),
  'linode.nodebalancers.firewalls': ok,
  'linode.nodebalancers.vpcs': diff(
    "the backend VPC config it was created with (id = the subnet's), ipv4_range its address on the network as a /32; no frontend configs",
  ),
  'linode.nodebalancers.vpc': diff('as in the list'),
  'linode.reservedIps.list': diff(`${RESERVED}; every such block of the caller's, however made`),
  'linode.reservedIps.create': diff(`${RESERVED} from the IP block pool (a loopback address that carries traffic); tags as the block's tags`),
  'linode.reservedIps.get': ok,
  'linode.reservedIps.update': diff('tags only'),
  'linode.reservedIps.delete': diff('releases the block; a NodeBalancer on it keeps the address, no longer reserved'),
  'linode.ips.get': diff("the caller's reserved addresses, NodeBalancer VIPs and instance public addresses"),
  'linode.ips.update': diff(
    "reserved: true reserves a NodeBalancer's VIP in place (the block outlives the NodeBalancer), false gives a reservation up; rdns is refused with 400",
  ),
  'linode.nodebalancers.configs.list': ok,
  'linode.nodebalancers.configs.create': diff(
    `${SYNC}; a udp config with PROXY protocol, an algorithm other than roundrobin, leastconn or ring_hash, or stickiness other than none, session or source_ip is refused with 400; all serving nodes of a config must share one port`,
  ),
  'linode.nodebalancers.configs.get': ok,
  'linode.nodebalancers.configs.update': diff(`${SYNC}; an https config keeps its certificate unless ssl_cert and ssl_key are both sent`),
  'linode.nodebalancers.configs.rebuild': diff(`${SYNC}; a node id not in the config is refused with 400`),
  'linode.nodebalancers.configs.delete': ok,
  'linode.nodebalancers.nodes.list': ok,
  'linode.nodebalancers.nodes.create': diff('subnet_id ignored'),
  'linode.nodebalancers.nodes.get': ok,
  'linode.nodebalancers.nodes.update': diff('subnet_id ignored'),
  'linode.nodebalancers.nodes.delete': ok,
  'linode.firewalls.list': ok,
  'linode.firewalls.create': diff(`${FW_RULES}; devices: NodeBalancers only`),
  'linode.firewalls.get': ok,
  'linode.firewalls.update': diff('status disabled opens its NodeBalancers'),
  'linode.firewalls.delete': diff('its NodeBalancers open'),
  'linode.firewalls.rules.get': ok,
  'linode.firewalls.rules.update': diff(FW_RULES),
  'linode.firewalls.devices.list': ok,
  'linode.firewalls.devices.create': diff('type nodebalancer only; one firewall per NodeBalancer'),
  'linode.firewalls.devices.get': ok,
  'linode.firewalls.devices.delete': ok,
  'linode.vpcs.list': ok,
  'linode.vpcs.create': diff(
    `${VPC}; a label is at most 63 characters (a simcloud name), not 64; subnet labels are not kept; with one subnet the network's range is the subnet's, else a free /24 of the private pool that must hold every subnet`,
  ),
  'linode.vpcs.get': diff(VPC),
  'linode.vpcs.subnets.list': diff(
    "the network's subnets, or one spanning its range when it has none; the first is labelled default (the CCM's --subnet-names default), the others subnet-2, ...; ranges shown in 10.0.0.0/16 for the private pool's networks (ADR 0013)",
  ),
  'linode.vpcs.subnets.get': diff('as in the list'),
  'linode.vpcs.ipv6s': diff('always empty: VPCs here have no IPv6'),
  'linode.vpcs.ips': diff(
    'an entry per instance address (its VPC address, shown in 10.0.0.0/16 for the private pool, ADR 0013) and per routed range (address_range); gateway and subnet_mask empty; a string subnet_id filter is read as comma-separated ids, as the CCM sends it',
  ),
  'linode.instances.configs.list': diff("one config per instance (id = the instance's), a vpc interface per network it is on; no disks, kernels or helpers"),
  'linode.instances.configs.interfaces.update': diff(
    "ip_ranges become the network's routes to the instance's address (added and deleted to match); a range the network cannot route is 400 naming ip_ranges.N; primary and ipv4 ignored",
  ),
};

/** Endpoints of the same resources that the persona does not serve (404 Not found). */
export const NOT_SERVED: readonly (readonly [string, string])[] = [
  [
    '/networking/firewalls/settings, /networking/firewalls/templates, /networking/firewalls/{id}/history, /linode/instances/{id}/firewalls',
    'firewall settings, templates, history and instance devices',
  ],
  [
    'PUT/DELETE /vpcs/{id}, /vpcs/{id}/subnets (create, update, delete), /vpcs/ips, /linode/instances/{id}/configs (create, get, update, delete), config interface create/delete, /linode/instances/{id}/interfaces',
    'VPCs are made by POST /vpcs or as /v1 networks; instances join one at create; Linode interfaces (the newer kind) are not emulated',
  ],
  [
    'GET /networking/ips, POST /networking/ips, POST /linode/instances/{id}/ips, /networking/ips/share, /networking/ips/assign',
    'no address allocation to instances or sharing',
  ],
  ['/linode/instances/{id}/disks, volumes, backups, stats, resize, migrate, rebuild, rescue, clone, mutate', 'instance internals a CCM does not call'],
  ['/nodebalancers/{id}/stats, /nodebalancers/types', "see simcloud's /v1/load_balancers/{id}/metrics"],
  ['/account, /lke, /domains, /images, /object-storage, /volumes, /databases, /monitor', 'resources outside the CCM subset'],
];

const ID = diff("the number in simcloud's id (srv-00000042 is 42)");
const TIMES = each(['created', 'updated'], diff('updated equals created'));
const LABELS = diff('simcloud labels: key=value, or key for an empty value; a tag that makes no label is refused with 400');
const FIXED = (paths: readonly string[]): Record<string, ParityEntry> => each(paths, none('empty, null, 0 or a fixed value'));

/** Request and response headers, and what they carry: the one table not made from a response schema. */
const HEADERS: readonly FieldParity[] = [
  {
    field: 'X-Filter',
    ...diff('field equality (list fields: contains), +and, +or, +eq, +neq, +contains, +gt, +gte, +lt, +lte, +order_by, +order over the returned JSON'),
  },
  {
    field: 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
    ...diff('only while a rate limit is configured (serve --rate-limit) or injected as a fault; Reset a Unix time; Retry-After on 429, which linodego honours'),
  },
];

/** How the fields of the objects the persona returns differ; every field of their schemas is a row. */
export const FIELDS: Readonly<Record<string, readonly FieldParity[]>> = {
  ...fieldTables({
    instance: [
      R.Instance,
      {
        id: ID,
        image: diff('linode/<simcloud image>'),
        status: diff('provisioning, booting, running, shutting_down, offline, deleting; no rebooting, migrating, rebuilding, cloning, restoring or stopped'),
        ipv4: diff("the public address (a loopback address from simcloud's pool) and the network addresses"),
        ipv6: none('always null'),
        tags: LABELS,
        ...TIMES,
        specs: diff('from the server type; transfer 1000'),
        ...each(['hypervisor', 'watchdog_enabled', 'maintenance_policy', 'interface_generation', 'disk_encryption'], diff('fixed values')),
        ...FIXED(['group', 'alerts', 'backups', 'placement_group', 'lke_cluster_id', 'capabilities', 'locks', 'host_uuid', 'has_user_data']),
      },
    ],
    'IP address': [
      R.InstanceIP,
      {
        address: diff('a loopback address'),
        ...each(['gateway', 'vpc_nat_1_1', 'interface_id'], none('null')),
        ...each(['prefix', 'subnet_mask'], diff('24 and 255.255.255.0 for a public address')),
        rdns: diff('generated'),
        reserved: diff('true for an IP block of one address'),
        tags: diff("the block's tags"),
        assigned_entity: diff('the NodeBalancer on the address, or the instance'),
        linode_id: diff('the instance holding it, else null'),
      },
    ],
    'nodebalancer VPC config': [R.NodeBalancerVPCConfig, { ipv6_range: none('null'), purpose: diff('always backend'), id: diff("the subnet's id") }],
    'instance IPs': [
      R.InstanceIPs,
      {
        'ipv4.public': diff("the server's public address: address, prefix, subnet_mask, public, linode_id, region, rdns (generated); gateway null"),
        'ipv4.private': diff('its network addresses; gateway and rdns null'),
        ...each(['ipv4.shared', 'ipv4.reserved', 'ipv4.vpc', 'ipv6.link_local', 'ipv6.slaac', 'ipv6.global', 'ipv6.vpc'], none('empty or null')),
      },
    ],
    nodebalancer: [
      R.NodeBalancer,
      {
        id: ID,
        ipv4: diff('the VIP, a loopback address'),
        ipv6: none('always null'),
        hostname: diff('nb-<ip>.<region>.nodebalancer.sim'),
        client_conn_throttle: diff('kept, not enforced'),
        tags: LABELS,
        ...TIMES,
        type: diff('as created (common by default); every plan is served alike'),
        frontend_address_type: diff('always public'),
        ...FIXED(['transfer', 'client_udp_sess_throttle', 'lke_cluster', 'locks', 'frontend_vpc_subnet_id']),
      },
    ],
    'nodebalancer config': [
      R.NodeBalancerConfig,
      {
        id: diff('unique within its NodeBalancer, not globally; a /v1 service shows its port as id'),
        protocol: diff(
          'tcp and http forwarded at TCP level; https terminates TLS on the VIP with ssl_cert and ssl_key (required) and forwards plain HTTP; udp forwarded per client flow',
        ),
        proxy_protocol: diff('v1 and v2 headers sent by the data plane'),
        algorithm: diff(
          "the first config's decides for the whole NodeBalancer: leastconn is least connections, the rest round robin; source and ring_hash mean source-IP affinity",
        ),
        stickiness: diff(
          'kept (a udp config defaults to session); table and source_ip mean source-IP affinity for the whole NodeBalancer; a udp flow always stays on its node (session); others are not applied',
        ),
        ...each(
          ['check', 'check_interval', 'check_timeout', 'check_attempts', 'check_path'],
          diff(
            'connection and none are TCP checks, http and http_body HTTP checks of check_path; on a udp config none checks nothing and the others check udp_check_port; attempts above 10 count as 10',
          ),
        ),
        udp_check_port: diff("kept (default 80); a udp config's active checks go to it"),
        ...each(['check_body', 'check_passive', 'cipher_suite'], diff('kept, not applied')),
        nodes_status: diff("from the data plane's health of each node's address"),
        ...each(['ssl_cert', 'ssl_key'], diff('<REDACTED> on an https config, null otherwise; checked to be a PEM certificate chain and its key')),
        ssl_commonname: diff("the certificate's subject CN"),
        ssl_fingerprint: diff("the certificate's SHA-256 fingerprint, colon-separated hex"),
        ...FIXED(['udp_session_timeout']),
      },
    ],
    'nodebalancer node': [
      R.NodeBalancerNode,
      {
        id: diff('unique within its NodeBalancer'),
        address: diff('ip:port; an IPv4 address, which the data plane dials as is'),
        status: diff('UP, DOWN or unknown from the data plane'),
        weight: diff('kept, not applied'),
        mode: diff(
          'a node made without one reads accept, or none on a udp config (as Linode shows the udp nodes its CCM sends without a mode); accept, none and backup serve (backup is not held in reserve); reject and drain are taken out of the NodeBalancer',
        ),
        vpc_config_id: none('always 0'),
      },
    ],
    firewall: [
      R.Firewall,
      {
        id: diff("the number in simcloud's firewall policy id"),
        status: diff('enabled or disabled'),
        tags: LABELS,
        rules: diff('as GET .../rules, below'),
        entities: diff('NodeBalancers only'),
        ...TIMES,
      },
    ],
    'firewall rules': [
      R.FirewallRules,
      {
        'inbound[].action': diff('ACCEPT rules (regrouped from simcloud rules of one label, protocol and addresses) listed before DROP rules (kept as sent)'),
        'inbound[].description': none('empty'),
        'inbound[].addresses.ipv4': diff(
          'enforced on the VIPs of its NodeBalancers as their source ranges (TCP and IPENCAP rules, first match first, then the policy: a deny list becomes every address outside it); a bare address reads back as /32',
        ),
        'inbound[].ports': diff('not enforced per port: the VIP filter is per NodeBalancer'),
        'inbound[].addresses.ipv6': none('dropped'),
        outbound: diff('kept, not enforced'),
        ...each(['version', 'fingerprint'], none('1 and empty')),
      },
    ],
    'firewall device': [
      R.FirewallDevice,
      {
        id: diff("the NodeBalancer's id"),
        entity: diff('type nodebalancer; url /v4/nodebalancers/{id}'),
        ...each(['created', 'updated'], diff("the NodeBalancer's")),
      },
    ],
    vpc: [
      R.VPC,
      {
        id: diff("the number in simcloud's network id"),
        label: diff("the network's name"),
        region: diff("its first subnet's region, else sim-1"),
        description: none('empty'),
        ipv6: none('null'),
        subnets: diff('as GET .../subnets, below'),
        ...TIMES,
      },
    ],
    'vpc subnet': [
      R.VPCSubnet,
      {
        id: diff("the VPC's number times 100 plus the subnet's position"),
        label: diff("default for the first (the Linode CCM's --subnet-names default), then subnet-2, subnet-3, ..."),
        linodes: diff("instances on the network whose address is in the subnet; one interface each, id = the VPC's"),
        ...each(['databases', 'nodebalancers', 'ipv6'], none('empty or null')),
        ...TIMES,
      },
    ],
    'vpc IP': [
      R.VPCIP,
      {
        address_range: diff("a route of the network whose gateway is the instance's address, one entry each"),
        ...each(['gateway', 'subnet_mask'], none('empty')),
        ...each(['config_id', 'interface_id'], diff("the instance's and the VPC's number")),
        nat_1_1: none('null'),
      },
    ],
    'instance config': [
      R.InstanceConfig,
      {
        id: diff("one config per instance, with the instance's id"),
        interfaces: diff('a vpc interface per network the instance is on, as below'),
        ...FIXED(['label', 'comments', 'kernel', 'root_device', 'run_level', 'virt_mode', 'memory_limit', 'initrd', 'devices', 'helpers']),
        ...TIMES,
      },
    ],
    'config interface': [
      R.ConfigInterface,
      {
        id: diff("the VPC's number"),
        purpose: diff('always vpc'),
        'ipv4.vpc': diff("the instance's address on the network"),
        ip_ranges: diff("the network's routes whose gateway is that address: the same data as /v1/networks/{id}/routes"),
        ...FIXED(['primary', 'active', 'label', 'ipam_address', 'ipv4.nat_1_1', 'ipv6']),
      },
    ],
    region: [
      R.Region,
      {
        id: diff("simcloud's region"),
        label: diff('its description'),
        ...FIXED(['country', 'capabilities', 'status', 'resolvers', 'site_type', 'placement_group_limits', 'monitors']),
      },
    ],
    type: [
      R.LinodeType,
      {
        id: diff("simcloud's server type"),
        disk: diff('its disk in MB'),
        ...FIXED(['label', 'class', 'transfer', 'network_out', 'gpus', 'accelerated_devices', 'successor', 'price', 'region_prices', 'addons']),
      },
    ],
    profile: [
      R.Profile,
      {
        username: diff("the token's project"),
        email: diff('<project>@simcloud.invalid'),
        ...FIXED([
          'uid',
          'timezone',
          'email_notifications',
          'ip_whitelist_enabled',
          'lish_auth_method',
          'authorized_keys',
          'two_factor_auth',
          'restricted',
          'authentication_type',
          'verified_phone_number',
          'referrals',
        ]),
      },
    ],
    errors: [
      R.ErrorBody,
      {
        'errors[].reason': diff(
          '"Not found", "Invalid Token" and "Linode busy." (400, which linodego retries) as Linode words them; other reasons are simcloud\'s messages with numeric ids',
        ),
        'errors[].field': diff(
          "the request field at fault, dotted for nested ones (configs.0.nodes.1.address); X-Filter for a bad filter; none for a NodeBalancer's ipv4 that is malformed or not reserved, as Linode answers",
        ),
      },
    ],
    paging: [R.page(R.Instance), { page: diff('page_size 25-500 (default 100)') }],
  }),
  headers: HEADERS,
};
