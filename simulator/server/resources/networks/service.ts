/** Network rules: ranges and subnets, route validation (gateway in range, no overlaps), attachments. */
import type { CreateNetworkRequest, CreateRouteRequest, Network, Route, UpdateNetworkRequest } from '../../../api/schema/networks.ts';
import { newIds, nowIso, type Caller, type Sim } from '../../context.ts';
import { SimcloudError, conflict, invalidField, notFound } from '../../errors.ts';
import { contains, formatCidr, hasHostBits, intToIp, overlaps, parseCidr, rangeContains, type Range } from '../../../../lib/ip.ts';
import { firstFreeRange } from '../../ipam.ts';
import type { ActionRec, NetworkRec } from '../../store/state.ts';
import { zoneById } from '../catalogue/data.ts';
import { getOwned, listOwned, owned, publicView, startAction, startActions, type ListQuery } from '../common.ts';

export function toNetwork(sim: Sim, n: NetworkRec): Network {
  const servers = sim.store
    .all('servers')
    .filter((s) => s.private_networks.some((p) => p.network_id === n.id))
    .map((s) => s.id);
  const lbs = sim.store
    .all('load_balancers')
    .filter((lb) => lb.network_id === n.id)
    .map((lb) => lb.id);
  return { ...publicView(n), servers, load_balancers: lbs };
}

function checkCidr(cidr: string, field: string): void {
  if (hasHostBits(cidr)) throw invalidField(field, `${cidr} has host bits set; use ${formatCidr(parseCidr(cidr))}`);
}

function defaultRange(sim: Sim): string {
  const taken = sim.store.all('networks').map((n) => parseCidr(n.ip_range));
  const r = firstFreeRange(sim.store.state.pools.private_networks, 24, taken);
  if (r === null) throw conflict('the private network pool is exhausted', 'ip_range');
  return formatCidr(r);
}

function buildSubnets(ipRange: string, input: CreateNetworkRequest['subnets']): NetworkRec['subnets'] {
  const outer = parseCidr(ipRange);
  const subnets = (input ?? []).map((s, i) => {
    checkCidr(s.ip_range, `subnets.${i}.ip_range`);
    if (zoneById(s.zone) === undefined) throw invalidField(`subnets.${i}.zone`, `unknown zone ${s.zone}`);
    const r = parseCidr(s.ip_range);
    if (!rangeContains(outer, r)) throw invalidField(`subnets.${i}.ip_range`, `${s.ip_range} is outside ${ipRange}`);
    return { zone: s.zone, ip_range: s.ip_range, gateway: intToIp(r.base + 1) };
  });
  subnets.forEach((a, i) =>
    subnets.slice(i + 1).forEach((b) => {
      if (overlaps(parseCidr(a.ip_range), parseCidr(b.ip_range))) throw conflict(`subnet ${b.ip_range} overlaps ${a.ip_range}`, 'subnets');
    }),
  );
  return subnets;
}

function checkName(sim: Sim, caller: Caller, name: string, selfId?: string): void {
  if (owned<NetworkRec>(sim, caller, 'networks').some((n) => n.name === name && n.id !== selfId)) throw conflict(`a network named ${name} exists`, 'name');
}

/**
 * `routes`: created with the network in the same commit (a persona's create carries them), each with the
 * add_route action createRoute gives it.
 */
export async function createNetwork(sim: Sim, caller: Caller, body: CreateNetworkRequest, routes: readonly CreateRouteRequest[] = []): Promise<Network> {
  checkName(sim, caller, body.name);
  if (body.ip_range !== undefined) checkCidr(body.ip_range, 'ip_range');
  const ipRange = body.ip_range ?? defaultRange(sim);
  const subnets = buildSubnets(ipRange, body.subnets);
  const { ids, change } = newIds(sim, 'net', ...routes.map(() => 'rte'));
  const net: NetworkRec = {
    id: ids[0]!,
    project_id: caller.projectId,
    name: body.name,
    ip_range: ipRange,
    subnets,
    routes: [],
    labels: body.labels ?? {},
    created: nowIso(sim),
  };
  const doc = withRoutes(sim, net, { routes, ids: ids.slice(1) });
  if (routes.length === 0) await sim.store.commit([change, { op: 'put', coll: 'networks', doc }]);
  else await startActions(sim, caller, { commands: routes.map(() => 'add_route'), coll: 'networks', doc, extra: [change] });
  return toNetwork(sim, doc);
}

export function listNetworks(sim: Sim, caller: Caller, q: ListQuery): { networks: Network[]; meta: unknown } {
  const { items, meta } = listOwned<NetworkRec>(sim, caller, { coll: 'networks', type: 'network', q });
  return { networks: items.map((n) => toNetwork(sim, n)), meta };
}

export const getNetwork = (sim: Sim, caller: Caller, id: string): Network => toNetwork(sim, getOwned(sim, caller, 'networks', id));

