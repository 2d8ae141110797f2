/**
 * Brightbox persona: the account as the CCM reads it, zones, server types, images and servers (list, get, create,
 * delete) over simcloud's project, catalogue and servers.
 */
import { z } from 'zod';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField, notFound } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { IMAGES, SERVER_TYPES, ZONES } from '../../server/resources/catalogue/data.ts';
import { findOwned, findRecord, getOwned, ownedRecords } from '../../server/resources/common.ts';
import * as svc from '../../server/resources/servers/service.ts';
import type { ServerRec } from '../../server/store/state.ts';
import { API, bbTime, IdParams, ownedBy, zoneOfHandle } from './common.ts';
import { Account, Image, Server, ServerType, Zone } from './responses.ts';
import { accountRef, imageView, serverTypeView, serverView, zoneView } from './views.ts';

const view = (sim: Sim, caller: Caller, s: ServerRec): Server =>
  serverView(s, ownedRecords(sim, caller, 'server_groups'), ownedRecords(sim, caller, 'ip_blocks'));

/** Every field gobrightbox's ServerOptions has; what simcloud cannot act on is refused (parity.ts). */
const CreateServerBody = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(63)
    .regex(/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/, 'must be letters, digits, dots and dashes'),
  image: z.string().min(1).max(63),
  server_type: z.string().min(1).max(63),
  zone: z.string().min(1).max(63).optional(),
  user_data: z.string().max(16384).optional(),
  server_groups: z.array(z.string().max(64)).max(0, 'server groups at creation are not emulated; add the server to a group').optional(),
  compatibility_mode: z.literal(false).optional(),
  disk_encrypted: z.boolean().optional(),
  cloud_ip: z.literal(false).optional(),
});
type CreateServerBody = z.infer<typeof CreateServerBody>;

/** A server type or image named by its handle, name or Brightbox id. */
function catalogue(body: CreateServerBody): { serverType: string; image: string } {
  const type = SERVER_TYPES.find((t) => t.id === body.server_type || serverTypeView(t).id === body.server_type);
  if (type === undefined) throw invalidField('server_type', `unknown server type ${body.server_type}; one of ${SERVER_TYPES.map((t) => t.id).join(', ')}`);
  const image = IMAGES.find((i) => i.id === body.image || imageView(i.id).id === body.image);
  if (image === undefined) throw invalidField('image', `unknown image ${body.image}; one of ${IMAGES.map((i) => imageView(i.id).id).join(', ')}`);
  return { serverType: type.id, image: image.id };
}

async function create(sim: Sim, caller: Caller, body: CreateServerBody): Promise<Server> {
  const zone = body.zone === undefined ? ZONES[0]!.id : zoneOfHandle(body.zone);
  if (zone === undefined) throw invalidField('zone', `unknown zone ${body.zone}; one of ${ZONES.map((z) => zoneView(z.id).handle).join(', ')}`);
  const { serverType, image } = catalogue(body);
  const { server } = await svc.createServer(sim, caller, { name: body.name, server_type: serverType, image, zone, start_after_create: true });
  return view(sim, caller, getOwned(sim, caller, 'servers', server.id));
}

const findType = (id: string): ServerType => {
  const t = SERVER_TYPES.find((x) => serverTypeView(x).id === id || x.id === id);
  if (t === undefined) throw notFound('server type', id);
  return serverTypeView(t);
};

const accountView = (sim: Sim, caller: Caller): Account => {
  const servers = ownedRecords(sim, caller, 'servers');
  const ram = servers.reduce((sum, s) => sum + (SERVER_TYPES.find((t) => t.id === s.server_type)?.memory_mb ?? 0), 0);
  const created = findRecord(sim, 'projects', caller.projectId)?.created ?? new Date(sim.clock.now()).toISOString();
  return {
    ...accountRef(caller.projectId),
    ram_limit: 1_048_576,
    ram_used: ram,
    servers_used: servers.length,
    cloud_ips_limit: 1000,
    cloud_ips_used: ownedRecords(sim, caller, 'ip_blocks').length,
    load_balancers_limit: 1000,
    load_balancers_used: ownedRecords(sim, caller, 'load_balancers').length,
    created_at: bbTime(created),
    zones: ZONES.map((z) => zoneView(z.id)),
  };
};

export const serverRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${API}/accounts`,
    operation: 'brightbox.accounts.list',
    summary: 'The accounts the client may act on: the project',
    response: z.array(Account),
    handle: (sim, { caller }) => [accountView(sim, caller)],
  }),
  defineRoute({
    method: 'get',
    path: `${API}/zones`,
    operation: 'brightbox.zones.list',
    summary: 'Zones (simcloud zones)',
    response: z.array(Zone),
    handle: () => ZONES.map((z) => zoneView(z.id)),
  }),
  defineRoute({
    method: 'get',
    path: `${API}/server_types`,
    operation: 'brightbox.server_types.list',
    summary: 'Server types',
    response: z.array(ServerType),
    handle: () => SERVER_TYPES.map(serverTypeView),
  }),
  defineRoute({
    method: 'get',
    path: `${API}/server_types/:id`,
    operation: 'brightbox.server_types.get',
    summary: 'A server type by id or handle',
    params: IdParams,
    response: ServerType,
    handle: (_sim, { params }) => findType(params.id),
  }),
  defineRoute({
    method: 'get',
    path: `${API}/images`,
    operation: 'brightbox.images.list',
    summary: 'Images (simcloud images, official)',
    response: z.array(Image),
    handle: () => IMAGES.map((i) => imageView(i.id)),
  }),
  defineRoute({
    method: 'get',
    path: `${API}/servers`,
    operation: 'brightbox.servers.list',
    summary: 'List servers',
    response: z.array(Server),
    handle: (sim, { caller }) => ownedRecords(sim, caller, 'servers').map((s) => view(sim, caller, s)),
  }),
  defineRoute({
    method: 'post',
    path: `${API}/servers`,
    operation: 'brightbox.servers.create',
    summary: 'Create a server',
    body: CreateServerBody,
    response: Server,
    status: 202,
    handle: (sim, { caller, body }) => create(sim, caller, body),
  }),
  defineRoute({
    method: 'get',
    path: `${API}/servers/:id`,
    operation: 'brightbox.servers.get',
    summary: 'Get a server',
    params: IdParams,
    response: Server,
    handle: (sim, { caller, params }) => view(sim, caller, ownedBy(sim, caller, 'servers', params.id)),
  }),
  defineRoute({
    method: 'delete',
    path: `${API}/servers/:id`,
    operation: 'brightbox.servers.delete',
    summary: 'Destroy a server',
    params: IdParams,
    response: Server,
    status: 202,
    handle: async (sim, { caller, params }) => {
      const s = ownedBy(sim, caller, 'servers', params.id);
      await svc.deleteServer(sim, caller, s.id);
      return view(sim, caller, findOwned(sim, caller, 'servers', s.id) ?? { ...s, status: 'deleting' });
    },
  }),
];
