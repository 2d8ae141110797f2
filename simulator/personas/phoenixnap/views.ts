/**
 * phoenixNAP persona: stored records in phoenixNAP's JSON. A server is a simcloud server (hostname = name, os =
 * image, type = server type, location = region), an IP block a simcloud IP block, a private network a simcloud
 * network; ids are spelled from the store number (common.ts).
 */
import type { Region, ServerType } from '../../api/schema/catalogue.ts';
import type { ServerStatus } from '../../api/schema/servers.ts';
import { SERVER_TYPES } from '../../server/resources/catalogue/data.ts';
import type { IpBlockRec, NetworkRec, ServerRec } from '../../server/store/state.ts';
import { pnapIdOf, pnapTime, PUBLIC_NETWORK_LABEL, regionOfZone, tagsOf, type TagIdOf } from './common.ts';
import type { IpBlock, PrivateNetwork, PublicNetwork, Server } from './schemas.ts';
import { membersOf, serverAttrsOf } from './server-attrs.ts';

const STATUS: Record<ServerStatus, string> = {
  initializing: 'creating',
  starting: 'powered-off',
  running: 'powered-on',
  stopping: 'powered-on',
  off: 'powered-off',
  deleting: 'deleting',
};

/** The VLAN phoenixNAP shows for a private network: fixed per network. */
const vlanOf = (netId: string): number => 10 + (Number(pnapIdOf(netId).slice(2)) % 4000);

export function serverView(s: ServerRec, blocks: readonly IpBlockRec[], tagIdOf: TagIdOf): Server {
  const t = SERVER_TYPES.find((x) => x.id === s.server_type);
  const mine = blocks.filter((b) => b.assigned_to?.kind === 'server' && b.assigned_to.id === s.id);
  const publicIps = [...(s.public_ipv4 === null ? [] : [s.public_ipv4]), ...mine.flatMap((b) => b.usable_addresses)];
  return {
    id: pnapIdOf(s.id),
    status: STATUS[s.status],
    hostname: s.name,
    os: s.image,
    type: s.server_type,
    location: s.region,
    cpu: 'simcloud vCPU',
    cpuCount: 1,
    coresPerCpu: t?.cores ?? 1,
    cpuFrequency: 2,
    ram: `${(t?.memory_mb ?? 0) / 1024} GB`,
    storage: `${t?.disk_gb ?? 0} GB`,
    privateIpAddresses: s.private_networks.map((n) => n.ip),
    publicIpAddresses: publicIps,
    pricingModel: 'HOURLY',
    networkType: s.public_ipv4 === null ? 'PRIVATE_ONLY' : 'PUBLIC_AND_PRIVATE',
    tags: tagsOf(s.labels, tagIdOf),
    provisionedOn: pnapTime(s.created),
    networkConfiguration: {
      privateNetworkConfiguration: {
        configurationType: 'USER_DEFINED',
        privateNetworks: s.private_networks.map((n) => ({ id: pnapIdOf(n.network_id), ips: [n.ip], dhcp: false, statusDescription: 'assigned' })),
      },
      ipBlocksConfiguration: { configurationType: mine.length === 0 ? 'NONE' : 'USER_DEFINED', ipBlocks: mine.map((b) => ({ id: pnapIdOf(b.id) })) },
      publicNetworkConfiguration: {
        publicNetworks: serverAttrsOf(s).public_networks.map((m) => ({ id: pnapIdOf(m.network_id), ips: m.ips, statusDescription: 'assigned' })),
      },
    },
  };
}

// phoenixNAP assigns IP blocks to servers and public networks only: a block on a simcloud network is on a public
// network (public-networks.ts), spelled as phoenixNAP's CCM compares it (it also accepts `public network`).
const RESOURCE_TYPE = { server: 'server', network: 'PUBLIC_NETWORK', load_balancer: 'load-balancer' } as const;

export function ipBlockView(b: IpBlockRec, tagIdOf: TagIdOf): IpBlock {
  const a = b.assigned_to;
  return {
    id: pnapIdOf(b.id),
    location: b.location,
    cidrBlockSize: `/${b.size}`,
    cidr: b.cidr,
    status: b.status,
    ...(a === null ? {} : { assignedResourceId: pnapIdOf(a.id), assignedResourceType: RESOURCE_TYPE[a.kind] }),
    ...(b.description === '' ? {} : { description: b.description }),
    tags: tagsOf(b.tags, tagIdOf),
    isBringYourOwn: false,
    createdOn: pnapTime(b.created),
  };
}

export function privateNetworkView(n: NetworkRec, servers: readonly ServerRec[]): PrivateNetwork {
  const members = servers.flatMap((s) => s.private_networks.filter((p) => p.network_id === n.id).map((p) => ({ id: pnapIdOf(s.id), ips: [p.ip] })));
  const zone = n.subnets[0]?.zone;
  return {
    id: pnapIdOf(n.id),
    name: n.name,
    vlanId: vlanOf(n.id),
    type: 'PRIVATE',
    location: zone === undefined ? regionOfZone('') : regionOfZone(zone),
    locationDefault: false,
    cidr: n.ip_range,
    servers: members,
    memberships: members.map((m) => ({ resourceId: m.id, resourceType: 'server', ips: m.ips })),
    createdOn: pnapTime(n.created),
  };
}

/** A public network: a labelled simcloud network; its IP blocks are the blocks assigned to it, its members the servers that joined it. */
export function publicNetworkView(n: NetworkRec, blocks: readonly IpBlockRec[], servers: readonly ServerRec[]): PublicNetwork {
  const memberships = membersOf(servers, n.id).map(({ server, membership }) => ({
    resourceId: pnapIdOf(server.id),
    resourceType: 'server',
    ips: membership.ips,
  }));
  return {
    id: pnapIdOf(n.id),
    vlanId: vlanOf(n.id),
    memberships,
    name: n.name,
    location: n.labels[PUBLIC_NETWORK_LABEL] ?? regionOfZone(''),
    createdOn: pnapTime(n.created),
    ipBlocks: blocks.filter((b) => b.assigned_to?.kind === 'network' && b.assigned_to.id === n.id).map((b) => ({ id: pnapIdOf(b.id) })),
  };
}

/** phoenixNAP's location: a simcloud region. */
export const locationView = (r: Region): Record<string, unknown> => ({ location: r.id, locationDescription: r.description });

/** phoenixNAP's server type (a product): a simcloud server type. */
export const serverTypeView = (t: ServerType): Record<string, unknown> => ({
  productCode: t.id,
  productCategory: 'SERVER',
  metadata: { cpu: 'simcloud vCPU', cpuCount: 1, coresPerCpu: t.cores, ramInGb: t.memory_mb / 1024, storage: `${t.disk_gb} GB` },
});
