/**
 * Linode persona: NodeBalancers (create with configs and nodes, list with X-Filter, get, update, delete)
 * and their firewall (firewalls.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField, invalidInput, notFound } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { commitPlans, findOwned, getOwned, ownedRecords } from '../../server/resources/common.ts';
import { blockOfAddress } from '../../server/resources/ip-blocks/service.ts';
import * as svc from '../../server/resources/load-balancers/service.ts';
import { isIPv4 } from '../../../lib/ip.ts';
import type { LoadBalancerRec } from '../../server/store/state.ts';
import { NumericIdParams, NumericPathId, numericIdOf } from '../numeric-ids.ts';
import { ListQuery, NAME, PREFIX, owned, pageOf, sid, visible } from './common.ts';
import { firewallView } from './firewalls.ts';
import { guardedBy } from './fw-model.ts';
import { loopbackNode, presentedOf } from './addresses.ts';
import { networkOfSubnet } from './vpcs.ts';
import { attrsOf, emptyAttrs, newConfig, simFields, toAttrs } from './nb-model.ts';
import { CreateNodeBalancerBody, UpdateNodeBalancerBody } from './nb-schemas.ts';
import { nodeBalancerView } from './nb-view.ts';
import { Empty, Firewall, NodeBalancer, NodeBalancerVPCConfig, page } from './responses.ts';
import { labelsOf, regionExists } from './views.ts';

/**
 * The reserved address a NodeBalancer is created on (`ipv4`): the caller's, unassigned, in its region. Linode
 * refuses a malformed address and one that is not reserved naming no field, and its CCM's e2e suite matches
 * those reasons exactly.
 */
function reservedBlock(sim: Sim, caller: Caller, ipv4: string | undefined, region: string): string | undefined {
  if (ipv4 === undefined) return undefined;
  if (!isIPv4(ipv4)) throw invalidInput('Invalid IPv4 address');
  const block = blockOfAddress(sim, caller, ipv4);
  if (block === undefined) throw invalidInput('IPv4 address is not reserved');
  if (block.location !== region) throw invalidField('ipv4', `reserved address ${ipv4} is in ${block.location}, not ${region}`);
  if (block.assigned_to !== null) throw invalidField('ipv4', `reserved address ${ipv4} is already assigned`);
  return block.id;
}

/** The backend VPC subnet (`backend_vpcs`, or `vpcs` as /v4beta also takes it) and its network. */
function backendVpc(sim: Sim, caller: Caller, body: CreateNodeBalancerBody): { subnet_id: number; network_id: string } | undefined {
  const [key, list] = body.backend_vpcs !== undefined ? ['backend_vpcs', body.backend_vpcs] : ['vpcs', body.vpcs ?? []];
  const v = list[0];
  return v === undefined ? undefined : { subnet_id: v.subnet_id, network_id: networkOfSubnet(sim, caller, v.subnet_id, `${key}.0.subnet_id`).id };
}

/** Where a new NodeBalancer's addresses come from: its reserved VIP and its backend VPC subnet, as simcloud fields and attributes. */
function placement(
  sim: Sim,
  caller: Caller,
  body: CreateNodeBalancerBody,
): { fields: { ip_block_id?: string; network_id?: string }; attrs: { backend_subnet_id?: number } } {
  const ipBlock = reservedBlock(sim, caller, body.ipv4, body.region);
  const vpc = backendVpc(sim, caller, body);
  return {
    fields: { ...(ipBlock === undefined ? {} : { ip_block_id: ipBlock }), ...(vpc === undefined ? {} : { network_id: vpc.network_id }) },
    attrs: vpc === undefined ? {} : { backend_subnet_id: vpc.subnet_id },
  };
}

async function create(sim: Sim, caller: Caller, body: CreateNodeBalancerBody): Promise<NodeBalancer> {
  if (!regionExists(body.region)) throw invalidField('region', `unknown region ${body.region}`);
  const firewall = body.firewall_id === undefined ? undefined : owned(sim, caller, 'networking/firewalls', { n: body.firewall_id, field: 'firewall_id' });
  const place = placement(sim, caller, body);
  const attrs = { ...emptyAttrs(), client_conn_throttle: body.client_conn_throttle ?? 0, type: body.type ?? 'common', ...place.attrs };
  const configs = (body.configs ?? []).map((c) =>
    newConfig(
      attrs,
      c,
      (c.nodes ?? []).map((n) => loopbackNode(sim, n)),
    ),
  );
  const { configs: _c, ...settings } = attrs;
  const guard = guardedBy(firewall);
  const { load_balancer } = await svc.createLoadBalancer(
    sim,
    caller,
    {
      name: body.label ?? `nodebalancer-${randomBytes(4).toString('hex')}`,
      location: body.region,
      labels: labelsOf(body.tags ?? []),
      ...simFields(configs),
      ...guard.fields,
      ...place.fields,
    },
    { dialect_attrs: { [NAME]: { ...settings, configs: configs.map(toAttrs), ...guard.attrs } } },
  );
  return nodeBalancerView(getOwned(sim, caller, 'load_balancers', load_balancer.id));
}

