/**
 * phoenixNAP persona, networks API (/networks/v1): public networks (list by location, create, get, delete) and
 * the IP blocks assigned to one (add, remove), what phoenixNAP's CCM uses to route a load balancer's block to the
 * cluster's servers. A public network is a simcloud network labelled PUBLIC_NETWORK_LABEL with its location
 * as the value (its range the documentation placeholder 192.0.2.0/24, data only: phoenixNAP's public networks
 * have no range of their own); a block added to it is simcloud's block assigned to that network, shown as
 * PUBLIC_NETWORK. Servers join one through the BMC API (servers.ts), a fact kept on the server (server-attrs.ts).
 */
import { z } from 'zod';
import type { Caller, Sim } from '../../server/context.ts';
import { conflict, notFound } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { ownedRecords } from '../../server/resources/common.ts';
import * as ipb from '../../server/resources/ip-blocks/service.ts';
import * as svc from '../../server/resources/networks/service.ts';
import type { NetworkRec } from '../../server/store/state.ts';
import { IdParams, NETWORKS, ownedBy, pnapIdOf, PUBLIC_NETWORK_LABEL, zoneOf } from './common.ts';
import { PublicNetwork, PublicNetworkIpBlock, TextResult } from './schemas.ts';
import { membersOf } from './server-attrs.ts';
import { publicNetworkView } from './views.ts';

const PUBLIC = `${NETWORKS}/public-networks`;
/** TEST-NET-1 (RFC 5737): a range no one routes, so the network record has one without taking the private pool's. */
const PLACEHOLDER_RANGE = '192.0.2.0/24';
const BlockRef = z.strictObject({ id: z.string().min(1).max(64) });
const CreateBody = z.strictObject({
  name: z
    .string()
    .min(1)
    // 63, not phoenixNAP's 100: the name (spaces as dashes) is the network's simcloud name, which /v1 shows.
    .max(63)
    .regex(/^[A-Za-z0-9]([A-Za-z0-9._ -]*[A-Za-z0-9])?$/, 'must be letters, digits, spaces, dots, dashes or underscores'),
  description: z.string().max(250).optional(),
  location: z.string().min(1).max(63),
  ipBlocks: z.array(BlockRef).max(10).optional(),
});
const BlockParams = z.object({ id: IdParams.shape.id, blockId: IdParams.shape.id });

/** Whether a stored network is one of phoenixNAP's public networks. */
export const isPublicNetwork = (n: NetworkRec): boolean => n.labels[PUBLIC_NETWORK_LABEL] !== undefined;

/** The caller's public network `id` (a private network's id names none: 404, naming `field` when given). */
export function ownedPublic(sim: Sim, caller: Caller, id: string, field?: string): NetworkRec {
  const n = ownedBy(sim, caller, 'networks', field === undefined ? id : { id, field });
  if (!isPublicNetwork(n)) throw notFound('public network', id, field);
  return n;
}

const view = (sim: Sim, caller: Caller, n: NetworkRec): PublicNetwork =>
  publicNetworkView(n, ownedRecords(sim, caller, 'ip_blocks'), ownedRecords(sim, caller, 'servers'));

export const publicNetworkRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: PUBLIC,
    operation: 'phoenixnap.public-networks.list',
    summary: 'List public networks, by location',
    query: z.strictObject({ location: z.string().max(63).optional() }),
    response: z.array(PublicNetwork),
    handle: (sim, { caller, query }) =>
      ownedRecords(sim, caller, 'networks')
        .filter(isPublicNetwork)
        .map((n) => view(sim, caller, n))
        .filter((n) => query.location === undefined || n.location === query.location),
  }),
  defineRoute({
    method: 'post',
    path: PUBLIC,
    operation: 'phoenixnap.public-networks.create',
    summary: 'Create a public network',
    body: CreateBody,
    response: PublicNetwork,
    status: 201,
    handle: async (sim, { caller, body }) => {
      zoneOf(body.location);
      const blocks = (body.ipBlocks ?? []).map((b, i) => ownedBy(sim, caller, 'ip_blocks', { id: b.id, field: `ipBlocks.${i}.id` }));
      const n = await svc.createNetwork(sim, caller, {
        name: body.name.replaceAll(' ', '-'),
        ip_range: PLACEHOLDER_RANGE,
        labels: { [PUBLIC_NETWORK_LABEL]: body.location },
      });
      for (const b of blocks) await ipb.assignIpBlock(sim, caller, b.id, { kind: 'network', id: n.id });
      return view(sim, caller, ownedPublic(sim, caller, pnapIdOf(n.id)));
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PUBLIC}/:id`,
    operation: 'phoenixnap.public-networks.get',
    summary: 'Get a public network',
    params: IdParams,
    response: PublicNetwork,
    handle: (sim, { caller, params }) => view(sim, caller, ownedPublic(sim, caller, params.id)),
  }),
  defineRoute({
    method: 'delete',
    path: `${PUBLIC}/:id`,
    operation: 'phoenixnap.public-networks.delete',
    summary: 'Delete a public network (no IP blocks, no members)',
    params: IdParams,
    response: z.undefined(),
    status: 204,
    handle: async (sim, { caller, params }) => {
      const n = ownedPublic(sim, caller, params.id);
      if (membersOf(ownedRecords(sim, caller, 'servers'), n.id).length > 0)
        throw conflict(`public network ${params.id} still has member servers; remove them first`, 'id');
      await svc.deleteNetwork(sim, caller, n.id);
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PUBLIC}/:id/ip-blocks`,
    operation: 'phoenixnap.public-networks.ip-blocks.add',
    summary: 'Add an IP block to a public network',
    params: IdParams,
    body: BlockRef,
    response: PublicNetworkIpBlock,
    status: 201,
    handle: async (sim, { caller, params, body }) => {
      const n = ownedPublic(sim, caller, params.id);
      const b = ownedBy(sim, caller, 'ip_blocks', { id: body.id, field: 'id' });
      await ipb.assignIpBlock(sim, caller, b.id, { kind: 'network', id: n.id });
      return { id: pnapIdOf(b.id) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${PUBLIC}/:id/ip-blocks/:blockId`,
    operation: 'phoenixnap.public-networks.ip-blocks.remove',
    summary: 'Remove an IP block from a public network',
    params: BlockParams,
    response: TextResult,
    handle: async (sim, { caller, params }) => {
      const n = ownedPublic(sim, caller, params.id);
      const b = ownedBy(sim, caller, 'ip_blocks', params.blockId);
      if (b.assigned_to?.kind !== 'network' || b.assigned_to.id !== n.id) throw notFound('IP block on this public network', params.blockId, 'ipBlockId');
      const holders = membersOf(ownedRecords(sim, caller, 'servers'), n.id).filter(({ membership }) =>
        membership.ips.some((ip) => b.usable_addresses.includes(ip)),
      );
      if (holders.length > 0)
        throw conflict(
          `servers ${holders.map((h) => pnapIdOf(h.server.id)).join(', ')} hold addresses of IP block ${params.blockId}; remove them from the public network first`,
          'ipBlockId',
        );
      await ipb.unassignIpBlock(sim, caller, b.id);
      return 'The IP Block is being removed from the public network.';
    },
  }),
];
