/** Load-balancer rules: targets must exist in the project, VIP from the pool or an IP block, network attachment. */
import type {
  AttachLoadBalancerToNetworkRequest,
  CreateLoadBalancerRequest,
  LoadBalancer,
  LoadBalancerService,
  LoadBalancerSummary,
  LoadBalancerTarget,
  TargetCounters,
  UpdateLoadBalancerRequest,
} from '../../../api/schema/load-balancers.ts';
import { newIds, nowIso, type Caller, type DataplanePort, type Sim } from '../../context.ts';
import { conflict, invalidField } from '../../errors.ts';
import { IPV6_RANGES, type ActionRec, type Change, type IpBlockRec, type LoadBalancerRec } from '../../store/state.ts';
import { REGIONS, regionById, zoneById } from '../catalogue/data.ts';
import {
  commitPlans,
  ensureUnlocked,
  getOwned,
  listOwned,
  owned,
  parseSelectorParam,
  publicView,
  startAction,
  withAttrs,
  type AttrSlices,
  type ListQuery,
  type Plan,
} from '../common.ts';
import { privateAddress } from '../servers/service.ts';
import { redacted, withTls } from './tls.ts';

/** A load balancer's public fields without `resolved_targets` (the list's `resolved_targets=false`). */
export function toLoadBalancerSummary(lb: LoadBalancerRec): LoadBalancerSummary {
  const { dialect_attrs: _dialects, ...rest } = publicView(lb);
  return { ...rest, services: redacted(rest.services) };
}

export function toLoadBalancer(sim: Sim, lb: LoadBalancerRec): LoadBalancer {
  const serving = lb.status === 'active' || lb.status === 'updating';
  const resolved = sim.targets.resolve(lb).map((t) => ({
    ...t,
    health: lb.services.map((s) => ({
      listen_port: s.listen_port,
      status: serving && sim.dataplane !== null ? sim.dataplane.health(lb.id, t.id, s.listen_port) : ('unknown' as const),
    })),
  }));
  return { ...toLoadBalancerSummary(lb), resolved_targets: resolved };
}

function checkTargets(sim: Sim, caller: Caller, targets: LoadBalancerTarget[] | undefined): void {
  (targets ?? []).forEach((t, i) => {
    if (t.kind === 'server') getOwned(sim, caller, 'servers', { id: t.server_id, field: `targets.${i}.server_id` });
    else if (t.kind === 'server_group') getOwned(sim, caller, 'server_groups', { id: t.server_group_id, field: `targets.${i}.server_group_id` });
    else if (t.kind === 'label_selector') parseSelectorParam(t.label_selector, `targets.${i}.label_selector`);
  });
}

/** A service's certificate_id names a certificate of the caller's project. */
function checkCertificates(sim: Sim, caller: Caller, services: readonly LoadBalancerService[] | undefined): void {
  (services ?? []).forEach((s, i) => {
    if (s.certificate_id != null) getOwned(sim, caller, 'certificates', { id: s.certificate_id, field: `services.${i}.certificate_id` });
  });
}

function checkName(sim: Sim, caller: Caller, name: string, selfId?: string): void {
  if (owned<LoadBalancerRec>(sim, caller, 'load_balancers').some((l) => l.name === name && l.id !== selfId)) {
    throw conflict(`a load balancer named ${name} exists`, 'name');
  }
}

function location(body: CreateLoadBalancerRequest): { location: string; zone: string | null } {
  const loc = body.location ?? REGIONS[0]!.id;
  if (regionById(loc) === undefined) throw invalidField('location', `unknown location ${loc}`);
  if (body.zone === undefined) return { location: loc, zone: null };
  if (zoneById(body.zone)?.region !== loc) throw invalidField('zone', `zone ${body.zone} is not in ${loc}`);
  return { location: loc, zone: body.zone };
}

function blockFor(sim: Sim, caller: Caller, id: string | undefined): IpBlockRec | undefined {
  if (id === undefined) return undefined;
  const block = getOwned(sim, caller, 'ip_blocks', { id, field: 'ip_block_id' });
  if (block.assigned_to !== null) throw conflict(`IP block ${id} is assigned to ${block.assigned_to.kind} ${block.assigned_to.id}`, 'ip_block_id');
  return block;
}

export function poolVip(sim: Sim): string {
  const ip = sim.addresses.allocate('pub', sim.store.state.pools.lb_vip);
  if (ip === null) throw conflict('the load balancer address pool is exhausted');
  return ip;
}

