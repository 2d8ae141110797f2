/**
 * phoenixNAP persona, networks API (/networks/v1): private networks (list by location, create, get, replace,
 * delete) over simcloud's networks: the CIDR is the network's range and its one subnet, in the location's first
 * zone; members are the servers on the network.
 */
import { z } from 'zod';
import { Cidr } from '../../api/schema/common.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { PlantedFault, unlessPlanted } from '../../server/planted.ts';
import { ownedRecords } from '../../server/resources/common.ts';
import * as svc from '../../server/resources/networks/service.ts';
import type { NetworkRec } from '../../server/store/state.ts';
import { IdParams, NETWORKS, ownedBy, pnapIdOf, zoneOf } from './common.ts';
import { isPublicNetwork } from './public-networks.ts';
import { PrivateNetwork } from './schemas.ts';
import { privateNetworkView } from './views.ts';

const NetName = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/, 'must be letters, digits, dots, dashes or underscores');

const CreateBody = z.strictObject({
  name: NetName,
  description: z.string().max(250).optional(),
  location: z.string().min(1).max(63),
  locationDefault: z.boolean().optional(),
  cidr: unlessPlanted(PlantedFault.cidrSchema, Cidr),
});
const ModifyBody = z.strictObject({ name: NetName, description: z.string().max(250).optional(), locationDefault: z.boolean() });

const view = (sim: Sim, caller: Caller, n: NetworkRec): PrivateNetwork => privateNetworkView(n, ownedRecords(sim, caller, 'servers'));

export const networkRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${NETWORKS}/private-networks`,
    operation: 'phoenixnap.private-networks.list',
    summary: 'List private networks, by location',
    query: z.strictObject({ location: z.string().max(63).optional() }),
    response: z.array(PrivateNetwork),
    handle: (sim, { caller, query }) => {
      const servers = ownedRecords(sim, caller, 'servers');
      return ownedRecords(sim, caller, 'networks')
        .filter((n) => !isPublicNetwork(n))
        .map((n) => privateNetworkView(n, servers))
        .filter((n) => query.location === undefined || n.location === query.location);
    },
  }),
  defineRoute({
    method: 'post',
    path: `${NETWORKS}/private-networks`,
    operation: 'phoenixnap.private-networks.create',
    summary: 'Create a private network',
    body: CreateBody,
    response: PrivateNetwork,
    status: 201,
    handle: async (sim, { caller, body }) => {
      const zone = zoneOf(body.location);
      const n = await svc.createNetwork(sim, caller, { name: body.name, ip_range: body.cidr, subnets: [{ zone, ip_range: body.cidr }] });
      return view(sim, caller, ownedBy(sim, caller, 'networks', pnapIdOf(n.id)));
    },
  }),
  defineRoute({
    method: 'get',
    path: `${NETWORKS}/private-networks/:id`,
    operation: 'phoenixnap.private-networks.get',
    summary: 'Get a private network',
    params: IdParams,
    response: PrivateNetwork,
    handle: (sim, { caller, params }) => view(sim, caller, ownedBy(sim, caller, 'networks', params.id)),
  }),
  defineRoute({
    method: 'put',
    path: `${NETWORKS}/private-networks/:id`,
    operation: 'phoenixnap.private-networks.modify',
    summary: 'Rename a private network',
    params: IdParams,
    body: ModifyBody,
    response: PrivateNetwork,
    handle: async (sim, { caller, params, body }) => {
      const n = ownedBy(sim, caller, 'networks', params.id);
      await svc.updateNetwork(sim, caller, n.id, { name: body.name });
      return view(sim, caller, ownedBy(sim, caller, 'networks', params.id));
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${NETWORKS}/private-networks/:id`,
    operation: 'phoenixnap.private-networks.delete',
    summary: 'Delete a private network (no members)',
    params: IdParams,
    response: z.undefined(),
    status: 204,
    handle: async (sim, { caller, params }) => svc.deleteNetwork(sim, caller, ownedBy(sim, caller, 'networks', params.id).id),
  }),
];
