/**
 * Brightbox persona: stored records in Brightbox's JSON. A server is a simcloud server (its interface carries the
 * server's public IPv4 and IPv6: Brightbox's CCM writes interface addresses as ExternalIPs), a server group a
 * simcloud server group, a firewall policy a simcloud policy (its rules as Brightbox rules, attrs.ts), a load
 * balancer a simcloud load balancer whose nodes are server targets, and a cloud IP a simcloud IP block whose first
 * usable address is the cloud IP (mapped: the block is assigned to a load balancer, whose VIP it then is).
 */
import type { Region, ServerType as SimServerType } from '../../api/schema/catalogue.ts';
import type { ServerStatus } from '../../api/schema/servers.ts';
import { IMAGES, SERVER_TYPES, ZONES } from '../../server/resources/catalogue/data.ts';
import type { FirewallPolicyRec, IpBlockRec, LoadBalancerRec, ServerGroupRec, ServerRec } from '../../server/store/state.ts';
import { policyAttrsOf, type BbRule } from './attrs.ts';
import { b36, bbIdOf, bbTime, numberOfBbId, urlOf, zoneHandle, zoneId } from './common.ts';
import type {
  AccountRef,
  CloudIp,
  CloudIpRef,
  GroupRef,
  ServerRef,
  FirewallPolicy,
  FirewallRule,
  Image,
  Server,
  ServerGroup,
  ServerType,
} from './responses.ts';

const STATUS: Record<ServerStatus, Server['status']> = {
  initializing: 'creating',
  starting: 'creating',
  running: 'active',
  stopping: 'active',
  off: 'inactive',
  deleting: 'deleting',
};

const ref = (collection: string, resourceType: string, id: string): { id: string; resource_type: string; url: string } => ({
  id,
  resource_type: resourceType,
  url: urlOf(collection, id),
});

export const accountRef = (projectId: string): AccountRef => ({ ...ref('accounts', 'account', bbIdOf(projectId)), name: projectId, status: 'active' as const });

export const zoneView = (simZone: string): Server['zone'] => ({ ...ref('zones', 'zone', zoneId(simZone)), handle: zoneHandle(simZone) });

export function serverTypeView(t: SimServerType): ServerType {
  const n = SERVER_TYPES.findIndex((x) => x.id === t.id) + 1;
  return {
    ...ref('server_types', 'server_type', `typ-${b36(n)}`),
    name: t.name,
    handle: t.id,
    status: 'available',
    cores: t.cores,
    ram: t.memory_mb,
    disk_size: t.disk_gb * 1024,
    storage_type: 'local',
  };
}

export function imageView(id: string): Image {
  const n = IMAGES.findIndex((i) => i.id === id) + 1;
  return {
    ...ref('images', 'image', `img-${b36(n)}`),
    name: id,
    username: 'ubuntu',
    status: 'available',
    locked: false,
    description: `simcloud image ${id}`,
    source: id,
    arch: 'x86_64',
    official: true,
    public: true,
    owner: 'acc-00000',
    source_type: 'upload',
    virtual_size: 0,
    disk_size: 0,
    created_at: '2026-01-01T00:00:00Z',
  };
}

const fqdnOf = (id: string, region: string): string => `${id}.${region}.brightbox.simcloud.test`;

export function serverRef(s: ServerRec): ServerRef {
  const id = bbIdOf(s.id);
  return { ...ref('servers', 'server', id), name: s.name, status: STATUS[s.status], hostname: id, fqdn: fqdnOf(id, s.region) };
}

const macOf = (id: string): string =>
  `02:24:19:${(numberOfBbId(bbIdOf(id)) ?? 0)
    .toString(16)
    .padStart(6, '0')
    .slice(-6)
    .replace(/(..)(..)(..)/, '$1:$2:$3')}`;

export function groupRef(g: ServerGroupRec): GroupRef {
  const id = bbIdOf(g.id);
  return { ...ref('server_groups', 'server_group', id), name: g.name, description: g.description, default: false, fqdn: `${id}.brightbox.simcloud.test` };
}

/**
 * A cloud IP's names and IPv6 address, as the sandbox can make them resolve. Brightbox's CCM looks up a cloud IP's
 * FQDN and reverse DNS name with the system resolver and goes on only when one answer equals one of the cloud IP's
 * two addresses (both must parse). A sandbox has no DNS server of its own and must not change the host's, whose
 * /etc/hosts resolves `localhost` to 127.0.0.1 alone; so every cloud IP is named `localhost` and shows, as its IPv6
 * address, 127.0.0.1 in IPv4-mapped form, which Go counts equal to 127.0.0.1. Data only: nothing serves on it.
 */
export const CLOUD_IP_NAME = 'localhost';
export const CLOUD_IP_V6 = '::ffff:127.0.0.1';

