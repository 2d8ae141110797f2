/** Server rules: names unique per project, catalogue checks, address allocation, power lifecycle. */
import type { ActionCommand } from '../../../api/schema/actions.ts';
import type { CreateServerRequest, Server, ServerActionName, UpdateServerRequest } from '../../../api/schema/servers.ts';
import { newIds, nowIso, type Caller, type Sim } from '../../context.ts';
import { conflict, invalidField } from '../../errors.ts';
import { contains, parseCidr } from '../../../../lib/ip.ts';
import { IPV6_RANGES, SERVER_IPV6_PREFIX, type ActionRec, type Change, type NetworkRec, type ServerRec } from '../../store/state.ts';
import { IMAGES, SERVER_TYPES, zoneById } from '../catalogue/data.ts';
import { ensureUnlocked, getOwned, listOwned, publicView, startAction, withAttrs, type AttrSlices, type ListQuery } from '../common.ts';

/** The /v1 view: without the owner and the persona attributes. */
export function toServer(s: ServerRec): Server {
  const { dialect_attrs: _attrs, ...rest } = publicView(s);
  return rest;
}

function checkName(sim: Sim, caller: Caller, name: string, selfId?: string): void {
  for (const s of sim.store.all('servers')) {
    if (s.project_id === caller.projectId && s.name === name && s.id !== selfId) throw conflict(`a server named ${name} exists`, 'name');
  }
}

function checkCatalogue(body: CreateServerRequest): string {
  if (!SERVER_TYPES.some((t) => t.id === body.server_type)) throw invalidField('server_type', `unknown server type ${body.server_type}`);
  if (!IMAGES.some((i) => i.id === body.image)) throw invalidField('image', `unknown image ${body.image}`);
  const zone = zoneById(body.zone);
  if (zone === undefined) throw invalidField('zone', `unknown zone ${body.zone}`);
  return zone.region;
}

function publicAddress(sim: Sim, body: CreateServerRequest): string | null {
  if (body.public_net === false) {
    if (body.public_ipv4 !== undefined) throw invalidField('public_ipv4', 'not allowed with public_net false');
    return null;
  }
  if (body.public_ipv4 !== undefined) {
    if (sim.addresses.owner('pub', body.public_ipv4) !== undefined) throw conflict(`address ${body.public_ipv4} is in use`, 'public_ipv4');
    return body.public_ipv4;
  }
  const ip = sim.addresses.allocate('pub', sim.store.state.pools.server_public);
  if (ip === null) throw conflict('the public address pool is exhausted', 'public_ipv4');
  return ip;
}

/** A public IPv6 /64 (its `::1`) unless the server has none: `ipv6` false, or not given with `public_net` false. */
function publicAddress6(sim: Sim, body: CreateServerRequest): string | null {
  if (!(body.ipv6 ?? body.public_net !== false)) return null;
  const ip = sim.addresses.allocateV6('pub6', IPV6_RANGES.server, SERVER_IPV6_PREFIX);
  if (ip === null) throw conflict('the public IPv6 pool is exhausted', 'ipv6');
  return ip;
}

/** The subnet range for `zone` in the network, or the network's whole range. */
export function networkRangeFor(net: NetworkRec, zone: string): string {
  return net.subnets.find((s) => s.zone === zone)?.ip_range ?? net.ip_range;
}

/** Picks (or checks) a server's address on a network; `field` names the input in errors. */
export function privateAddress(sim: Sim, net: NetworkRec, want: { zone: string; ip: string | undefined; field: string }): string {
  const { zone, ip: wanted, field } = want;
  const range = networkRangeFor(net, zone);
  if (wanted !== undefined) {
    if (!contains(parseCidr(net.ip_range), wanted)) throw invalidField(field, `${wanted} is outside network ${net.id} (${net.ip_range})`);
    if (sim.addresses.owner(`net:${net.id}`, wanted) !== undefined) throw conflict(`address ${wanted} is in use on network ${net.id}`, field);
    return wanted;
  }
  const ip = sim.addresses.allocate(`net:${net.id}`, range, true);
  if (ip === null) throw conflict(`network ${net.id} has no free address`, field);
  return ip;
}

