/**
 * Linode persona: VPCs as the Linode CCM's route controller uses them, over simcloud's networks. A VPC is a
 * network; its subnets are the network's subnets (or, for a network without any, one subnet spanning its
 * range); an instance on the network has one config whose vpc interface lists, as `ip_ranges`, the
 * network's routes whose gateway is the instance's address. Setting `ip_ranges` adds and deletes those
 * routes, so /v1 routes and /v4 ip_ranges are one truth.
 */
import { z } from 'zod';
import { Cidr } from '../../api/schema/common.ts';
import { contains, parseCidr } from '../../../lib/ip.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField, notFound } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { ZONES } from '../../server/resources/catalogue/data.ts';
import { findOwned, findRecord, getOwned, ownedRecords } from '../../server/resources/common.ts';
import * as nets from '../../server/resources/networks/service.ts';
import type { NetworkRec, ServerRec } from '../../server/store/state.ts';
import { NumericIdParams, NumericPathId, numericIdOf } from '../numeric-ids.ts';
import { loopbackOf, presentedOf } from './addresses.ts';
import { ListQuery, PREFIX, linodeTime, owned, pageOf, sid } from './common.ts';
import { ConfigInterface, InstanceConfig, VPC, VPCIP, VPCSubnet, page } from './responses.ts';

const Label = z
  .string()
  .min(1)
  // 63, not Linode's 64: the label is the network's simcloud name, which /v1 shows.
  .max(63)
  .regex(/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?$/, 'must be letters, digits or dashes');
const CreateVPCBody = z.object({
  label: Label,
  region: z.string().min(1),
  description: z.string().max(255).optional(),
  subnets: z
    .array(z.object({ label: Label, ipv4: Cidr }))
    .max(16)
    .optional(),
});
const InterfaceBody = z.object({ ip_ranges: z.array(Cidr).max(64).optional(), primary: z.boolean().optional() });
const InterfaceParams = z.object({ id: NumericPathId, cid: NumericPathId, iid: NumericPathId });
const SubnetParams = z.object({ id: NumericPathId, sid: NumericPathId });

interface SubnetView {
  id: number;
  label: string;
  ipv4: string;
  zone: string | null;
}

/**
 * Subnet ids: the VPC's number times 100 plus the subnet's position (simcloud subnets have no id). Labels:
 * the first is `default`, the subnet Linode's CCM looks for when `--subnet-names` is not given; the others
 * `subnet-2`, `subnet-3`, ...
 */
const subnetLabel = (i: number): string => (i === 0 ? 'default' : `subnet-${i + 1}`);
function subnetsOf(net: NetworkRec): SubnetView[] {
  const n = numericIdOf(net.id);
  if (net.subnets.length === 0) return [{ id: n * 100 + 1, label: subnetLabel(0), ipv4: net.ip_range, zone: null }];
  return net.subnets.map((s, i) => ({ id: n * 100 + i + 1, label: subnetLabel(i), ipv4: s.ip_range, zone: s.zone }));
}

/** The network behind a subnet id, else 404 naming `field`. */
export function networkOfSubnet(sim: Sim, caller: Caller, subnetId: number, field: string): NetworkRec {
  const net = Math.floor(subnetId / 100) >= 1 ? findOwned(sim, caller, 'networks', sid('vpcs', Math.floor(subnetId / 100))) : undefined;
  if (net === undefined || !subnetsOf(net).some((s) => s.id === subnetId)) throw notFound('subnet', String(subnetId), field);
  return net;
}

const subnetFor = (net: NetworkRec, ip: string): SubnetView => subnetsOf(net).find((s) => contains(parseCidr(s.ipv4), ip)) ?? subnetsOf(net)[0]!;
const regionOf = (net: NetworkRec): string => ZONES.find((z) => z.id === net.subnets[0]?.zone)?.region ?? ZONES[0]!.region;
// A network's servers are its project's: a server joins only its own project's networks.
const members = (sim: Sim, net: NetworkRec): ServerRec[] =>
  ownedRecords(sim, { projectId: net.project_id }, 'servers').filter((s) => s.private_networks.some((p) => p.network_id === net.id));
const addressOn = (s: ServerRec, net: NetworkRec): string => s.private_networks.find((p) => p.network_id === net.id)!.ip;
const rangesOf = (net: NetworkRec, ip: string): string[] => net.routes.filter((r) => r.gateway === ip).map((r) => r.destination);

function subnetView(sim: Sim, net: NetworkRec, s: SubnetView): VPCSubnet {
  const linodes = members(sim, net)
    .filter((m) => subnetFor(net, addressOn(m, net)).id === s.id)
    .map((m) => ({ id: numericIdOf(m.id), interfaces: [{ id: numericIdOf(net.id), config_id: numericIdOf(m.id), active: true }] }));
  return {
    id: s.id,
    label: s.label,
    ipv4: presentedOf(sim).cidr(s.ipv4, 'vpc'),
    ipv6: null,
    linodes,
    databases: [],
    nodebalancers: [],
    created: linodeTime(net.created),
    updated: linodeTime(net.created),
  };
}

