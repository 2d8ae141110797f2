/** Load-balancer routes: HTTP only. */
import { z } from 'zod';
import { ActionResponse } from '../../../api/schema/actions.ts';
import { publicView, withPublicAction } from '../common.ts';
import {
  AttachLoadBalancerToNetworkRequest,
  CreateLoadBalancerRequest,
  LoadBalancerCreateResponse,
  LoadBalancerListAnswer,
  LoadBalancerListParams,
  LoadBalancerMetricsResponse,
  LoadBalancerResponse,
  UpdateLoadBalancerRequest,
} from '../../../api/schema/load-balancers.ts';
import { defineRoute, idParams, type RouteDef } from '../../route-definitions.ts';
import * as svc from './service.ts';

const base = '/v1/load_balancers';

export const loadBalancerRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: base,
    operation: 'loadBalancers.list',
    summary: 'List load balancers',
    query: LoadBalancerListParams,
    response: LoadBalancerListAnswer,
    handle: (sim, { caller, query: { resolved_targets, ...query } }) =>
      svc.listLoadBalancers(sim, caller, query, { resolvedTargets: resolved_targets !== 'false' }),
  }),
  defineRoute({
    method: 'post',
    path: base,
    operation: 'loadBalancers.create',
    summary: 'Create a load balancer',
    body: CreateLoadBalancerRequest,
    response: LoadBalancerCreateResponse,
    status: 201,
    handle: (sim, { caller, body }) => withPublicAction(svc.createLoadBalancer(sim, caller, body)),
  }),
  defineRoute({
    method: 'get',
    path: `${base}/:id`,
    operation: 'loadBalancers.get',
    summary: 'Get a load balancer',
    params: idParams,
    response: LoadBalancerResponse,
    handle: (sim, { caller, params }) => ({ load_balancer: svc.getLoadBalancer(sim, caller, params.id) }),
  }),
  defineRoute({
    method: 'patch',
    path: `${base}/:id`,
    operation: 'loadBalancers.update',
    summary: 'Update a load balancer',
    params: idParams,
    body: UpdateLoadBalancerRequest,
    response: LoadBalancerResponse,
    handle: async (sim, { caller, params, body }) => ({ load_balancer: await svc.updateLoadBalancer(sim, caller, params.id, body) }),
  }),
  defineRoute({
    method: 'delete',
    path: `${base}/:id`,
    operation: 'loadBalancers.delete',
    summary: 'Delete a load balancer',
    params: idParams,
    response: ActionResponse,
    status: 202,
    handle: async (sim, { caller, params }) => ({ action: publicView(await svc.deleteLoadBalancer(sim, caller, params.id)) }),
  }),
  defineRoute({
    method: 'post',
    path: `${base}/:id/actions/attach_to_network`,
    operation: 'loadBalancers.attachToNetwork',
    summary: 'Attach to a network',
    params: idParams,
    body: AttachLoadBalancerToNetworkRequest,
    response: ActionResponse,
    status: 201,
    handle: async (sim, { caller, params, body }) => ({ action: publicView(await svc.attachLoadBalancer(sim, caller, params.id, body)) }),
  }),
  defineRoute({
    method: 'post',
    path: `${base}/:id/actions/detach_from_network`,
    operation: 'loadBalancers.detachFromNetwork',
    summary: 'Detach from its network',
    params: idParams,
    body: z.strictObject({}),
    response: ActionResponse,
    status: 201,
    handle: async (sim, { caller, params }) => ({ action: publicView(await svc.detachLoadBalancer(sim, caller, params.id)) }),
  }),
  defineRoute({
    method: 'get',
    path: `${base}/:id/metrics`,
    operation: 'loadBalancers.metrics',
    summary: 'Per-target connection and byte counters',
    params: idParams,
    response: LoadBalancerMetricsResponse,
    handle: (sim, { caller, params }) => ({ targets: svc.loadBalancerMetrics(sim, caller, params.id) }),
  }),
];