/** A new load balancer's public IPv6 address (data only: nothing listens on it). */
function poolVip6(sim: Sim): string {
  const ip = sim.addresses.allocateV6('pub6', IPV6_RANGES.load_balancer, 128);
  if (ip === null) throw conflict('the load balancer IPv6 pool is exhausted');
  return ip;
}

/** The VIP, the IP block it comes from, and the network attachment of a new LB. */
function addressing(
  sim: Sim,
  caller: Caller,
  body: CreateLoadBalancerRequest,
  zone: string | null,
): Pick<LoadBalancerRec, 'public_ipv4' | 'public_ipv6' | 'ip_block_id' | 'network_id' | 'private_ipv4'> & { block: IpBlockRec | undefined } {
  const block = blockFor(sim, caller, body.ip_block_id);
  const net = body.network_id === undefined ? undefined : getOwned(sim, caller, 'networks', { id: body.network_id, field: 'network_id' });
  return {
    block,
    public_ipv4: block?.usable_addresses[0] ?? poolVip(sim),
    public_ipv6: poolVip6(sim),
    ip_block_id: block?.id ?? null,
    network_id: net?.id ?? null,
    private_ipv4: net === undefined ? null : privateAddress(sim, net, { zone: zone ?? '', ip: undefined, field: 'network_id' }),
  };
}

/** A new LB's switches, with their defaults. */
function settings(body: CreateLoadBalancerRequest): Pick<LoadBalancerRec, 'algorithm' | 'session_affinity' | 'public_interface' | 'forwarding'> {
  return {
    algorithm: body.algorithm ?? 'round_robin',
    session_affinity: body.session_affinity ?? 'none',
    public_interface: body.public_interface ?? true,
    forwarding: body.forwarding ?? 'proxy',
  };
}

/** `attrs`: a persona's own attributes, stored on the record from its first commit. */
export async function createLoadBalancer(
  sim: Sim,
  caller: Caller,
  body: CreateLoadBalancerRequest,
  attrs: Pick<LoadBalancerRec, 'dialect_attrs'> = {},
): Promise<{ load_balancer: LoadBalancer; action: ActionRec }> {
  checkName(sim, caller, body.name);
  const where = location(body);
  checkTargets(sim, caller, body.targets);
  checkCertificates(sim, caller, body.services);
  const { block, ...addresses } = addressing(sim, caller, body, where.zone);
  const { ids, change } = newIds(sim, 'lb');
  const id = ids[0]!;
  const lb: LoadBalancerRec = {
    id,
    project_id: caller.projectId,
    name: body.name,
    labels: body.labels ?? {},
    ...where,
    status: 'provisioning',
    ...settings(body),
    services: withTls(body.services ?? [], []),
    targets: body.targets ?? [],
    ...addresses,
    source_ranges: body.source_ranges ?? [],
    locked: true,
    created: nowIso(sim),
    ...attrs,
  };
  const extra: Change[] = [change];
  if (block !== undefined) extra.push({ op: 'put', coll: 'ip_blocks', doc: { ...block, status: 'assigned', assigned_to: { kind: 'load_balancer', id } } });
  const action = await startAction(sim, caller, { command: 'create_load_balancer', coll: 'load_balancers', doc: lb, extra });
  return { load_balancer: toLoadBalancer(sim, sim.store.state.load_balancers[id]!), action };
}

export function listLoadBalancers(
  sim: Sim,
  caller: Caller,
  q: ListQuery,
  { resolvedTargets = true } = {},
): { load_balancers: (LoadBalancer | LoadBalancerSummary)[]; meta: unknown } {
  const { items, meta } = listOwned<LoadBalancerRec>(sim, caller, { coll: 'load_balancers', type: 'load_balancer', q });
  return { load_balancers: items.map((lb) => (resolvedTargets ? toLoadBalancer(sim, lb) : toLoadBalancerSummary(lb))), meta };
}

export const getLoadBalancer = (sim: Sim, caller: Caller, id: string): LoadBalancer => toLoadBalancer(sim, getOwned(sim, caller, 'load_balancers', id));

/** A load balancer's new fields and the persona attribute slices set with them (one operation, one commit). */
export interface LoadBalancerUpdate {
  fields: UpdateLoadBalancerRequest;
  attrs?: AttrSlices;
}