function vpcView(sim: Sim, net: NetworkRec): VPC {
  return {
    id: numericIdOf(net.id),
    label: net.name,
    description: '',
    region: regionOf(net),
    ipv6: null,
    subnets: subnetsOf(net).map((s) => subnetView(sim, net, s)),
    created: linodeTime(net.created),
    updated: linodeTime(net.created),
  };
}

function interfaceView(sim: Sim, net: NetworkRec, s: ServerRec): ConfigInterface {
  const ip = addressOn(s, net);
  return {
    id: numericIdOf(net.id),
    purpose: 'vpc',
    label: '',
    ipam_address: '',
    primary: false,
    active: true,
    vpc_id: numericIdOf(net.id),
    subnet_id: subnetFor(net, ip).id,
    ipv4: { vpc: presentedOf(sim).ip(ip, 'vpc'), nat_1_1: null },
    ipv6: null,
    ip_ranges: rangesOf(net, ip),
  };
}

/** The one config of an instance (its id is the instance's), with a vpc interface per network it is on. */
const HELPERS = { updatedb_disabled: true, distro: true, modules_dep: true, network: true, devtmpfs_automount: true };

function configView(sim: Sim, s: ServerRec): InstanceConfig {
  const ifaces = s.private_networks.map((p) => interfaceView(sim, findRecord(sim, 'networks', p.network_id)!, s));
  return {
    id: numericIdOf(s.id),
    label: 'default',
    comments: '',
    kernel: 'linode/grub2',
    root_device: '/dev/sda',
    run_level: 'default',
    virt_mode: 'paravirt',
    memory_limit: 0,
    initrd: null,
    devices: {},
    helpers: HELPERS,
    interfaces: ifaces,
    created: linodeTime(s.created),
    updated: linodeTime(s.created),
  };
}

function ipsView(sim: Sim, net: NetworkRec): VPCIP[] {
  const region = regionOf(net);
  const presented = presentedOf(sim);
  return members(sim, net).flatMap((s) => {
    const ip = addressOn(s, net);
    const sub = subnetFor(net, ip);
    const { prefix } = parseCidr(sub.ipv4);
    const base = {
      vpc_id: numericIdOf(net.id),
      subnet_id: sub.id,
      linode_id: numericIdOf(s.id),
      config_id: numericIdOf(s.id),
      interface_id: numericIdOf(net.id),
      region,
      active: true,
      nat_1_1: null,
      prefix,
      gateway: '',
      subnet_mask: '',
    };
    return [
      { ...base, address: presented.ip(ip, 'vpc'), address_range: null },
      ...rangesOf(net, ip).map((r) => ({ ...base, address: null, address_range: r })),
    ];
  });
}

async function createVPC(sim: Sim, caller: Caller, body: z.infer<typeof CreateVPCBody>): Promise<VPC> {
  const zone = ZONES.find((z) => z.region === body.region);
  if (zone === undefined) throw invalidField('region', `unknown region ${body.region}`);
  const subnets = (body.subnets ?? []).map((s) => ({ zone: zone.id, ip_range: loopbackOf(sim).cidr(s.ipv4) }));
  const network = await nets.createNetwork(sim, caller, { name: body.label, ...(subnets.length === 1 ? { ip_range: subnets[0]!.ip_range } : {}), subnets });
  return vpcView(sim, getOwned(sim, caller, 'networks', network.id));
}

/** The routes of `ip` on `net` become exactly `wanted` in one commit: new ones added, missing ones deleted. */
async function setRanges(sim: Sim, caller: Caller, { net, ip }: { net: NetworkRec; ip: string }, wanted: readonly string[]): Promise<void> {
  const have = rangesOf(net, ip);
  const add = [...wanted.entries()].filter(([, dest]) => !have.includes(dest));
  await nets.changeRoutes(sim, caller, net.id, {
    remove: net.routes.filter((x) => x.gateway === ip && !wanted.includes(x.destination)).map((r) => r.id),
    add: add.map(([, dest]) => ({ destination: dest, gateway: ip })),
    field: (k) => `ip_ranges.${add[k]![0]}`,
  });
}

/**
 * A deleted instance's vpc interfaces go with it, and so do their ip_ranges: the network routes whose
 * gateway is its address. (Linode's CCM cannot delete them itself: its DeleteRoute looks the instance up.)
 */
