/**
 * Linode persona: reserved IPv4 addresses (`/networking/reserved/ips`) and the address endpoints that reserve or
 * unreserve one in place (`/networking/ips/{address}`). A reserved address is a simcloud IP block of one address
 * (ip-blocks/service.ts): a new one comes from the IP block pool (a loopback address, so traffic to it works), a
 * NodeBalancer's VIP reserved in place becomes a block assigned to that load balancer, and a block outlives its
 * NodeBalancer. A NodeBalancer created with `ipv4` takes its VIP from the block (nodebalancers.ts).
 */
import { z } from 'zod';
import type { IpBlockRec, LoadBalancerRec, ServerRec } from '../../server/store/state.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField, notFound } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { getOwned, ownedRecords } from '../../server/resources/common.ts';
import * as blocks from '../../server/resources/ip-blocks/service.ts';
import { isIPv4 } from '../../../lib/ip.ts';
import { numericIdOf } from '../numeric-ids.ts';
import { ListQuery, PREFIX, pageOf, visible } from './common.ts';
import { Empty, InstanceIP, page } from './responses.ts';
import { labelsOf, rdnsOf, regionExists, tagsOf } from './views.ts';

const Tags = z.array(z.string().min(1).max(50)).max(50);
const AddressParams = z.object({ address: z.string().refine(isIPv4, 'must be an IPv4 address') });
const ReserveBody = z.strictObject({ region: z.string().min(1).max(63), tags: Tags.optional() });
const TagsBody = z.strictObject({ tags: Tags });
const AddressBody = z.strictObject({ reserved: z.boolean().optional(), rdns: z.string().max(255).nullable().optional() });

/** Who holds an address of the caller's: a reserved block, a NodeBalancer's VIP, an instance's public address. */
interface Holder {
  block: IpBlockRec | undefined;
  lb: LoadBalancerRec | undefined;
  server: ServerRec | undefined;
}

function holderOf(sim: Sim, caller: Caller, address: string): Holder {
  const block = blocks.blockOfAddress(sim, caller, address);
  const lb = ownedRecords(sim, caller, 'load_balancers').find((x) => visible(x) && x.public_ipv4 === address);
  const server = ownedRecords(sim, caller, 'servers').find((s) => s.public_ipv4 === address);
  return { block, lb, server };
}

function addressView(address: string, region: string, h: Holder): InstanceIP {
  const entity =
    h.lb !== undefined
      ? { id: numericIdOf(h.lb.id), label: h.lb.name, type: 'nodebalancer', url: `/v4/nodebalancers/${numericIdOf(h.lb.id)}` }
      : h.server === undefined
        ? null
        : { id: numericIdOf(h.server.id), label: h.server.name, type: 'linode', url: `/v4/linode/instances/${numericIdOf(h.server.id)}` };
  return {
    address,
    gateway: null,
    subnet_mask: '255.255.255.0',
    prefix: 24,
    type: 'ipv4',
    public: true,
    rdns: rdnsOf(address),
    linode_id: h.server === undefined ? null : numericIdOf(h.server.id),
    interface_id: null,
    region,
    vpc_nat_1_1: null,
    reserved: h.block !== undefined,
    tags: h.block === undefined ? [] : tagsOf(h.block.tags),
    assigned_entity: entity,
  };
}

function blockView(sim: Sim, caller: Caller, b: IpBlockRec): InstanceIP {
  const address = b.usable_addresses[0]!;
  return addressView(address, b.location, holderOf(sim, caller, address));
}

/** The caller's reserved block of `address`, else 404 as Linode answers. */
function reserved(sim: Sim, caller: Caller, address: string): IpBlockRec {
  const b = blocks.blockOfAddress(sim, caller, address);
  if (b === undefined) throw notFound('reserved ip', address);
  return b;
}

/** Any address of the caller's (GET/PUT /networking/ips/{address}), else 404. */
function anyAddress(sim: Sim, caller: Caller, address: string): InstanceIP {
  const h = holderOf(sim, caller, address);
  const region = h.block?.location ?? h.lb?.location ?? h.server?.region;
  if (region === undefined) throw notFound('ip address', address);
  return addressView(address, region, h);
}