/** Its backend VPC config, if it was created with one: the subnet, and its address on that network as a /32. */
function vpcConfigs(sim: Sim, lb: LoadBalancerRec): NodeBalancerVPCConfig[] {
  const subnet = attrsOf(lb).backend_subnet_id;
  if (subnet === undefined || lb.network_id === null || lb.private_ipv4 === null) return [];
  return [
    {
      id: subnet,
      ipv4_range: `${presentedOf(sim).ip(lb.private_ipv4, 'vpc')}/32`,
      ipv6_range: null,
      nodebalancer_id: numericIdOf(lb.id),
      subnet_id: subnet,
      vpc_id: numericIdOf(lb.network_id),
      purpose: 'backend',
    },
  ];
}

export const nodeBalancerRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${PREFIX}/nodebalancers`,
    operation: 'linode.nodebalancers.list',
    summary: 'List NodeBalancers',
    query: ListQuery,
    queryHeaders: ['X-Filter'],
    response: page(NodeBalancer),
    handle: (sim, { caller, query }) => {
      const mine = ownedRecords(sim, caller, 'load_balancers').filter(visible);
      return pageOf(mine.map(nodeBalancerView), query);
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/nodebalancers`,
    operation: 'linode.nodebalancers.create',
    summary: 'Create a NodeBalancer',
    body: CreateNodeBalancerBody,
    response: NodeBalancer,
    handle: (sim, { caller, body }) => create(sim, caller, body),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/nodebalancers/:id`,
    operation: 'linode.nodebalancers.get',
    summary: 'Get a NodeBalancer',
    params: NumericIdParams,
    response: NodeBalancer,
    handle: (sim, { caller, params }) => nodeBalancerView(owned(sim, caller, 'nodebalancers', params.id)),
  }),
  defineRoute({
    method: 'put',
    path: `${PREFIX}/nodebalancers/:id`,
    operation: 'linode.nodebalancers.update',
    summary: 'Update label, tags or throttle',
    params: NumericIdParams,
    body: UpdateNodeBalancerBody,
    response: NodeBalancer,
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
    method: 'delete',
    path: `${PREFIX}/nodebalancers/:id`,
    operation: 'linode.nodebalancers.delete',
    summary: 'Delete a NodeBalancer',
    params: NumericIdParams,
    response: Empty,
    handle: async (sim, { caller, params }) => {
      await svc.deleteLoadBalancer(sim, caller, owned(sim, caller, 'nodebalancers', params.id).id);
      return {};
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/nodebalancers/:id/vpcs`,
    operation: 'linode.nodebalancers.vpcs',
    summary: 'List its VPC configs',
    params: NumericIdParams,
    query: ListQuery,
    queryHeaders: ['X-Filter'],
    response: page(NodeBalancerVPCConfig),
    handle: (sim, { caller, params, query }) => pageOf(vpcConfigs(sim, owned(sim, caller, 'nodebalancers', params.id)), query),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/nodebalancers/:id/vpcs/:configId`,
    operation: 'linode.nodebalancers.vpc',
    summary: 'Get one of its VPC configs',
    params: NumericIdParams.extend({ configId: NumericPathId }),
    response: NodeBalancerVPCConfig,
    handle: (sim, { caller, params }) => {
      const found = vpcConfigs(sim, owned(sim, caller, 'nodebalancers', params.id)).find((c) => c.id === params.configId);
      if (found === undefined) throw notFound('nodebalancer vpc config', String(params.configId));
      return found;
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/nodebalancers/:id/firewalls`,
    operation: 'linode.nodebalancers.firewalls',
    summary: 'List its firewall',
    params: NumericIdParams,
    query: ListQuery,
    queryHeaders: ['X-Filter'],
    response: page(Firewall),
    handle: (sim, { caller, params, query }) => {
      const fw = attrsOf(owned(sim, caller, 'nodebalancers', params.id)).firewall_id;
      const p = fw === undefined || fw === null ? undefined : findOwned(sim, caller, 'firewall_policies', sid('networking/firewalls', fw));
      return pageOf(p === undefined ? [] : [firewallView(sim, p)], query);
    },
  }),
];
