/**
 * Hetzner persona: networks with subnets and routes over simcloud's networks. A subnet's network zone is a
 * simcloud region; simcloud keeps subnets per zone, so a subnet lands in the region's first zone (servers of
 * that datacenter take addresses from it, others from the network's whole range). Routes have no ids in
 * Hetzner's API: add_route/delete_route name them by destination and gateway.
 */
import type { z } from 'zod';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField, notFound } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import * as svc from '../../server/resources/networks/service.ts';
import { NumericIdParams } from '../numeric-ids.ts';
import { firstZoneOf, regionOfLocation } from './catalogue.ts';
import { PREFIX, owned, sid, simListQuery } from './common.ts';
import { CreateNetworkBody, ListQuery, RouteBody, UpdateBody } from './schemas.ts';
import { ActionAnswer, Network, NoContent, list, one } from './responses.ts';
import { actionView, networkView } from './views.ts';
import { hcloudAddresses } from './addresses.ts';

function subnetZone(networkZone: string, field: string): string {
  const region = regionOfLocation(networkZone);
  const zone = region === undefined ? undefined : firstZoneOf(region.id);
  if (zone === undefined) throw invalidField(field, `unknown network zone ${networkZone}`);
  return zone.id;
}

/** A route as sent, its ends taken back to loopback (a gateway is a server's presented address). */
function loopbackRoute(sim: Sim, r: z.infer<typeof RouteBody>): z.infer<typeof RouteBody> {
  const back = hcloudAddresses(sim).back;
  return { destination: back.cidr(r.destination), gateway: back.ip(r.gateway) };
}

async function create(sim: Sim, caller: Caller, body: CreateNetworkBody): Promise<{ network: Network }> {
  const back = hcloudAddresses(sim).back;
  const subnets = (body.subnets ?? []).map((s, i) => ({ zone: subnetZone(s.network_zone, `subnets.${i}.network_zone`), ip_range: back.cidr(s.ip_range) }));
  // Its routes are part of the create's one commit.
  const routes = (body.routes ?? []).map((r) => loopbackRoute(sim, r));
  const network = await svc.createNetwork(sim, caller, { name: body.name, ip_range: back.cidr(body.ip_range), subnets, labels: body.labels }, routes);
  return { network: networkView(sim, svc.getNetwork(sim, caller, network.id)) };
}

export const networkRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${PREFIX}/networks`,
    operation: 'hcloud.networks.list',
    summary: 'List networks',
    query: ListQuery,
    response: list('networks', Network),
    handle: (sim, { caller, query }) => {
      const { networks, meta } = svc.listNetworks(sim, caller, simListQuery(query));
      return { networks: networks.map((n) => networkView(sim, n)), meta };
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/networks`,
    operation: 'hcloud.networks.create',
    summary: 'Create a network',
    body: CreateNetworkBody,
    status: 201,
    response: one('network', Network),
    handle: (sim, { caller, body }) => create(sim, caller, body),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/networks/:id`,
    operation: 'hcloud.networks.get',
    summary: 'Get a network',
    params: NumericIdParams,
    response: one('network', Network),
    handle: (sim, { caller, params }) => ({ network: networkView(sim, svc.getNetwork(sim, caller, owned(sim, caller, 'networks', params.id).id)) }),
  }),
  defineRoute({
    method: 'put',
    path: `${PREFIX}/networks/:id`,
    operation: 'hcloud.networks.update',
    summary: 'Update name or labels',
    params: NumericIdParams,
    body: UpdateBody,
    response: one('network', Network),
    handle: async (sim, { caller, params, body }) => ({ network: networkView(sim, await svc.updateNetwork(sim, caller, sid('networks', params.id), body)) }),
  }),
  defineRoute({
    method: 'delete',
    path: `${PREFIX}/networks/:id`,
    operation: 'hcloud.networks.delete',
    summary: 'Delete a network',
    params: NumericIdParams,
    status: 204,
    response: NoContent,
    handle: async (sim, { caller, params }) => {
      await svc.deleteNetwork(sim, caller, sid('networks', params.id));
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/networks/:id/actions/add_route`,
    operation: 'hcloud.networks.addRoute',
    summary: 'Add a route',
    params: NumericIdParams,
    body: RouteBody,
    status: 201,
    response: ActionAnswer,
    handle: async (sim, { caller, params, body }) => ({
      action: actionView((await svc.createRoute(sim, caller, sid('networks', params.id), loopbackRoute(sim, body))).action),
    }),
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/networks/:id/actions/delete_route`,
    operation: 'hcloud.networks.deleteRoute',
    summary: 'Delete a route',
    params: NumericIdParams,
    body: RouteBody,
    status: 201,
    response: ActionAnswer,
    handle: async (sim, { caller, params, body: sent }) => {
      const network = owned(sim, caller, 'networks', params.id);
      const body = loopbackRoute(sim, sent);
      const route = network.routes.find((r) => r.destination === body.destination && r.gateway === body.gateway);
      if (route === undefined) throw notFound('route', `${sent.destination} via ${sent.gateway}`, 'destination');
      return { action: actionView(await svc.deleteRoute(sim, caller, network.id, route.id)) };
    },
  }),
];
