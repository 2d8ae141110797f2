/** IP-block routes: HTTP only. */
import { z } from 'zod';
import {
  AllocateIpBlockRequest,
  AssignIpBlockRequest,
  IpBlockListParams,
  IpBlockListResponse,
  IpBlockResponse,
  UpdateIpBlockRequest,
} from '../../../api/schema/ip-blocks.ts';
import { defineRoute, idParams, type RouteDef } from '../../route-definitions.ts';
import * as svc from './service.ts';

const base = '/v1/ip_blocks';

export const ipBlockRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: base,
    operation: 'ipBlocks.list',
    summary: 'List IP blocks (filter by location and tags)',
    query: IpBlockListParams,
    response: IpBlockListResponse,
    handle: (sim, { caller, query }) => svc.listIpBlocks(sim, caller, query),
  }),
  defineRoute({
    method: 'post',
    path: base,
    operation: 'ipBlocks.allocate',
    summary: 'Allocate an IP block',
    body: AllocateIpBlockRequest,
    response: IpBlockResponse,
    status: 201,
    handle: async (sim, { caller, body }) => ({ ip_block: await svc.allocateIpBlock(sim, caller, body) }),
  }),
  defineRoute({
    method: 'get',
    path: `${base}/:id`,
    operation: 'ipBlocks.get',
    summary: 'Get an IP block',
    params: idParams,
    response: IpBlockResponse,
    handle: (sim, { caller, params }) => ({ ip_block: svc.getIpBlock(sim, caller, params.id) }),
  }),
  defineRoute({
    method: 'patch',
    path: `${base}/:id`,
    operation: 'ipBlocks.update',
    summary: 'Replace tags or description',
    params: idParams,
    body: UpdateIpBlockRequest,
    response: IpBlockResponse,
    handle: async (sim, { caller, params, body }) => ({ ip_block: await svc.updateIpBlock(sim, caller, params.id, body) }),
  }),
  defineRoute({
    method: 'delete',
    path: `${base}/:id`,
    operation: 'ipBlocks.release',
    summary: 'Release an IP block',
    params: idParams,
    status: 204,
    handle: (sim, { caller, params }) => svc.releaseIpBlock(sim, caller, params.id),
  }),
  defineRoute({
    method: 'post',
    path: `${base}/:id/actions/assign`,
    operation: 'ipBlocks.assign',
    summary: 'Assign to a load balancer or network',
    params: idParams,
    body: AssignIpBlockRequest,
    response: IpBlockResponse,
    handle: async (sim, { caller, params, body }) => ({ ip_block: await svc.assignIpBlock(sim, caller, params.id, body) }),
  }),
  defineRoute({
    method: 'post',
    path: `${base}/:id/actions/unassign`,
    operation: 'ipBlocks.unassign',
    summary: 'Unassign',
    params: idParams,
    body: z.strictObject({}),
    response: IpBlockResponse,
    handle: async (sim, { caller, params }) => ({ ip_block: await svc.unassignIpBlock(sim, caller, params.id) }),
  }),
];
