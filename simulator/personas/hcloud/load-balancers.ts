/** Hetzner persona: load balancers (create, get, list, update, delete) and load balancer types, over simcloud's LBs. */
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { REGIONS } from '../../server/resources/catalogue/data.ts';
import { commitPlans, getOwned, listOwned } from '../../server/resources/common.ts';
import * as svc from '../../server/resources/load-balancers/service.ts';
import type { LoadBalancerRec } from '../../server/store/state.ts';
import { NumericIdParams } from '../numeric-ids.ts';
import { LOAD_BALANCER_TYPES, byIdOrName, regionOfLocation } from './catalogue.ts';
import { NAME, PREFIX, owned, sid, simListQuery } from './common.ts';
import { defaultAttrs, type HcloudLbAttrs } from './lb-attrs.ts';
import { targetKey, toSimService, toSimTarget, withHttpRedirects } from './lb-convert.ts';
import { CreateLoadBalancerBody } from './lb-schemas.ts';
import { loadBalancerView } from './lb-view.ts';
import { checkPrivateTargets } from './lb-rules.ts';
import { ListQuery, UpdateBody } from './schemas.ts';
import { loopbackTarget } from './addresses.ts';
import type { z } from 'zod';
import { ActionAnswer, LoadBalancer, LoadBalancerCreated, list, one } from './responses.ts';
import { actionView } from './views.ts';

export function lbType(ref: string | number, field = 'load_balancer_type'): string {
  const type = byIdOrName(LOAD_BALANCER_TYPES, ref);
  if (type === undefined) throw invalidField(field, `unknown load balancer type ${ref}`);
  return type.name;
}

function locationOf(body: CreateLoadBalancerBody): string {
  const name = body.location ?? body.network_zone;
  if (name === undefined) throw invalidField('location', 'location or network_zone is required');
  const region = regionOfLocation(name);
  if (region === undefined)
    throw invalidField(
      body.location === undefined ? 'network_zone' : 'location',
      `unknown ${body.location === undefined ? 'network zone' : 'location'} ${name}; one of ${REGIONS.map((r) => r.name).join(', ')}`,
    );
  return region.id;
}

async function create(sim: Sim, caller: Caller, body: CreateLoadBalancerBody): Promise<z.infer<typeof LoadBalancerCreated>> {
  const attrs: HcloudLbAttrs = defaultAttrs(lbType(body.load_balancer_type));
  const services = (body.services ?? []).map((b, i) => {
    const { service, attrs: serviceAttrs } = toSimService({ sim, caller }, b, `services.${i}.`);
    attrs.services[String(service.listen_port)] = serviceAttrs;
    return service;
  });
  const sent = (body.targets ?? []).map((t) => loopbackTarget(sim, t));
  const targets = sent.map((t, i) => {
    if (t.use_private_ip !== undefined) attrs.use_private_ip[targetKey(t)] = t.use_private_ip;
    return toSimTarget(sim, caller, t, `targets.${i}.`);
  });
  const network = body.network === undefined ? undefined : owned(sim, caller, 'networks', { n: body.network, field: 'network' });
  checkPrivateTargets(sim, network?.id ?? null, sent);
  const { load_balancer, action } = await svc.createLoadBalancer(
    sim,
    caller,
    {
      name: body.name,
      location: locationOf(body),
      algorithm: body.algorithm?.type,
      services: withHttpRedirects(services, attrs),
      targets,
      labels: body.labels,
      network_id: network?.id,
      public_interface: body.public_interface ?? true,
    },
    { dialect_attrs: { [NAME]: attrs } },
  );
  return { load_balancer: loadBalancerView(sim, getOwned(sim, caller, 'load_balancers', load_balancer.id)), action: actionView(action) };
}

export const loadBalancerRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${PREFIX}/load_balancers`,
    operation: 'hcloud.loadBalancers.list',
    summary: 'List load balancers',
    query: ListQuery,
    response: list('load_balancers', LoadBalancer),
    handle: (sim, { caller, query }) => {
      const { items, meta } = listOwned<LoadBalancerRec>(sim, caller, { coll: 'load_balancers', type: 'load_balancer', q: simListQuery(query) });
      return { load_balancers: items.map((lb) => loadBalancerView(sim, lb)), meta };
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/load_balancers`,
    operation: 'hcloud.loadBalancers.create',
    summary: 'Create a load balancer',
    body: CreateLoadBalancerBody,
    status: 201,
    response: LoadBalancerCreated,
    handle: (sim, { caller, body }) => create(sim, caller, body),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/load_balancers/:id`,
    operation: 'hcloud.loadBalancers.get',
    summary: 'Get a load balancer',
    params: NumericIdParams,
    response: one('load_balancer', LoadBalancer),
    handle: (sim, { caller, params }) => ({ load_balancer: loadBalancerView(sim, owned(sim, caller, 'load_balancers', params.id)) }),
  }),
  defineRoute({
    method: 'put',
    path: `${PREFIX}/load_balancers/:id`,
    operation: 'hcloud.loadBalancers.update',
    summary: 'Update name or labels',
    params: NumericIdParams,
    body: UpdateBody,
    response: one('load_balancer', LoadBalancer),
    handle: async (sim, { caller, params, body }) => {
      const plan = svc.planLoadBalancerUpdate(sim, caller, sid('load_balancers', params.id), { fields: body });
      await commitPlans(sim, [plan]);
      return { load_balancer: loadBalancerView(sim, plan.doc) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${PREFIX}/load_balancers/:id`,
    operation: 'hcloud.loadBalancers.delete',
    summary: 'Delete a load balancer',
    params: NumericIdParams,
    response: ActionAnswer,
    handle: async (sim, { caller, params }) => ({ action: actionView(await svc.deleteLoadBalancer(sim, caller, sid('load_balancers', params.id))) }),
  }),
];
