/**
 * IP-block rules (phoenixNAP style): blocks are carved from the IP-block pool (unique across
 * projects: they are real loopback addresses), tagged, assigned to one LB (its VIP becomes the first
 * usable address), one network or one server (routed to it: data only), and released only when unassigned.
 * A block of one address (/32: Linode's reserved IPv4) is that address, usable and its own gateway; it can also
 * be taken over from a load balancer's pool VIP (`reserveAddress`), which it then keeps when the LB goes.
 */
import type { AllocateIpBlockRequest, AssignmentKind, IpBlock, IpBlockListParams, UpdateIpBlockRequest } from '../../../api/schema/ip-blocks.ts';
import { newIds, nowIso, type Caller, type Sim } from '../../context.ts';
import { conflict } from '../../errors.ts';
import { own } from '../../../../lib/keyed.ts';
import { formatCidr, intToIp, parseCidr, rangeSize } from '../../../../lib/ip.ts';
import type { Change, IpBlockRec } from '../../store/state.ts';
import { regionById } from '../catalogue/data.ts';
import { getOwned, owned, paginate, publicView } from '../common.ts';
import { invalidField } from '../../errors.ts';
import { poolVip } from '../load-balancers/service.ts';

export const toIpBlock = (b: IpBlockRec): IpBlock => publicView(b);

function addresses(cidr: string): { gateway: string; usable: string[] } {
  const r = parseCidr(cidr);
  if (r.prefix === 32) return { gateway: intToIp(r.base), usable: [intToIp(r.base)] };
  const size = rangeSize(r);
  const hosts = Array.from({ length: Math.max(0, size - 2) }, (_, i) => intToIp(r.base + 1 + i));
  return { gateway: hosts[0] ?? intToIp(r.base), usable: hosts.slice(1) };
}

/** A new block record on `cidr` in a known location (not committed), assigned to `assigned_to` when given. */
function newBlock(
  sim: Sim,
  caller: Caller,
  { cidr, body, assigned_to = null }: { cidr: string; body: Omit<AllocateIpBlockRequest, 'size'>; assigned_to?: IpBlockRec['assigned_to'] },
): { doc: IpBlockRec; change: Change } {
  const { gateway, usable } = addresses(cidr);
  const { ids, change } = newIds(sim, 'ipb');
  const doc: IpBlockRec = {
    id: ids[0]!,
    project_id: caller.projectId,
    cidr,
    size: parseCidr(cidr).prefix,
    location: body.location,
    description: body.description ?? '',
    tags: body.tags ?? {},
    status: assigned_to === null ? 'unassigned' : 'assigned',
    gateway,
    usable_addresses: usable,
    assigned_to,
    created: nowIso(sim),
  };
  return { doc, change };
}

/** `size` 32 (one address) is open to personas only; /v1's request schema keeps phoenixNAP's 24..30. */
export async function allocateIpBlock(sim: Sim, caller: Caller, body: Omit<AllocateIpBlockRequest, 'size'> & { size?: number }): Promise<IpBlock> {
  if (regionById(body.location) === undefined) throw invalidField('location', `unknown location ${body.location}`);
  const size = body.size ?? sim.store.state.pools.ip_block_size;
  const taken = sim.store.all('ip_blocks').map((b) => parseCidr(b.cidr));
  const range = sim.addresses.allocateRange(sim.store.state.pools.ip_block, size, taken);
  if (range === null) throw conflict(`no free /${size} block left in the IP block pool`, 'size');
  const { doc, change } = newBlock(sim, caller, { cidr: formatCidr(range), body });
  await sim.store.commit([change, { op: 'put', coll: 'ip_blocks', doc }]);
  return toIpBlock(doc);
}

/** The caller's block of exactly one address `ip`, if any. */
export const blockOfAddress = (sim: Sim, caller: Caller, ip: string): IpBlockRec | undefined =>
  owned<IpBlockRec>(sim, caller, 'ip_blocks').find((b) => b.cidr === `${ip}/32`);

/**
 * Reserves the pool VIP of the caller's load balancer `lbId` as a block of one address assigned to it: the LB
 * keeps serving on it, and when the LB is deleted the address stays the caller's instead of going back to the pool.
 */
export async function reserveAddress(sim: Sim, caller: Caller, lbId: string, body: Omit<AllocateIpBlockRequest, 'size' | 'location'>): Promise<IpBlock> {
  const lb = getOwned(sim, caller, 'load_balancers', lbId);
  if (lb.ip_block_id !== null) throw conflict(`load balancer ${lbId} already uses IP block ${lb.ip_block_id}`, 'address');
  if (lb.status === 'deleting') throw conflict(`load balancer ${lbId} is being deleted`, 'address');
  const { doc, change } = newBlock(sim, caller, {
    cidr: `${lb.public_ipv4}/32`,
    body: { ...body, location: lb.location },
    assigned_to: { kind: 'load_balancer', id: lb.id },
  });
  await sim.store.commit([change, { op: 'put', coll: 'ip_blocks', doc }, { op: 'put', coll: 'load_balancers', doc: { ...lb, ip_block_id: doc.id } }]);
  return toIpBlock(doc);
}

/**
 * Gives up a block of one address without taking it from its load balancer, which keeps serving on it as a pool
 * VIP (Linode's unreserve of an assigned address); unassigned, the block is released.
 */
