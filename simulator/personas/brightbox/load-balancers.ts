/**
 * Brightbox persona: load balancers (list, get, create, update, destroy) and cloud IPs (list, get, create, map,
 * unmap, destroy). A load balancer is a simcloud load balancer whose status is Brightbox's async one (`creating`
 * until simcloud's create action ends); a cloud IP is a simcloud /30 IP block whose one usable address is the cloud
 * IP: mapping it to a load balancer assigns the block to it, which makes that address the load balancer's VIP
 * (the data plane then serves it there); unmapping gives the load balancer a pool VIP again.
 */
import { z } from 'zod';
import { tcpView } from '../../api/schema/load-balancers.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField } from '../../server/errors.ts';
import { PlantedFault, isPlanted } from '../../server/planted.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { REGIONS } from '../../server/resources/catalogue/data.ts';
import { commitPlans, findOwned, ownedRecords } from '../../server/resources/common.ts';
import * as ipb from '../../server/resources/ip-blocks/service.ts';
import * as lbs from '../../server/resources/load-balancers/service.ts';
import type { IpBlock } from '../../api/schema/ip-blocks.ts';
import type { IpBlockRec, LoadBalancerRec } from '../../server/store/state.ts';
import { lbAttrsOf } from './attrs.ts';
import { API, IdParams, NAME, ownedBy } from './common.ts';
import { attrsFor, balancing, certificateFor, DEFAULT_ATTRS, LbBody, lbView, servicesFor, targetsFor } from './lb-model.ts';
import { CloudIp, LoadBalancer } from './responses.ts';
import { cloudIpView, type CloudIpTarget } from './views.ts';

const lbOut = (sim: Sim, caller: Caller, lb: LoadBalancerRec): LoadBalancer =>
  lbView(lb, ownedRecords(sim, caller, 'servers'), ownedRecords(sim, caller, 'ip_blocks'));

const nodeIds = (sim: Sim, caller: Caller, nodes: LbBody['nodes']): string[] | undefined =>
  nodes?.map((n, i) => ownedBy(sim, caller, 'servers', { id: n.node, field: `nodes.${i}.node` }).id);

async function create(sim: Sim, caller: Caller, body: LbBody): Promise<LoadBalancer> {
  if (body.name === undefined) throw invalidField('name', 'a load balancer needs a name here (simcloud names every load balancer)');
  const attrs = attrsFor(body, DEFAULT_ATTRS);
  const { load_balancer: lb } = await lbs.createLoadBalancer(
    sim,
    caller,
    {
      name: body.name,
      location: REGIONS[0]!.id,
      services: servicesFor(body.listeners ?? [], attrs, certificateFor(body, [])),
      targets: targetsFor(nodeIds(sim, caller, body.nodes) ?? []),
      ...balancing(attrs.policy),
    },
    { dialect_attrs: { [NAME]: attrs } },
  );
  return lbOut(sim, caller, findOwned(sim, caller, 'load_balancers', lb.id)!);
}

/** Replaces what the request gives, in one commit; the listeners' services take the (new) health check. */
async function update(sim: Sim, caller: Caller, lb: LoadBalancerRec, body: LbBody): Promise<LoadBalancer> {
  const attrs = attrsFor(body, lbAttrsOf(lb) ?? DEFAULT_ATTRS);
  const listeners =
    body.listeners ??
    lb.services.map((s, i) => ({
      protocol: tcpView(s.protocol),
      in: s.listen_port,
      out: s.destination_port,
      ...(attrs.listeners[i]?.proxy_protocol ? { proxy_protocol: attrs.listeners[i].proxy_protocol } : {}),
    }));
  const targets = nodeIds(sim, caller, body.nodes);
  const fields = {
    ...(body.name === undefined ? {} : { name: body.name }),
    services: servicesFor(listeners, attrs, certificateFor(body, lb.services)),
    ...(targets === undefined ? {} : { targets: targetsFor(targets) }),
    ...balancing(attrs.policy),
  };
  const plan = lbs.planLoadBalancerUpdate(sim, caller, lb.id, { fields, attrs: { [NAME]: attrs } });
  await commitPlans(sim, [plan]);
  return lbOut(sim, caller, plan.doc);
}

const lbRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${API}/load_balancers`,
    operation: 'brightbox.load_balancers.list',
    summary: 'List load balancers',
    response: z.array(LoadBalancer),
    handle: (sim, { caller }) => ownedRecords(sim, caller, 'load_balancers').map((lb) => lbOut(sim, caller, lb)),
  }),
  defineRoute({
    method: 'post',
    path: `${API}/load_balancers`,
    operation: 'brightbox.load_balancers.create',
    summary: 'Create a load balancer (creating until built)',
    body: LbBody,
    response: LoadBalancer,
    status: 202,
    handle: (sim, { caller, body }) => create(sim, caller, body),
  }),
  defineRoute({
    method: 'get',
    path: `${API}/load_balancers/:id`,
    operation: 'brightbox.load_balancers.get',
    summary: 'Get a load balancer',
    params: IdParams,
    response: LoadBalancer,
    handle: (sim, { caller, params }) => lbOut(sim, caller, ownedBy(sim, caller, 'load_balancers', params.id)),
  }),
  defineRoute({
    method: 'put',
    path: `${API}/load_balancers/:id`,
    operation: 'brightbox.load_balancers.update',
    summary: 'Update a load balancer',
    params: IdParams,
    body: LbBody,
    response: LoadBalancer,
    status: 202,
    handle: (sim, { caller, params, body }) => update(sim, caller, ownedBy(sim, caller, 'load_balancers', params.id), body),
  }),
  defineRoute({
    method: 'delete',
    path: `${API}/load_balancers/:id`,
    operation: 'brightbox.load_balancers.delete',
    summary: 'Destroy a load balancer (its cloud IPs are unmapped)',
    params: IdParams,
    response: LoadBalancer,
    status: 202,
    handle: async (sim, { caller, params }) => {
      const lb = ownedBy(sim, caller, 'load_balancers', params.id);
      await lbs.deleteLoadBalancer(sim, caller, lb.id);
      return lbOut(sim, caller, findOwned(sim, caller, 'load_balancers', lb.id) ?? { ...lb, status: 'deleting' });
    },
  }),
];

/** What the block is assigned to, which the cloud IP is mapped to. */
function targetOf(sim: Sim, caller: Caller, b: IpBlockRec): CloudIpTarget {
  const to = b.assigned_to;
  if (to?.kind === 'load_balancer') return { lb: findOwned(sim, caller, 'load_balancers', to.id) };
  return to?.kind === 'server' ? { server: findOwned(sim, caller, 'servers', to.id) } : {};
}
/** A cloud IP as a write committed it (the service's answer): never read back, as a DELETE may land meanwhile. */
const cipOut = (sim: Sim, caller: Caller, committed: IpBlock): CloudIp => {
  const b: IpBlockRec = { ...committed, project_id: caller.projectId };
  return cloudIpView(b, targetOf(sim, caller, b));
};

/** Every field gobrightbox's CloudIPOptions has; port translation and route mode are not emulated. */
const CipBody = z.strictObject({
  name: z.string().max(255).optional(),
  reverse_dns: z.string().max(0, 'reverse DNS is not emulated').optional(),
  mode: z.literal('nat').optional(),
  port_translators: z.array(z.unknown()).max(0, 'port translators are not emulated').optional(),
});
const MapBody = z.strictObject({ destination: z.string().min(1).max(64) });

async function map(sim: Sim, caller: Caller, b: IpBlockRec, destination: string): Promise<IpBlock> {
  const ref = { id: destination, field: 'destination' };
  const target = destination.startsWith('lba-')
    ? { kind: 'load_balancer' as const, id: ownedBy(sim, caller, 'load_balancers', ref).id }
    : { kind: 'server' as const, id: ownedBy(sim, caller, 'servers', ref).id };
  return ipb.assignIpBlock(sim, caller, b.id, target);
}

/** The fault the fuzz suite must find (planted.ts): the unmap's answer read back after its commit. */
async function readBack(sim: Sim, caller: Caller, b: IpBlockRec): Promise<CloudIp> {
  if (b.assigned_to !== null) await ipb.unassignIpBlock(sim, caller, b.id);
  const after = findOwned(sim, caller, 'ip_blocks', b.id)!;
  return cloudIpView(after, targetOf(sim, caller, after));
}

const cipRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${API}/cloud_ips`,
    operation: 'brightbox.cloud_ips.list',
    summary: "List cloud IPs (the project's IP blocks)",
    response: z.array(CloudIp),
    handle: (sim, { caller }) => ownedRecords(sim, caller, 'ip_blocks').map((b) => cloudIpView(b, targetOf(sim, caller, b))),
  }),
  defineRoute({
    method: 'post',
    path: `${API}/cloud_ips`,
    operation: 'brightbox.cloud_ips.create',
    summary: 'Create a cloud IP (a /30 IP block)',
    body: CipBody,
    response: CloudIp,
    status: 201,
    handle: async (sim, { caller, body }) => {
      return cipOut(sim, caller, await ipb.allocateIpBlock(sim, caller, { location: REGIONS[0]!.id, size: 30, description: body.name ?? '' }));
    },
  }),
  defineRoute({
    method: 'get',
    path: `${API}/cloud_ips/:id`,
    operation: 'brightbox.cloud_ips.get',
    summary: 'Get a cloud IP',
    params: IdParams,
    response: CloudIp,
    handle: (sim, { caller, params }) => cipOut(sim, caller, ownedBy(sim, caller, 'ip_blocks', params.id)),
  }),
  defineRoute({
    method: 'post',
    path: `${API}/cloud_ips/:id/map`,
    operation: 'brightbox.cloud_ips.map',
    summary: 'Map a cloud IP to a load balancer or server',
    params: IdParams,
    body: MapBody,
    response: CloudIp,
    status: 202,
    handle: async (sim, { caller, params, body }) => {
      return cipOut(sim, caller, await map(sim, caller, ownedBy(sim, caller, 'ip_blocks', params.id), body.destination));
    },
  }),
  defineRoute({
    method: 'post',
    path: `${API}/cloud_ips/:id/unmap`,
    operation: 'brightbox.cloud_ips.unmap',
    summary: 'Unmap a cloud IP',
    params: IdParams,
    body: z.strictObject({}).optional(),
    response: CloudIp,
    status: 202,
    handle: async (sim, { caller, params }) => {
      const b = ownedBy(sim, caller, 'ip_blocks', params.id);
      if (isPlanted(PlantedFault.writeReadback)) return readBack(sim, caller, b);
      return cipOut(sim, caller, b.assigned_to === null ? b : await ipb.unassignIpBlock(sim, caller, b.id));
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${API}/cloud_ips/:id`,
    operation: 'brightbox.cloud_ips.delete',
    summary: 'Destroy a cloud IP (unmapped only)',
    params: IdParams,
    response: CloudIp,
    status: 202,
    handle: async (sim, { caller, params }) => {
      const b = ownedBy(sim, caller, 'ip_blocks', params.id);
      const out = cloudIpView(b, targetOf(sim, caller, b));
      await ipb.releaseIpBlock(sim, caller, b.id);
      return out;
    },
  }),
];

export const lbAndCloudIpRoutes: RouteDef[] = [...lbRoutes, ...cipRoutes];