export async function dropRangesOf(sim: Sim, caller: Caller, s: ServerRec): Promise<void> {
  for (const att of s.private_networks) {
    const net = findRecord(sim, 'networks', att.network_id);
    const remove = net?.routes.filter((r) => r.gateway === att.ip).map((r) => r.id) ?? [];
    if (net !== undefined && remove.length > 0) await nets.changeRoutes(sim, caller, net.id, { remove, add: [] });
  }
}

async function updateInterface(sim: Sim, caller: Caller, p: z.infer<typeof InterfaceParams>, body: z.infer<typeof InterfaceBody>): Promise<ConfigInterface> {
  const s = owned(sim, caller, 'linode/instances', p.id);
  if (p.cid !== p.id) throw notFound('config', String(p.cid));
  const att = s.private_networks.find((x) => numericIdOf(x.network_id) === p.iid);
  if (att === undefined) throw notFound('interface', String(p.iid));
  const back = loopbackOf(sim);
  const ranges = body.ip_ranges?.map((r) => back.cidr(r));
  if (ranges !== undefined) await setRanges(sim, caller, { net: getOwned(sim, caller, 'networks', att.network_id), ip: att.ip }, ranges);
  return interfaceView(sim, getOwned(sim, caller, 'networks', att.network_id), getOwned(sim, caller, 'servers', s.id));
}

export const vpcRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${PREFIX}/vpcs`,
    operation: 'linode.vpcs.list',
    summary: 'List VPCs',
    query: ListQuery,
    queryHeaders: ['X-Filter'],
    response: page(VPC),
    handle: (sim, { caller, query }) =>
      pageOf(
        ownedRecords(sim, caller, 'networks').map((n) => vpcView(sim, n)),
        query,
      ),
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/vpcs`,
    operation: 'linode.vpcs.create',
    summary: 'Create a VPC',
    body: CreateVPCBody,
    response: VPC,
    handle: (sim, { caller, body }) => createVPC(sim, caller, body),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/vpcs/:id`,
    operation: 'linode.vpcs.get',
    summary: 'Get a VPC',
    params: NumericIdParams,
    response: VPC,
    handle: (sim, { caller, params }) => vpcView(sim, owned(sim, caller, 'vpcs', params.id)),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/vpcs/:id/subnets`,
    operation: 'linode.vpcs.subnets.list',
    summary: "A VPC's subnets",
    params: NumericIdParams,
    query: ListQuery,
    queryHeaders: ['X-Filter'],
    response: page(VPCSubnet),
    handle: (sim, { caller, params, query }) => {
      const net = owned(sim, caller, 'vpcs', params.id);
      return pageOf(
        subnetsOf(net).map((s) => subnetView(sim, net, s)),
        query,
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/vpcs/:id/subnets/:sid`,
    operation: 'linode.vpcs.subnets.get',
    summary: 'Get a subnet',
    params: SubnetParams,
    response: VPCSubnet,
    handle: (sim, { caller, params }) => {
      const net = owned(sim, caller, 'vpcs', params.id);
      const s = subnetsOf(net).find((x) => x.id === params.sid);
      if (s === undefined) throw notFound('subnet', String(params.sid));
      return subnetView(sim, net, s);
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/vpcs/:id/ipv6s`,
    operation: 'linode.vpcs.ipv6s',
    summary: "A VPC's IPv6 addresses (none: VPCs here are IPv4)",
    params: NumericIdParams,
    query: ListQuery,
    queryHeaders: ['X-Filter'],
    response: page(VPCIP),
    handle: (sim, { caller, params, query }) => {
      owned(sim, caller, 'vpcs', params.id);
      return pageOf<VPCIP>([], query);
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/vpcs/:id/ips`,
    operation: 'linode.vpcs.ips',
    summary: "A VPC's addresses and ranges",
    params: NumericIdParams,
    query: ListQuery,
    queryHeaders: ['X-Filter'],
    response: page(VPCIP),
    handle: (sim, { caller, params, query }) => pageOf(ipsView(sim, owned(sim, caller, 'vpcs', params.id)), query),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/linode/instances/:id/configs`,
    operation: 'linode.instances.configs.list',
    summary: "An instance's config",
    params: NumericIdParams,
    query: ListQuery,
    queryHeaders: ['X-Filter'],
    response: page(InstanceConfig),
    handle: (sim, { caller, params, query }) => pageOf([configView(sim, owned(sim, caller, 'linode/instances', params.id))], query),
  }),
  defineRoute({
    method: 'put',
    path: `${PREFIX}/linode/instances/:id/configs/:cid/interfaces/:iid`,
    operation: 'linode.instances.configs.interfaces.update',
    summary: "Set a vpc interface's ip_ranges",
    params: InterfaceParams,
    body: InterfaceBody,
    response: ConfigInterface,
    handle: (sim, { caller, params, body }) => updateInterface(sim, caller, params, body),
  }),
];
