/**
 * DigitalOcean persona: load balancers (create, list, get, update by PUT of the whole object, delete) and
 * their forwarding rules and droplets (add, remove), over simcloud's load balancers: a new one is `new`
 * with no IP until simcloud's create action ends, then `active` on its VIP, carrying traffic.
 */
import { randomBytes } from 'node:crypto';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { REGIONS } from '../../server/resources/catalogue/data.ts';
import { getOwned, ownedRecords } from '../../server/resources/common.ts';
import * as svc from '../../server/resources/load-balancers/service.ts';
import type { LoadBalancerRec } from '../../server/store/state.ts';
import { UuidParams, ListQuery, PREFIX, ownedLb, pageOf, visible } from './common.ts';
import { attrsOf, commit, fromBody, withDroplets, withRules } from './lb-model.ts';
import { DropletsBody, LoadBalancerBody, RulesBody } from './lb-schemas.ts';
import { loadBalancerView } from './lb-view.ts';
import { LoadBalancer, NoContent, list, one } from './responses.ts';

function region(b: LoadBalancerBody, current?: LoadBalancerRec): string {
  if (b.region === undefined) {
    if (current !== undefined) return current.location;
    throw invalidField('region', 'required');
  }
  if (!REGIONS.some((r) => r.id === b.region)) throw invalidField('region', `unknown region ${b.region}; one of ${REGIONS.map((r) => r.id).join(', ')}`);
  if (current !== undefined && current.location !== b.region) throw invalidField('region', 'a load balancer cannot change region');
  return b.region;
}

async function create(sim: Sim, caller: Caller, body: LoadBalancerBody): Promise<{ load_balancer: LoadBalancer }> {
  const location = region(body);
  const { fields, attrs } = fromBody(sim, caller, body);
  const { load_balancer } = await svc.createLoadBalancer(
    sim,
    caller,
    {
      name: body.name ?? `lb-${randomBytes(4).toString('hex')}`,
      location,
      ...fields,
    },
    { dialect_attrs: { digitalocean: attrs } },
  );
  return { load_balancer: loadBalancerView(sim, getOwned(sim, caller, 'load_balancers', load_balancer.id)) };
}

async function update(sim: Sim, caller: Caller, lb: LoadBalancerRec, body: LoadBalancerBody): Promise<{ load_balancer: LoadBalancer }> {
  region(body, lb);
  const { fields, attrs } = fromBody(sim, caller, body, lb);
  const doc = await commit(sim, caller, lb, { fields: { ...fields, name: body.name ?? lb.name }, attrs });
  return { load_balancer: loadBalancerView(sim, doc) };
}

const sub = (method: 'post' | 'delete', what: 'forwarding_rules' | 'droplets'): string =>
  `digitalocean.load_balancers.${what}.${method === 'post' ? 'add' : 'remove'}`;

export const loadBalancerRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${PREFIX}/load_balancers`,
    operation: 'digitalocean.load_balancers.list',
    summary: 'List load balancers',
    query: ListQuery,
    response: list('load_balancers', LoadBalancer),
    handle: (sim, { caller, query }) => {
      const mine = ownedRecords(sim, caller, 'load_balancers').filter(visible);
      return pageOf(
        { key: 'load_balancers' },
        mine.map((lb) => loadBalancerView(sim, lb)),
        query,
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/load_balancers`,
    operation: 'digitalocean.load_balancers.create',
    summary: 'Create a load balancer',
    body: LoadBalancerBody,
    status: 202,
    response: one('load_balancer', LoadBalancer),
    handle: (sim, { caller, body }) => create(sim, caller, body),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/load_balancers/:id`,
    operation: 'digitalocean.load_balancers.get',
    summary: 'Get a load balancer',
    params: UuidParams,
    response: one('load_balancer', LoadBalancer),
    handle: (sim, { caller, params }) => ({ load_balancer: loadBalancerView(sim, ownedLb(sim, caller, params.id)) }),
  }),
  defineRoute({
    method: 'put',
    path: `${PREFIX}/load_balancers/:id`,
    operation: 'digitalocean.load_balancers.update',
    summary: 'Replace a load balancer',
    params: UuidParams,
    body: LoadBalancerBody,
    response: one('load_balancer', LoadBalancer),
    handle: (sim, { caller, params, body }) => update(sim, caller, ownedLb(sim, caller, params.id), body),
  }),
  defineRoute({
    method: 'delete',
    path: `${PREFIX}/load_balancers/:id`,
    operation: 'digitalocean.load_balancers.delete',
    summary: 'Delete a load balancer',
    params: UuidParams,
    status: 204,
    response: NoContent,
    handle: async (sim, { caller, params }) => {
      await svc.deleteLoadBalancer(sim, caller, ownedLb(sim, caller, params.id).id);
    },
  }),
  ...(['post', 'delete'] as const).flatMap((method) => [
    defineRoute({
      method,
      path: `${PREFIX}/load_balancers/:id/forwarding_rules`,
      operation: sub(method, 'forwarding_rules'),
      summary: `${method === 'post' ? 'Add' : 'Remove'} forwarding rules`,
      params: UuidParams,
      body: RulesBody,
      status: 204,
      response: NoContent,
      handle: async (sim, { caller, params, body }) => {
        const lb = ownedLb(sim, caller, params.id);
        const attrs = attrsOf(lb);
        if (method === 'post') {
          const { services, rules } = withRules(sim, caller, lb, body.forwarding_rules);
          await commit(sim, caller, lb, { fields: { services }, attrs: { ...attrs, rules } });
          return;
        }
        const gone = (port: number): boolean => body.forwarding_rules.some((r) => r.entry_port === port);
        await commit(sim, caller, lb, {
          fields: { services: lb.services.filter((s) => !gone(s.listen_port)) },
          attrs: { ...attrs, rules: attrs.rules.filter((r) => !gone(r.entry_port)) },
        });
      },
    }),
    defineRoute({
      method,
      path: `${PREFIX}/load_balancers/:id/droplets`,
      operation: sub(method, 'droplets'),
      summary: `${method === 'post' ? 'Add' : 'Remove'} droplets`,
      params: UuidParams,
      body: DropletsBody,
      status: 204,
      response: NoContent,
      handle: async (sim, { caller, params, body }) => {
        const lb = ownedLb(sim, caller, params.id);
        const targets = withDroplets(sim, caller, lb, { ids: body.droplet_ids, add: method === 'post' });
        await commit(sim, caller, lb, { fields: { targets }, attrs: attrsOf(lb) });
      },
    }),
  ]),
];