export async function unreserveAddress(sim: Sim, caller: Caller, id: string): Promise<void> {
  const block = getOwned(sim, caller, 'ip_blocks', id);
  if (block.size !== 32) throw conflict(`IP block ${id} is a /${block.size}; only a block of one address stays with its load balancer`);
  const lb = block.assigned_to?.kind === 'load_balancer' ? sim.store.state.load_balancers[block.assigned_to.id] : undefined;
  const changes: Change[] = lb === undefined ? [] : [{ op: 'put', coll: 'load_balancers', doc: { ...lb, ip_block_id: null } }];
  if (block.assigned_to !== null && lb === undefined)
    throw conflict(`IP block ${id} is assigned to ${block.assigned_to.kind} ${block.assigned_to.id}; unassign it first`);
  await sim.store.commit([...changes, { op: 'del', coll: 'ip_blocks', id }]);
}

function tagFilter(tags: string | undefined): (b: IpBlockRec) => boolean {
  if (tags === undefined) return () => true;
  const pairs = tags.split(',').map((p) => p.split('=') as [string, string]);
  return (b) => pairs.every(([k, v]) => own(b.tags, k) === v);
}

export function listIpBlocks(sim: Sim, caller: Caller, q: IpBlockListParams): { ip_blocks: IpBlock[]; meta: unknown } {
  const byTags = tagFilter(q.tags);
  const hideMs = sim.faults.hiddenForMs('ip_block');
  const cutoff = sim.clock.now() - hideMs;
  let all = owned<IpBlockRec>(sim, caller, 'ip_blocks').filter(
    (b) => (q.location === undefined || b.location === q.location) && byTags(b) && (hideMs === 0 || Date.parse(b.created) <= cutoff),
  );
  if (q.sort !== undefined && q.sort.endsWith(':desc')) all = all.reverse();
  const { items, meta } = paginate(all, q);
  return { ip_blocks: items.map(toIpBlock), meta };
}

export const getIpBlock = (sim: Sim, caller: Caller, id: string): IpBlock => toIpBlock(getOwned(sim, caller, 'ip_blocks', id));

export async function updateIpBlock(sim: Sim, caller: Caller, id: string, body: UpdateIpBlockRequest): Promise<IpBlock> {
  const b = getOwned(sim, caller, 'ip_blocks', id);
  const doc = { ...b, ...(body.tags === undefined ? {} : { tags: body.tags }), ...(body.description === undefined ? {} : { description: body.description }) };
  await sim.store.commit([{ op: 'put', coll: 'ip_blocks', doc }]);
  return toIpBlock(doc);
}

function assignLb(sim: Sim, caller: Caller, block: IpBlockRec, lbId: string): Change[] {
  const lb = getOwned(sim, caller, 'load_balancers', { id: lbId, field: 'id' });
  if (lb.ip_block_id !== null) throw conflict(`load balancer ${lbId} already uses IP block ${lb.ip_block_id}`, 'id');
  if (lb.status === 'deleting') throw conflict(`load balancer ${lbId} is being deleted`, 'id');
  return [{ op: 'put', coll: 'load_balancers', doc: { ...lb, ip_block_id: block.id, public_ipv4: block.usable_addresses[0]! } }];
}

export async function assignIpBlock(sim: Sim, caller: Caller, id: string, target: { kind: AssignmentKind; id: string }): Promise<IpBlock> {
  const block = getOwned(sim, caller, 'ip_blocks', id);
  if (block.assigned_to !== null) throw conflict(`IP block ${id} is assigned to ${block.assigned_to.kind} ${block.assigned_to.id}`);
  const extra =
    target.kind === 'load_balancer'
      ? assignLb(sim, caller, block, target.id)
      : (getOwned(sim, caller, target.kind === 'server' ? 'servers' : 'networks', { id: target.id, field: 'id' }), []);
  const doc = { ...block, status: 'assigned' as const, assigned_to: target };
  await sim.store.commit([...extra, { op: 'put', coll: 'ip_blocks', doc }]);
  return toIpBlock(doc);
}

export async function unassignIpBlock(sim: Sim, caller: Caller, id: string): Promise<IpBlock> {
  const block = getOwned(sim, caller, 'ip_blocks', id);
  if (block.assigned_to === null) throw conflict(`IP block ${id} is not assigned`);
  const changes: Change[] = [];
  const lb = block.assigned_to.kind === 'load_balancer' ? sim.store.state.load_balancers[block.assigned_to.id] : undefined;
  // The LB keeps working on a fresh pool VIP.
  if (lb !== undefined) changes.push({ op: 'put', coll: 'load_balancers', doc: { ...lb, ip_block_id: null, public_ipv4: poolVip(sim) } });
  const doc = { ...block, status: 'unassigned' as const, assigned_to: null };
  await sim.store.commit([...changes, { op: 'put', coll: 'ip_blocks', doc }]);
  return toIpBlock(doc);
}

export async function releaseIpBlock(sim: Sim, caller: Caller, id: string): Promise<void> {
  const block = getOwned(sim, caller, 'ip_blocks', id);
  if (block.assigned_to !== null) throw conflict(`IP block ${id} is assigned to ${block.assigned_to.kind} ${block.assigned_to.id}; unassign it first`);
  await sim.store.commit([{ op: 'del', coll: 'ip_blocks', id }]);
}
