/**
 * Linode persona: NodeBalancers (create with configs and nodes, list with X-Filter, get, update, delete)
 * and their firewall (firewalls.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/http.ts';
import { commitPlans, findOwned, getOwned, ownedRecords } from '../../server/resources/common.ts';
import * as svc from '../../server/resources/load-balancers/service.ts';
import { NumericIdParams } from '../numeric-ids.ts';
import { ListQuery, NAME, PREFIX, owned, pageOf, sid, visible } from './common.ts';
import { firewallView } from './firewalls.ts';
import { guardedBy } from './fw-model.ts';
import { loopbackNode } from './addresses.ts';
import { networkOfSubnet } from './vpcs.ts';
import { attrsOf, emptyAttrs, newConfig, simFields, toAttrs } from './nb-model.ts';
import { CreateNodeBalancerBody, UpdateNodeBalancerBody } from './nb-schemas.ts';
import { nodeBalancerView } from './nb-view.ts';
import { Empty, Firewall, NodeBalancer, page } from './responses.ts';
import { labelsOf, regionExists } from './views.ts';

async function create(sim: Sim, caller: Caller, body: CreateNodeBalancerBody): Promise<NodeBalancer> {
  if (!regionExists(body.region)) throw invalidField('region', `unknown region ${body.region}`);
  const firewall = body.firewall_id === undefined ? undefined : owned(sim, caller, 'networking/firewalls', { n: body.firewall_id, field: 'firewall_id' });
  if (body.ipv4 !== undefined) throw invalidField('ipv4', 'reserved addresses are not emulated; the VIP comes from the pool');
  for (const [i, v] of (body.backend_vpcs ?? []).entries()) networkOfSubnet(sim, caller, v.subnet_id, `backend_vpcs.${i}.subnet_id`);
  const attrs = { ...emptyAttrs(), client_conn_throttle: body.client_conn_throttle ?? 0 };
  const configs = (body.configs ?? []).map((c) => newConfig(attrs, c, (c.nodes ?? []).map((n) => loopbackNode(sim, n))));
  const { configs: _c, ...settings } = attrs;
  const guard = guardedBy(firewall);
  const { load_balancer } = await svc.createLoadBalancer(sim, caller, {
    name: body.label ?? `nodebalancer-${randomBytes(4).toString('hex')}`, location: body.region, labels: labelsOf(body.tags ?? []), ...simFields(configs),
    ...guard.fields,
  }, { dialect_attrs: { [NAME]: { ...settings, configs: configs.map(toAttrs), ...guard.attrs } } });
  return nodeBalancerView(getOwned(sim, caller, 'load_balancers', load_balancer.id));
}

export const nodeBalancerRoutes: RouteDef[] = [
  defineRoute({
    method: 'get', path: `${PREFIX}/nodebalancers`, operation: 'linode.nodebalancers.list', summary: 'List NodeBalancers', query: ListQuery,
    queryHeaders: ['X-Filter'], response: page(NodeBalancer),
    handle: (sim, { caller, query }) => {
      const mine = ownedRecords(sim, caller, 'load_balancers').filter(visible);
      return pageOf(mine.map(nodeBalancerView), query);
    },
  }),
  defineRoute({
    method: 'post', path: `${PREFIX}/nodebalancers`, operation: 'linode.nodebalancers.create', summary: 'Create a NodeBalancer', body: CreateNodeBalancerBody, response: NodeBalancer,
    handle: (sim, { caller, body }) => create(sim, caller, body),
  }),
  defineRoute({
    method: 'get', path: `${PREFIX}/nodebalancers/:id`, operation: 'linode.nodebalancers.get', summary: 'Get a NodeBalancer', params: NumericIdParams, response: NodeBalancer,
    handle: (sim, { caller, params }) => nodeBalancerView(owned(sim, caller, 'nodebalancers', params.id)),
  }),
  defineRoute({
    method: 'put', path: `${PREFIX}/nodebalancers/:id`, operation: 'linode.nodebalancers.update', summary: 'Update label, tags or throttle',
    params: NumericIdParams, body: UpdateNodeBalancerBody, response: NodeBalancer,
    handle: async (sim, { caller, params, body }) => {
      const lb = owned(sim, caller, 'nodebalancers', params.id);
      const attrs = body.client_conn_throttle === undefined ? {} : { [NAME]: { ...attrsOf(lb), client_conn_throttle: body.client_conn_throttle } };
      const fields = { name: body.label, labels: body.tags === undefined ? undefined : labelsOf(body.tags) };
      const plan = svc.planLoadBalancerUpdate(sim, caller, lb.id, { fields, attrs });
      await commitPlans(sim, [plan]);
      return nodeBalancerView(plan.doc);
    },
  }),
  defineRoute({
    method: 'delete', path: `${PREFIX}/nodebalancers/:id`, operation: 'linode.nodebalancers.delete', summary: 'Delete a NodeBalancer', params: NumericIdParams, response: Empty,
    handle: async (sim, { caller, params }) => {
      await svc.deleteLoadBalancer(sim, caller, owned(sim, caller, 'nodebalancers', params.id).id);
      return {};
    },
  }),
  defineRoute({
    method: 'get', path: `${PREFIX}/nodebalancers/:id/firewalls`, operation: 'linode.nodebalancers.firewalls', summary: 'List its firewall',
    params: NumericIdParams, query: ListQuery, queryHeaders: ['X-Filter'], response: page(Firewall),
    handle: (sim, { caller, params, query }) => {
      const fw = attrsOf(owned(sim, caller, 'nodebalancers', params.id)).firewall_id;
      const p = fw === undefined || fw === null ? undefined : findOwned(sim, caller, 'firewall_policies', sid('networking/firewalls', fw));
      return pageOf(p === undefined ? [] : [firewallView(sim, p)], query);
    },
  }),
];
