/** Server-group routes: HTTP only. */
import { ListParams } from '../../../api/schema/common.ts';
import {
  CreateServerGroupRequest,
  ServerGroupListResponse,
  ServerGroupMembersRequest,
  ServerGroupResponse,
  SetServerGroupServersRequest,
  UpdateServerGroupRequest,
} from '../../../api/schema/server-groups.ts';
import { defineRoute, idParams, type RouteDef } from '../../route-definitions.ts';
import * as svc from './service.ts';

const base = '/v1/server_groups';

export const serverGroupRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: base,
    operation: 'serverGroups.list',
    summary: 'List server groups',
    query: ListParams,
    response: ServerGroupListResponse,
    handle: (sim, { caller, query }) => svc.listServerGroups(sim, caller, query),
  }),
  defineRoute({
    method: 'post',
    path: base,
    operation: 'serverGroups.create',
    summary: 'Create a server group',
    body: CreateServerGroupRequest,
    response: ServerGroupResponse,
    status: 201,
    handle: async (sim, { caller, body }) => ({ server_group: await svc.createServerGroup(sim, caller, body) }),
  }),
  defineRoute({
    method: 'get',
    path: `${base}/:id`,
    operation: 'serverGroups.get',
    summary: 'Get a server group',
    params: idParams,
    response: ServerGroupResponse,
    handle: (sim, { caller, params }) => ({ server_group: svc.getServerGroup(sim, caller, params.id) }),
  }),
  defineRoute({
    method: 'patch',
    path: `${base}/:id`,
    operation: 'serverGroups.update',
    summary: 'Update a server group',
    params: idParams,
    body: UpdateServerGroupRequest,
    response: ServerGroupResponse,
    handle: async (sim, { caller, params, body }) => ({ server_group: await svc.updateServerGroup(sim, caller, params.id, body) }),
  }),
  defineRoute({
    method: 'delete',
    path: `${base}/:id`,
    operation: 'serverGroups.delete',
    summary: 'Delete a server group',
    params: idParams,
    status: 204,
    handle: (sim, { caller, params }) => svc.deleteServerGroup(sim, caller, params.id),
  }),
  defineRoute({
    method: 'put',
    path: `${base}/:id/servers`,
    operation: 'serverGroups.setServers',
    summary: 'Replace the members',
    params: idParams,
    body: SetServerGroupServersRequest,
    response: ServerGroupResponse,
    handle: async (sim, { caller, params, body }) => ({ server_group: await svc.setServerGroupServers(sim, caller, params.id, body.servers) }),
  }),
  defineRoute({
    method: 'post',
    path: `${base}/:id/actions/add_servers`,
    operation: 'serverGroups.addServers',
    summary: 'Add members (present ones are kept)',
    params: idParams,
    body: ServerGroupMembersRequest,
    response: ServerGroupResponse,
    handle: async (sim, { caller, params, body }) => ({ server_group: await svc.addServerGroupServers(sim, caller, params.id, body.servers) }),
  }),
  defineRoute({
    method: 'post',
    path: `${base}/:id/actions/remove_servers`,
    operation: 'serverGroups.removeServers',
    summary: 'Remove members (absent ones are skipped)',
    params: idParams,
    body: ServerGroupMembersRequest,
    response: ServerGroupResponse,
    handle: async (sim, { caller, params, body }) => ({ server_group: await svc.removeServerGroupServers(sim, caller, params.id, body.servers) }),
  }),
];
