/** Server-group rules: members must be servers of the project; a group has at most one firewall policy. */
import type { CreateServerGroupRequest, ServerGroup, UpdateServerGroupRequest } from '../../../api/schema/server-groups.ts';
import { newIds, nowIso, type Caller, type Sim } from '../../context.ts';
import { conflict, invalidField } from '../../errors.ts';
import type { ServerGroupRec } from '../../store/state.ts';
import { getOwned, listOwned, owned, publicView, type ListQuery } from '../common.ts';

export function toServerGroup(sim: Sim, g: ServerGroupRec): ServerGroup {
  const policy = sim.store.all('firewall_policies').find((p) => p.server_group_id === g.id);
  return { ...publicView(g), firewall_policy_id: policy?.id ?? null };
}

function checkDistinct(servers: string[]): void {
  if (new Set(servers).size !== servers.length) throw invalidField('servers', 'duplicate server id');
}

function checkMembers(sim: Sim, caller: Caller, servers: string[]): string[] {
  checkDistinct(servers);
  servers.forEach((id, i) => getOwned(sim, caller, 'servers', { id, field: `servers.${i}` }));
  return servers;
}

function checkName(sim: Sim, caller: Caller, name: string, selfId?: string): void {
  if (owned<ServerGroupRec>(sim, caller, 'server_groups').some((g) => g.name === name && g.id !== selfId))
    throw conflict(`a server group named ${name} exists`, 'name');
}

export async function createServerGroup(sim: Sim, caller: Caller, body: CreateServerGroupRequest): Promise<ServerGroup> {
  checkName(sim, caller, body.name);
  const servers = checkMembers(sim, caller, body.servers ?? []);
  const { ids, change } = newIds(sim, 'grp');
  const doc: ServerGroupRec = {
    id: ids[0]!,
    project_id: caller.projectId,
    name: body.name,
    description: body.description ?? '',
    labels: body.labels ?? {},
    servers,
    created: nowIso(sim),
  };
  await sim.store.commit([change, { op: 'put', coll: 'server_groups', doc }]);
  return toServerGroup(sim, doc);
}

export function listServerGroups(sim: Sim, caller: Caller, q: ListQuery): { server_groups: ServerGroup[]; meta: unknown } {
  const { items, meta } = listOwned<ServerGroupRec>(sim, caller, { coll: 'server_groups', type: 'server_group', q });
  return { server_groups: items.map((g) => toServerGroup(sim, g)), meta };
}

export const getServerGroup = (sim: Sim, caller: Caller, id: string): ServerGroup => toServerGroup(sim, getOwned(sim, caller, 'server_groups', id));

export async function updateServerGroup(sim: Sim, caller: Caller, id: string, body: UpdateServerGroupRequest): Promise<ServerGroup> {
  const g = getOwned(sim, caller, 'server_groups', id);
  if (body.name !== undefined) checkName(sim, caller, body.name, id);
  const doc = { ...g };
  if (body.name !== undefined) doc.name = body.name;
  if (body.description !== undefined) doc.description = body.description;
  if (body.labels !== undefined) doc.labels = body.labels;
  await sim.store.commit([{ op: 'put', coll: 'server_groups', doc }]);
  return toServerGroup(sim, doc);
}

export async function setServerGroupServers(sim: Sim, caller: Caller, id: string, servers: string[]): Promise<ServerGroup> {
  const g = getOwned(sim, caller, 'server_groups', id);
  const doc = { ...g, servers: checkMembers(sim, caller, servers) };
  await sim.store.commit([{ op: 'put', coll: 'server_groups', doc }]);
  return toServerGroup(sim, doc);
}

/** Adds servers (each must be the project's); members already present are kept once (idempotent). */
export async function addServerGroupServers(sim: Sim, caller: Caller, id: string, servers: string[]): Promise<ServerGroup> {
  const g = getOwned(sim, caller, 'server_groups', id);
  checkMembers(sim, caller, servers);
  const present = new Set(g.servers);
  const doc = { ...g, servers: [...g.servers, ...servers.filter((s) => !present.has(s))] };
  await sim.store.commit([{ op: 'put', coll: 'server_groups', doc }]);
  return toServerGroup(sim, doc);
}

/** Removes servers; ids that are not members (or no longer exist) are skipped, so a retry converges. */
export async function removeServerGroupServers(sim: Sim, caller: Caller, id: string, servers: string[]): Promise<ServerGroup> {
  const g = getOwned(sim, caller, 'server_groups', id);
  checkDistinct(servers);
  const gone = new Set(servers);
  const doc = { ...g, servers: g.servers.filter((s) => !gone.has(s)) };
  await sim.store.commit([{ op: 'put', coll: 'server_groups', doc }]);
  return toServerGroup(sim, doc);
}

export async function deleteServerGroup(sim: Sim, caller: Caller, id: string): Promise<void> {
  const g = toServerGroup(sim, getOwned(sim, caller, 'server_groups', id));
  if (g.firewall_policy_id !== null) throw conflict(`firewall policy ${g.firewall_policy_id} is applied to server group ${id}; remove it first`);
  await sim.store.commit([{ op: 'del', coll: 'server_groups', id }]);
}
