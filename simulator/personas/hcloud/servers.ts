/** Hetzner persona: servers (list, get, create, update, delete, power and network actions) over simcloud's servers. */
import type { z } from 'zod';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { listOwned } from '../../server/resources/common.ts';
import * as svc from '../../server/resources/servers/service.ts';
import { IMAGES, REGIONS, SERVER_TYPES, ZONES } from '../../server/resources/catalogue/data.ts';
import type { ServerActionName } from '../../api/schema/servers.ts';
import type { ServerRec } from '../../server/store/state.ts';
import { NumericIdParams } from '../numeric-ids.ts';
import { byIdOrName, firstZoneOf, regionOfLocation } from './catalogue.ts';
import { NAME, PREFIX, owned, sid, simListQuery } from './common.ts';
import { ChangeDnsPtrBody } from './lb-schemas.ts';
import { withDnsPtr } from './server-attrs.ts';
import { CreateServerBody, Empty, NetworkOnly, NetworkRef, ServerListQuery, UpdateBody } from './schemas.ts';
import { ActionAnswer, Server, ServerCreated, list as listOf, one } from './responses.ts';
import { actionView, serverView } from './views.ts';
import { loopbackIp } from './addresses.ts';

function zoneFor(body: CreateServerBody): string {
  if (body.datacenter !== undefined) {
    const dc = byIdOrName(ZONES, body.datacenter);
    if (dc === undefined) throw invalidField('datacenter', `unknown datacenter ${body.datacenter}`);
    return dc.id;
  }
  const region = body.location === undefined ? REGIONS[0] : regionOfLocation(body.location);
  const zone = region === undefined ? undefined : firstZoneOf(region.id);
  if (zone === undefined) throw invalidField('location', `unknown location ${body.location ?? ''}`);
  return zone.id;
}

function catalogueId<T extends { id: string; name: string }>(list: readonly T[], ref: string | number, field: string): string {
  const found = byIdOrName(list, ref);
  if (found === undefined) throw invalidField(field, `unknown ${field.replace('_', ' ')} ${ref}`);
  return found.id;
}

async function create(sim: Sim, caller: Caller, body: CreateServerBody): Promise<z.infer<typeof ServerCreated>> {
  const networks = (body.networks ?? []).map((n, i) => owned(sim, caller, 'networks', { n, field: `networks.${i}` }).id);
  const { server, action } = await svc.createServer(sim, caller, {
    name: body.name,
    server_type: catalogueId(SERVER_TYPES, body.server_type, 'server_type'),
    image: catalogueId(IMAGES, body.image, 'image'),
    zone: zoneFor(body),
    labels: body.labels,
    networks: networks.length > 0 ? networks : undefined,
    public_net: body.public_net?.enable_ipv4,
    ipv6: body.public_net?.enable_ipv6,
    start_after_create: body.start_after_create,
  });
  return { server: serverView(sim, server), action: actionView(action), next_actions: [], root_password: null };
}

const ServerList = listOf('servers', Server);

function list(sim: Sim, caller: Caller, q: z.infer<typeof ServerListQuery>): z.infer<typeof ServerList> {
  const statuses = q.status;
  const { items, meta } = listOwned<ServerRec>(sim, caller, {
    coll: 'servers',
    type: 'server',
    q: simListQuery(q),
    ...(statuses === undefined ? {} : { extra: (s: ServerRec) => statuses.includes(s.status), extraKey: `status=${statuses.join(',')}` }),
  });
  return { servers: items.map((s) => serverView(sim, svc.toServer(s))), meta };
}

const power = (action: ServerActionName): RouteDef =>
  defineRoute({
    method: 'post',
    path: `${PREFIX}/servers/:id/actions/${action}`,
    operation: `hcloud.servers.${action}`,
    summary: `${action} a server`,
    params: NumericIdParams,
    body: Empty,
    status: 201,
    response: ActionAnswer,
    handle: async (sim, { caller, params }) => ({ action: actionView(await svc.powerAction(sim, caller, sid('servers', params.id), action)) }),
  });

export const serverRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${PREFIX}/servers`,
    operation: 'hcloud.servers.list',
    summary: 'List servers',
    query: ServerListQuery,
    response: ServerList,
    handle: (sim, { caller, query }) => list(sim, caller, query),
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/servers`,
    operation: 'hcloud.servers.create',
    summary: 'Create a server',
    body: CreateServerBody,
    status: 201,
    response: ServerCreated,
    handle: (sim, { caller, body }) => create(sim, caller, body),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/servers/:id`,
    operation: 'hcloud.servers.get',
    summary: 'Get a server',
    params: NumericIdParams,
    response: one('server', Server),
    handle: (sim, { caller, params }) => ({ server: serverView(sim, svc.toServer(owned(sim, caller, 'servers', params.id))) }),
  }),
  defineRoute({
    method: 'put',
    path: `${PREFIX}/servers/:id`,
    operation: 'hcloud.servers.update',
    summary: 'Update name or labels',
    params: NumericIdParams,
    body: UpdateBody,
    response: one('server', Server),
    handle: async (sim, { caller, params, body }) => ({ server: serverView(sim, await svc.updateServer(sim, caller, sid('servers', params.id), body)) }),
  }),
  defineRoute({
    method: 'delete',
    path: `${PREFIX}/servers/:id`,
    operation: 'hcloud.servers.delete',
    summary: 'Delete a server',
    params: NumericIdParams,
    response: ActionAnswer,
    handle: async (sim, { caller, params }) => ({ action: actionView(await svc.deleteServer(sim, caller, sid('servers', params.id))) }),
  }),
  power('poweron'),
  power('poweroff'),
  power('shutdown'),
  power('reboot'),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/servers/:id/actions/change_dns_ptr`,
    operation: 'hcloud.servers.change_dns_ptr',
    summary: 'Set the reverse DNS of a public address',
    params: NumericIdParams,
    body: ChangeDnsPtrBody,
    status: 201,
    response: ActionAnswer,
    handle: async (sim, { caller, params, body }) => {
      const server = owned(sim, caller, 'servers', params.id);
      const attrs = withDnsPtr(server, body.ip, body.dns_ptr);
      return { action: actionView(await svc.updateServerAttrsByAction(sim, caller, server.id, { [NAME]: attrs }), 'change_dns_ptr') };
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/servers/:id/actions/attach_to_network`,
    operation: 'hcloud.servers.attachToNetwork',
    summary: 'Attach to a network',
    params: NumericIdParams,
    body: NetworkRef,
    status: 201,
    response: ActionAnswer,
    handle: async (sim, { caller, params, body }) => {
      const network = owned(sim, caller, 'networks', { n: body.network, field: 'network' });
      return { action: actionView(await svc.attachServer(sim, caller, sid('servers', params.id), { network_id: network.id, ip: loopbackIp(sim, body.ip) })) };
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/servers/:id/actions/detach_from_network`,
    operation: 'hcloud.servers.detachFromNetwork',
    summary: 'Detach from a network',
    params: NumericIdParams,
    body: NetworkOnly,
    status: 201,
    response: ActionAnswer,
    handle: async (sim, { caller, params, body }) => {
      const network = owned(sim, caller, 'networks', { n: body.network, field: 'network' });
      return { action: actionView(await svc.detachServer(sim, caller, sid('servers', params.id), network.id)) };
    },
  }),
];
