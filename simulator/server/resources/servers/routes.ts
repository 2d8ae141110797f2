/** Server routes: HTTP only (parse with the schema, call the service, serialise). */
import { z } from 'zod';
import { ActionResponse } from '../../../api/schema/actions.ts';
import { ListParams } from '../../../api/schema/common.ts';
import { publicView, withPublicAction } from '../common.ts';
import {
  AttachServerToNetworkRequest,
  CreateServerRequest,
  DetachServerFromNetworkRequest,
  ServerCreateResponse,
  ServerListResponse,
  ServerResponse,
  ServerStatus,
  UpdateServerRequest,
  type ServerActionName,
} from '../../../api/schema/servers.ts';
import { defineRoute, idParams, type RouteDef } from '../../route-definitions.ts';
import * as svc from './service.ts';

const ServerListParams = ListParams.extend({ status: z.enum(ServerStatus).optional() });
const Empty = z.strictObject({});

const power = (name: ServerActionName): RouteDef =>
  defineRoute({
    method: 'post',
    path: `/v1/servers/:id/actions/${name}`,
    operation: `servers.${name}`,
    summary: `${name} a server`,
    params: idParams,
    body: Empty,
    response: ActionResponse,
    status: 201,
    handle: async (sim, { caller, params }) => ({ action: publicView(await svc.powerAction(sim, caller, params.id, name)) }),
  });

export const serverRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/servers',
    operation: 'servers.list',
    summary: 'List servers',
    query: ServerListParams,
    response: ServerListResponse,
    handle: (sim, { caller, query }) => svc.listServers(sim, caller, query),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/servers',
    operation: 'servers.create',
    summary: 'Create a server',
    body: CreateServerRequest,
    response: ServerCreateResponse,
    status: 201,
    handle: (sim, { caller, body }) => withPublicAction(svc.createServer(sim, caller, body)),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/servers/:id',
    operation: 'servers.get',
    summary: 'Get a server',
    params: idParams,
    response: ServerResponse,
    handle: (sim, { caller, params }) => ({ server: svc.getServer(sim, caller, params.id) }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/servers/:id',
    operation: 'servers.update',
    summary: 'Update name or labels',
    params: idParams,
    body: UpdateServerRequest,
    response: ServerResponse,
    handle: async (sim, { caller, params, body }) => ({ server: await svc.updateServer(sim, caller, params.id, body) }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/servers/:id',
    operation: 'servers.delete',
    summary: 'Delete a server',
    params: idParams,
    response: ActionResponse,
    status: 202,
    handle: async (sim, { caller, params }) => ({ action: publicView(await svc.deleteServer(sim, caller, params.id)) }),
  }),
  power('poweron'),
  power('poweroff'),
  power('shutdown'),
  power('reboot'),
  defineRoute({
    method: 'post',
    path: '/v1/servers/:id/actions/attach_to_network',
    operation: 'servers.attachToNetwork',
    summary: 'Attach to a network',
    params: idParams,
    body: AttachServerToNetworkRequest,
    response: ActionResponse,
    status: 201,
    handle: async (sim, { caller, params, body }) => ({ action: publicView(await svc.attachServer(sim, caller, params.id, body)) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/servers/:id/actions/detach_from_network',
    operation: 'servers.detachFromNetwork',
    summary: 'Detach from a network',
    params: idParams,
    body: DetachServerFromNetworkRequest,
    response: ActionResponse,
    status: 201,
    handle: async (sim, { caller, params, body }) => ({ action: publicView(await svc.detachServer(sim, caller, params.id, body.network_id)) }),
  }),
];