export function cloudIpRef(b: IpBlockRec): CloudIpRef {
  const id = bbIdOf(b.id);
  const ip = b.usable_addresses[0] ?? b.gateway;
  return {
    ...ref('cloud_ips', 'cloud_ip', id),
    name: b.description,
    public_ip: ip,
    public_ipv4: ip,
    public_ipv6: CLOUD_IP_V6,
    reverse_dns: CLOUD_IP_NAME,
    fqdn: CLOUD_IP_NAME,
  };
}

/** A server's one interface: its public addresses (see the header). */
export const interfaceView = (s: ServerRec): Server['interfaces'][number] => ({
  ...ref('interfaces', 'interface', `int-${bbIdOf(s.id).slice(4)}`),
  mac_address: macOf(s.id),
  ipv4_address: s.public_ipv4 ?? s.private_ipv4 ?? '',
  ipv6_address: s.public_ipv6 ?? '',
});

export function serverView(s: ServerRec, groups: readonly ServerGroupRec[], blocks: readonly IpBlockRec[]): Server {
  const t = SERVER_TYPES.find((x) => x.id === s.server_type) ?? SERVER_TYPES[0]!;
  const cips = blocks.filter((b) => b.assigned_to?.kind === 'server' && b.assigned_to.id === s.id);
  return {
    ...serverRef(s),
    status: STATUS[s.status],
    created_at: bbTime(s.created),
    deleted_at: null,
    started_at: s.status === 'running' ? bbTime(s.created) : null,
    locked: false,
    compatibility_mode: false,
    disk_encrypted: false,
    account: accountRef(s.project_id),
    image: { ...ref('images', 'image', imageView(s.image).id), name: s.image, username: 'ubuntu' },
    zone: zoneView(s.zone),
    server_type: serverTypeView(t),
    cloud_ips: cips.map(cloudIpRef),
    server_groups: groups.filter((g) => g.servers.includes(s.id)).map(groupRef),
    interfaces: [interfaceView(s)],
    snapshots: [],
  };
}

const policyRef = (p: FirewallPolicyRec): FirewallRule['firewall_policy'] => ({
  ...ref('firewall_policies', 'firewall_policy', bbIdOf(p.id)),
  name: p.name,
  default: false,
});

export function groupView(g: ServerGroupRec, servers: readonly ServerRec[], policy: FirewallPolicyRec | undefined): ServerGroup {
  return {
    ...groupRef(g),
    created_at: bbTime(g.created),
    account: accountRef(g.project_id),
    firewall_policy: policy === undefined ? null : policyRef(policy),
    servers: g.servers.flatMap((id) => servers.filter((s) => s.id === id).map(serverRef)),
  };
}

/** A firewall rule's id: `fwr-`, its policy's number in five base-36 digits, and the rule's serial. */
export const ruleIdOf = (policyId: string, n: number): string => `fwr-${bbIdOf(policyId).slice(4)}${b36(n, 1)}`;

export function ruleView(p: FirewallPolicyRec, r: BbRule): FirewallRule {
  const { n, ...rest } = r;
  return { ...ref('firewall_rules', 'firewall_rule', ruleIdOf(p.id, n)), ...rest, created_at: r.created_at, firewall_policy: policyRef(p) };
}

export function policyView(p: FirewallPolicyRec, group: ServerGroupRec | undefined): FirewallPolicy {
  const rules = policyAttrsOf(p)?.rules ?? [];
  return {
    ...policyRef(p),
    description: p.description === '' ? null : p.description,
    created_at: bbTime(p.created),
    account: accountRef(p.project_id),
    server_group: group === undefined ? null : groupRef(group),
    rules: rules.map((r) => {
      const { firewall_policy: _p, ...rest } = ruleView(p, r);
      return rest;
    }),
  };
}

/** What a cloud IP is mapped to: a load balancer or a server (its block's assignment), or nothing. */
export interface CloudIpTarget {
  readonly lb?: LoadBalancerRec | undefined;
  readonly server?: ServerRec | undefined;
}

/** A cloud IP mapped to a server names the server and the interface it reaches, as Brightbox shows it. */
export function cloudIpView(b: IpBlockRec, { lb, server }: CloudIpTarget): CloudIp {
  return {
    ...cloudIpRef(b),
    status: lb === undefined && server === undefined ? 'unmapped' : 'mapped',
    mode: 'nat',
    account: accountRef(b.project_id),
    interface: server === undefined ? null : interfaceView(server),
    server: server === undefined ? null : serverRef(server),
    server_group: null,
    database_server: null,
    port_translators: [],
    load_balancer:
      lb === undefined
        ? null
        : { ...ref('load_balancers', 'load_balancer', bbIdOf(lb.id)), name: lb.name, status: lb.status === 'deleting' ? 'deleting' : 'active' },
  };
}

/** Brightbox's zone: a simcloud zone. */
export const zoneCatalogueView = (r: Region): Record<string, unknown> => ({ regions: ZONES.filter((z) => z.region === r.id).map((z) => zoneView(z.id)) });