export async function updateNetwork(sim: Sim, caller: Caller, id: string, body: UpdateNetworkRequest): Promise<Network> {
  const net = getOwned(sim, caller, 'networks', id);
  if (body.name !== undefined) checkName(sim, caller, body.name, id);
  const doc = { ...net, ...(body.name === undefined ? {} : { name: body.name }), ...(body.labels === undefined ? {} : { labels: body.labels }) };
  await sim.store.commit([{ op: 'put', coll: 'networks', doc }]);
  return toNetwork(sim, doc);
}

export async function deleteNetwork(sim: Sim, caller: Caller, id: string): Promise<void> {
  const net = toNetwork(sim, getOwned(sim, caller, 'networks', id));
  if (net.servers.length > 0 || net.load_balancers.length > 0) throw conflict(`network ${id} still has attached servers or load balancers`);
  const blocks = sim.store.all('ip_blocks').filter((b) => b.assigned_to?.kind === 'network' && b.assigned_to.id === id);
  await sim.store.commit([
    ...blocks.map((b) => ({ op: 'put' as const, coll: 'ip_blocks' as const, doc: { ...b, assigned_to: null, status: 'unassigned' } })),
    { op: 'del', coll: 'networks', id },
  ]);
}

export function listRoutes(sim: Sim, caller: Caller, id: string): Route[] {
  return getOwned(sim, caller, 'networks', id).routes;
}

function checkRoute(net: NetworkRec, body: CreateRouteRequest): void {
  checkCidr(body.destination, 'destination');
  if (!contains(parseCidr(net.ip_range), body.gateway)) throw invalidField('gateway', `gateway ${body.gateway} is outside network ${net.ip_range}`);
  const dest = parseCidr(body.destination);
  for (const r of net.routes) {
    if (r.destination === body.destination) throw conflict(`a route to ${body.destination} exists`, 'destination');
    if (overlaps(destinationOf(r), dest)) throw conflict(`destination ${body.destination} overlaps route ${r.destination}`, 'destination');
  }
}

/** Each stored route's destination, parsed once: a route is never changed in place, and a new route is checked against all the others. */
const destinations = new WeakMap<Route, Range>();
function destinationOf(route: Route): Range {
  let range = destinations.get(route);
  if (range === undefined) {
    range = parseCidr(route.destination);
    destinations.set(route, range);
  }
  return range;
}

/** Routes to add, their ids (allocated by the caller), and how errors name route i (else as createRoute does). */
interface NewRoutes {
  routes: readonly CreateRouteRequest[];
  ids: readonly string[];
  field?: (i: number) => string;
}

/** `net` with the routes added in turn, each checked against the ones before it. */
function withRoutes(sim: Sim, net: NetworkRec, { routes, ids, field }: NewRoutes): NetworkRec {
  let doc = net;
  routes.forEach((body, i) => {
    try {
      checkRoute(doc, body);
    } catch (err) {
      if (field !== undefined && err instanceof SimcloudError) throw invalidField(field(i), err.message);
      throw err;
    }
    const route: Route = { id: ids[i]!, name: body.name ?? null, destination: body.destination, gateway: body.gateway, created: nowIso(sim) };
    doc = { ...doc, routes: [...doc.routes, route] };
  });
  return doc;
}

export async function createRoute(sim: Sim, caller: Caller, id: string, body: CreateRouteRequest): Promise<{ route: Route; action: ActionRec }> {
  const net = getOwned(sim, caller, 'networks', id);
  const { ids, change } = newIds(sim, 'rte');
  const doc = withRoutes(sim, net, { routes: [body], ids });
  const action = await startAction(sim, caller, { command: 'add_route', coll: 'networks', doc, extra: [change] });
  return { route: doc.routes.at(-1)!, action };
}

/**
 * Routes deleted (by id) and added in one commit, each with the action deleteRoute or createRoute gives it, so
 * a persona call that sets several routes is applied whole or not at all. `field(i)` names added route i in
 * errors (as invalid input).
 */
export async function changeRoutes(
  sim: Sim,
  caller: Caller,
  id: string,
  change: { remove: readonly string[]; add: readonly CreateRouteRequest[]; field?: (i: number) => string },
): Promise<ActionRec[]> {
  const net = getOwned(sim, caller, 'networks', id);
  for (const routeId of change.remove) if (!net.routes.some((r) => r.id === routeId)) throw notFound('route', routeId);
  const { ids, change: idChange } = newIds(sim, ...change.add.map(() => 'rte'));
  const kept = { ...net, routes: net.routes.filter((r) => !change.remove.includes(r.id)) };
  const doc = withRoutes(sim, kept, { routes: change.add, ids, field: change.field });
  const commands = [...change.remove.map(() => 'delete_route' as const), ...change.add.map(() => 'add_route' as const)];
  if (commands.length === 0) return [];
  return startActions(sim, caller, { commands, coll: 'networks', doc, extra: change.add.length === 0 ? [] : [idChange] });
}

export async function deleteRoute(sim: Sim, caller: Caller, id: string, routeId: string): Promise<ActionRec> {
  const net = getOwned(sim, caller, 'networks', id);
  if (!net.routes.some((r) => r.id === routeId)) throw notFound('route', routeId);
  const doc = { ...net, routes: net.routes.filter((r) => r.id !== routeId) };
  return startAction(sim, caller, { command: 'delete_route', coll: 'networks', doc });
}