/** `{"reserved": true}` on a NodeBalancer's VIP keeps it as a reserved address; `false` gives the reservation up. */
async function setReserved(sim: Sim, caller: Caller, address: string, wanted: boolean): Promise<void> {
  const h = holderOf(sim, caller, address);
  if (wanted === (h.block !== undefined)) return;
  if (!wanted) return blocks.unreserveAddress(sim, caller, h.block!.id);
  if (h.lb === undefined) throw invalidField('reserved', `only a NodeBalancer's IPv4 address can be reserved in place here; ${address} is not one`);
  await blocks.reserveAddress(sim, caller, h.lb.id, { tags: {} });
}

export const reservedIpRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${PREFIX}/networking/reserved/ips`,
    operation: 'linode.reservedIps.list',
    summary: 'List reserved IPv4 addresses',
    query: ListQuery,
    queryHeaders: ['X-Filter'],
    response: page(InstanceIP),
    handle: (sim, { caller, query }) =>
      pageOf(
        ownedRecords(sim, caller, 'ip_blocks')
          .filter((b) => b.size === 32)
          .map((b) => blockView(sim, caller, b)),
        query,
      ),
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/networking/reserved/ips`,
    operation: 'linode.reservedIps.create',
    summary: 'Reserve an IPv4 address',
    body: ReserveBody,
    response: InstanceIP,
    handle: async (sim, { caller, body }) => {
      if (!regionExists(body.region)) throw invalidField('region', `unknown region ${body.region}`);
      const b = await blocks.allocateIpBlock(sim, caller, { location: body.region, size: 32, tags: labelsOf(body.tags ?? []) });
      return blockView(sim, caller, getOwned(sim, caller, 'ip_blocks', b.id));
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/networking/reserved/ips/:address`,
    operation: 'linode.reservedIps.get',
    summary: 'Get a reserved IPv4 address',
    params: AddressParams,
    response: InstanceIP,
    handle: (sim, { caller, params }) => blockView(sim, caller, reserved(sim, caller, params.address)),
  }),
  defineRoute({
    method: 'put',
    path: `${PREFIX}/networking/reserved/ips/:address`,
    operation: 'linode.reservedIps.update',
    summary: "Set a reserved address's tags",
    params: AddressParams,
    body: TagsBody,
    response: InstanceIP,
    handle: async (sim, { caller, params, body }) => {
      const b = reserved(sim, caller, params.address);
      await blocks.updateIpBlock(sim, caller, b.id, { tags: labelsOf(body.tags) });
      return blockView(sim, caller, getOwned(sim, caller, 'ip_blocks', b.id));
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${PREFIX}/networking/reserved/ips/:address`,
    operation: 'linode.reservedIps.delete',
    summary: 'Release a reserved address',
    params: AddressParams,
    response: Empty,
    handle: async (sim, { caller, params }) => {
      await blocks.unreserveAddress(sim, caller, reserved(sim, caller, params.address).id);
      return {};
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/networking/ips/:address`,
    operation: 'linode.ips.get',
    summary: 'Get an IP address',
    params: AddressParams,
    response: InstanceIP,
    handle: (sim, { caller, params }) => anyAddress(sim, caller, params.address),
  }),
  defineRoute({
    method: 'put',
    path: `${PREFIX}/networking/ips/:address`,
    operation: 'linode.ips.update',
    summary: 'Reserve or unreserve an address in place',
    params: AddressParams,
    body: AddressBody,
    response: InstanceIP,
    handle: async (sim, { caller, params, body }) => {
      anyAddress(sim, caller, params.address);
      if (body.rdns !== undefined) throw invalidField('rdns', 'reverse DNS is not emulated: every address keeps its generated name');
      if (body.reserved !== undefined) await setReserved(sim, caller, params.address, body.reserved);
      return anyAddress(sim, caller, params.address);
    },
  }),
];