function privateNets(sim: Sim, caller: Caller, body: CreateServerRequest): ServerRec['private_networks'] {
  const ids = body.networks ?? [];
  if (new Set(ids).size !== ids.length) throw invalidField('networks', 'duplicate network id');
  return ids.map((id, i) => {
    const net = getOwned(sim, caller, 'networks', { id, field: `networks.${i}` });
    const wanted = i === 0 ? body.private_ipv4 : undefined;
    return {
      network_id: id,
      ip: privateAddress(sim, net, { zone: body.zone, ip: wanted, field: i === 0 && wanted !== undefined ? 'private_ipv4' : `networks.${i}` }),
    };
  });
}

function standalonePrivate(sim: Sim, caller: Caller, body: CreateServerRequest): string | null {
  if (body.private_ipv4 === undefined || (body.networks ?? []).length > 0) return null;
  if (sim.addresses.owner(`prj:${caller.projectId}`, body.private_ipv4) !== undefined) throw conflict(`address ${body.private_ipv4} is in use`, 'private_ipv4');
  return body.private_ipv4;
}

export async function createServer(sim: Sim, caller: Caller, body: CreateServerRequest): Promise<{ server: Server; action: ActionRec }> {
  checkName(sim, caller, body.name);
  const region = checkCatalogue(body);
  const nets = privateNets(sim, caller, body);
  const standalone = standalonePrivate(sim, caller, body);
  const publicIp = publicAddress(sim, body);
  const { ids, change } = newIds(sim, 'srv');
  const server: ServerRec = {
    id: ids[0]!,
    project_id: caller.projectId,
    name: body.name,
    status: 'initializing',
    server_type: body.server_type,
    image: body.image,
    zone: body.zone,
    region,
    labels: body.labels ?? {},
    public_ipv4: publicIp,
    public_ipv6: publicAddress6(sim, body),
    private_ipv4: nets[0]?.ip ?? standalone,
    private_networks: nets,
    locked: true,
    created: nowIso(sim),
  };
  if (body.start_after_create === false) return createStopped(sim, server, change);
  const action = await startAction(sim, caller, { command: 'create_server', coll: 'servers', doc: server, extra: [change] });
  return { server: toServer(sim.store.state.servers[server.id]!), action };
}

async function createStopped(sim: Sim, server: ServerRec, idChange: Change): Promise<{ server: Server; action: ActionRec }> {
  const { ids, change } = newIds(sim, 'act');
  const action: ActionRec = {
    ...sim.engine.begin({ command: 'create_server', projectId: server.project_id, resourceId: server.id, id: ids[0]! }),
    status: 'success',
    progress: 100,
    finished: nowIso(sim),
  };
  const doc = { ...server, status: 'off' as const, locked: false };
  await sim.store.commit([idChange, change, { op: 'put', coll: 'servers', doc }, { op: 'put', coll: 'actions', doc: action }]);
  return { server: toServer(doc), action };
}

export function listServers(sim: Sim, caller: Caller, q: ListQuery & { status?: string }): { servers: Server[]; meta: unknown } {
  const extra = q.status === undefined ? undefined : (s: ServerRec): boolean => s.status === q.status;
  const { items, meta } = listOwned<ServerRec>(sim, caller, { coll: 'servers', type: 'server', q, extra, extraKey: q.status });
  return { servers: items.map(toServer), meta };
}

export function getServer(sim: Sim, caller: Caller, id: string): Server {
  return toServer(getOwned(sim, caller, 'servers', id));
}

export async function updateServer(sim: Sim, caller: Caller, id: string, body: UpdateServerRequest): Promise<Server> {
  const server = getOwned(sim, caller, 'servers', id);
  if (body.name !== undefined) checkName(sim, caller, body.name, id);
  const doc = { ...server, ...(body.name === undefined ? {} : { name: body.name }), ...(body.labels === undefined ? {} : { labels: body.labels }) };
  await sim.store.commit([{ op: 'put', coll: 'servers', doc }]);
  return toServer(doc);
}

/** Persona attribute slices of a server, set with the update_server action (one commit; the server is locked until it ends). */
export async function updateServerAttrsByAction(sim: Sim, caller: Caller, id: string, attrs: AttrSlices): Promise<ActionRec> {
  const server = getOwned(sim, caller, 'servers', id);
  ensureUnlocked(server, 'server');
  return startAction(sim, caller, { command: 'update_server', coll: 'servers', doc: withAttrs({ ...server }, attrs) });
}

