/** Network and route routes: HTTP only. */
import { z } from 'zod';
import { ActionResponse } from '../../../api/schema/actions.ts';
import { ListParams } from '../../../api/schema/common.ts';
import { publicView, withPublicAction } from '../common.ts';
import {
  CreateNetworkRequest,
  CreateRouteRequest,
  NetworkListResponse,
  NetworkResponse,
  RouteCreateResponse,
  RouteListResponse,
  UpdateNetworkRequest,
} from '../../../api/schema/networks.ts';
import { defineRoute, idParams, type RouteDef } from '../../route-definitions.ts';
import * as svc from './service.ts';

const RouteParams = z.object({ id: z.string(), routeId: z.string() });

export const networkRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/networks',
    operation: 'networks.list',
    summary: 'List networks',
    query: ListParams,
    response: NetworkListResponse,
    handle: (sim, { caller, query }) => svc.listNetworks(sim, caller, query),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/networks',
    operation: 'networks.create',
    summary: 'Create a network',
    body: CreateNetworkRequest,
    response: NetworkResponse,
    status: 201,
    handle: async (sim, { caller, body }) => ({ network: await svc.createNetwork(sim, caller, body) }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/networks/:id',
    operation: 'networks.get',
    summary: 'Get a network',
    params: idParams,
    response: NetworkResponse,
    handle: (sim, { caller, params }) => ({ network: svc.getNetwork(sim, caller, params.id) }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/networks/:id',
    operation: 'networks.update',
    summary: 'Update name or labels',
    params: idParams,
    body: UpdateNetworkRequest,
    response: NetworkResponse,
    handle: async (sim, { caller, params, body }) => ({ network: await svc.updateNetwork(sim, caller, params.id, body) }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/networks/:id',
    operation: 'networks.delete',
    summary: 'Delete a network (conflict while in use)',
    params: idParams,
    status: 204,
    handle: (sim, { caller, params }) => svc.deleteNetwork(sim, caller, params.id),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/networks/:id/routes',
    operation: 'networks.listRoutes',
    summary: 'List routes',
    params: idParams,
    response: RouteListResponse,
    handle: (sim, { caller, params }) => ({ routes: svc.listRoutes(sim, caller, params.id) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/networks/:id/routes',
    operation: 'networks.createRoute',
    summary: 'Add a route',
    params: idParams,
    body: CreateRouteRequest,
    response: RouteCreateResponse,
    status: 201,
    handle: (sim, { caller, params, body }) => withPublicAction(svc.createRoute(sim, caller, params.id, body)),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/networks/:id/routes/:routeId',
    operation: 'networks.deleteRoute',
    summary: 'Delete a route',
    params: RouteParams,
    response: ActionResponse,
    status: 202,
    handle: async (sim, { caller, params }) => ({ action: publicView(await svc.deleteRoute(sim, caller, params.id, params.routeId)) }),
  }),
];