/** updateLoadBalancer's checks and record, not yet committed (see Plan). */
export function planLoadBalancerUpdate(sim: Sim, caller: Caller, id: string, { fields, attrs = {} }: LoadBalancerUpdate): Plan<LoadBalancerRec> {
  const lb = getOwned(sim, caller, 'load_balancers', id);
  if (lb.status === 'deleting') throw conflict(`load balancer ${id} is being deleted`);
  if (fields.name !== undefined) checkName(sim, caller, fields.name, id);
  checkTargets(sim, caller, fields.targets);
  checkCertificates(sim, caller, fields.services);
  const doc: LoadBalancerRec = withAttrs({ ...lb }, attrs);
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) (doc as Record<string, unknown>)[k] = v;
  if (fields.services !== undefined) doc.services = withTls(fields.services, lb.services);
  return { doc, changes: [{ op: 'put', coll: 'load_balancers', doc }] };
}

/** Replaces each given field; allowed while provisioning, not while deleting. */
export async function updateLoadBalancer(sim: Sim, caller: Caller, id: string, body: UpdateLoadBalancerRequest): Promise<LoadBalancer> {
  const plan = planLoadBalancerUpdate(sim, caller, id, { fields: body });
  await commitPlans(sim, [plan]);
  return toLoadBalancer(sim, plan.doc);
}

/** An update and the update_load_balancer action that applies it, in one commit: the LB is locked and `updating` until it ends. */
export async function updateLoadBalancerByAction(sim: Sim, caller: Caller, id: string, update: LoadBalancerUpdate): Promise<ActionRec> {
  ensureUnlocked(getOwned(sim, caller, 'load_balancers', id), 'load balancer');
  const { doc } = planLoadBalancerUpdate(sim, caller, id, update);
  return startAction(sim, caller, { command: 'update_load_balancer', coll: 'load_balancers', doc });
}

/** The load balancers whose resolved targets include server `serverId` (a view of the server). */
export function loadBalancersTargeting(sim: Sim, serverId: string): LoadBalancerRec[] {
  return sim.store.all('load_balancers').filter((lb) => sim.targets.resolve(lb).some((t) => t.server_id === serverId));
}

export async function deleteLoadBalancer(sim: Sim, caller: Caller, id: string): Promise<ActionRec> {
  const lb = getOwned(sim, caller, 'load_balancers', id);
  if (lb.status === 'deleting') throw conflict(`load balancer ${id} is already being deleted`);
  const blocks: Change[] = sim.store
    .all('ip_blocks')
    .filter((b) => b.assigned_to?.kind === 'load_balancer' && b.assigned_to.id === id)
    .map((b) => ({ op: 'put', coll: 'ip_blocks', doc: { ...b, status: 'unassigned', assigned_to: null } }));
  return startAction(sim, caller, { command: 'delete_load_balancer', coll: 'load_balancers', doc: { ...lb, ip_block_id: null }, extra: blocks });
}

export async function attachLoadBalancer(sim: Sim, caller: Caller, id: string, body: AttachLoadBalancerToNetworkRequest): Promise<ActionRec> {
  const lb = getOwned(sim, caller, 'load_balancers', id);
  ensureUnlocked(lb, 'load balancer');
  const net = getOwned(sim, caller, 'networks', { id: body.network_id, field: 'network_id' });
  if (lb.network_id !== null) throw conflict(`load balancer ${id} is already on network ${lb.network_id}`, 'network_id');
  const ip = privateAddress(sim, net, { zone: lb.zone ?? '', ip: body.ip, field: 'ip' });
  const doc = { ...lb, network_id: net.id, private_ipv4: ip };
  const resources = [
    { id, type: 'load_balancer' as const },
    { id: net.id, type: 'network' as const },
  ];
  return startAction(sim, caller, { command: 'attach_load_balancer_to_network', coll: 'load_balancers', doc, resources });
}

export async function detachLoadBalancer(sim: Sim, caller: Caller, id: string): Promise<ActionRec> {
  const lb = getOwned(sim, caller, 'load_balancers', id);
  ensureUnlocked(lb, 'load balancer');
  if (lb.network_id === null) throw conflict(`load balancer ${id} is not on a network`);
  const doc = { ...lb, network_id: null, private_ipv4: null };
  return startAction(sim, caller, { command: 'detach_load_balancer_from_network', coll: 'load_balancers', doc });
}

export function loadBalancerMetrics(sim: Sim, caller: Caller, id: string): TargetCounters[] {
  const lb = getOwned(sim, caller, 'load_balancers', id);
  const counters: ReturnType<DataplanePort['counters']> = sim.dataplane?.counters(id) ?? new Map<string, never>();
  return sim.targets.resolve(lb).map((t) => {
    const c = counters.get(t.id) ?? { connections: 0, activeConnections: 0, bytesIn: 0, bytesOut: 0 };
    return { target_id: t.id, connections: c.connections, active_connections: c.activeConnections, bytes_in: c.bytesIn, bytes_out: c.bytesOut };
  });
}