export async function deleteServer(sim: Sim, caller: Caller, id: string): Promise<ActionRec> {
  const server = getOwned(sim, caller, 'servers', id);
  ensureUnlocked(server, 'server');
  // Leave every server group at once, like a real cloud does on delete.
  const groups: Change[] = sim.store
    .all('server_groups')
    .filter((g) => g.servers.includes(id))
    .map((g) => ({ op: 'put', coll: 'server_groups', doc: { ...g, servers: g.servers.filter((s) => s !== id) } }));
  // Leave every load balancer's server targets too, as Hetzner and DigitalOcean drop a deleted server from them.
  const lbs: Change[] = sim.store
    .all('load_balancers')
    .filter((lb) => lb.targets.some((t) => t.kind === 'server' && t.server_id === id))
    .map((lb) => ({ op: 'put', coll: 'load_balancers', doc: { ...lb, targets: lb.targets.filter((t) => !(t.kind === 'server' && t.server_id === id)) } }));
  // Its IP blocks stay, unassigned.
  const blocks: Change[] = sim.store
    .all('ip_blocks')
    .filter((b) => b.assigned_to?.kind === 'server' && b.assigned_to.id === id)
    .map((b) => ({ op: 'put', coll: 'ip_blocks', doc: { ...b, status: 'unassigned', assigned_to: null } }));
  // Its id is remembered with its project: an API may answer a deleted server otherwise than an unknown id.
  const tombstone: Change = { op: 'put', coll: 'tombstones', doc: { id, project_id: server.project_id, resource_type: 'server', deleted: nowIso(sim) } };
  return startAction(sim, caller, { command: 'delete_server', coll: 'servers', doc: server, extra: [...groups, ...lbs, ...blocks, tombstone] });
}

const POWER: Record<ServerActionName, { command: ActionCommand; allowed: readonly string[] }> = {
  poweron: { command: 'poweron_server', allowed: ['off'] },
  poweroff: { command: 'poweroff_server', allowed: ['running', 'starting'] },
  shutdown: { command: 'shutdown_server', allowed: ['running'] },
  reboot: { command: 'reboot_server', allowed: ['running'] },
};

export async function powerAction(sim: Sim, caller: Caller, id: string, name: ServerActionName): Promise<ActionRec> {
  const server = getOwned(sim, caller, 'servers', id);
  ensureUnlocked(server, 'server');
  const p = POWER[name];
  if (!p.allowed.includes(server.status)) throw conflict(`cannot ${name} a server that is ${server.status}`);
  return startAction(sim, caller, { command: p.command, coll: 'servers', doc: server });
}

export async function attachServer(sim: Sim, caller: Caller, id: string, body: { network_id: string; ip?: string }): Promise<ActionRec> {
  const server = getOwned(sim, caller, 'servers', id);
  ensureUnlocked(server, 'server');
  const net = getOwned(sim, caller, 'networks', { id: body.network_id, field: 'network_id' });
  if (server.private_networks.some((n) => n.network_id === net.id)) throw conflict(`server ${id} is already on network ${net.id}`, 'network_id');
  const ip = privateAddress(sim, net, { zone: server.zone, ip: body.ip, field: 'ip' });
  const nets = [...server.private_networks, { network_id: net.id, ip }];
  const doc = { ...server, private_networks: nets, private_ipv4: server.private_ipv4 ?? ip };
  return startAction(sim, caller, {
    command: 'attach_server_to_network',
    coll: 'servers',
    doc,
    resources: [
      { id, type: 'server' },
      { id: net.id, type: 'network' },
    ],
  });
}

export async function detachServer(sim: Sim, caller: Caller, id: string, networkId: string): Promise<ActionRec> {
  const server = getOwned(sim, caller, 'servers', id);
  ensureUnlocked(server, 'server');
  const onNet = server.private_networks.find((n) => n.network_id === networkId);
  if (onNet === undefined) throw invalidField('network_id', `server ${id} is not on network ${networkId}`);
  const nets = server.private_networks.filter((n) => n.network_id !== networkId);
  const doc = { ...server, private_networks: nets, private_ipv4: server.private_ipv4 === onNet.ip ? (nets[0]?.ip ?? null) : server.private_ipv4 };
  return startAction(sim, caller, {
    command: 'detach_server_from_network',
    coll: 'servers',
    doc,
    resources: [
      { id, type: 'server' },
      { id: networkId, type: 'network' },
    ],
  });
}
