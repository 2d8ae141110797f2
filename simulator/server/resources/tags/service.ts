/**
 * Tag rules, for the APIs that keep tags as records of their own (phoenixNAP's tag manager): a tag's name is
 * unique in its project, and the resources carrying it are the project's servers whose labels, and IP blocks
 * whose tags, hold its name. Renaming a tag renames it on them and deleting it takes it off them, in the same
 * commit as the record, so a resource never carries a name its tag no longer has.
 */
import { hasOwnKey } from '../../../../lib/keyed.ts';
import { newIds, nowIso, type Caller, type Sim } from '../../context.ts';
import { conflict } from '../../errors.ts';
import type { Change, IpBlockRec, ServerRec, TagRec } from '../../store/state.ts';
import { getOwned, ownedRecords, withAttrs, type AttrSlices } from '../common.ts';

/** The caller's resources carrying tag name `name`. */
export interface TagCarriers {
  servers: ServerRec[];
  ipBlocks: IpBlockRec[];
}

export function tagCarriers(sim: Sim, caller: Caller, name: string): TagCarriers {
  return {
    servers: ownedRecords(sim, caller, 'servers').filter((s) => hasOwnKey(s.labels, name)),
    ipBlocks: ownedRecords(sim, caller, 'ip_blocks').filter((b) => hasOwnKey(b.tags, name)),
  };
}

/** The caller's tag named `name`, if it has one. */
export const tagNamed = (sim: Sim, caller: Caller, name: string): TagRec | undefined => ownedRecords(sim, caller, 'tags').find((t) => t.name === name);

function checkName(sim: Sim, caller: Caller, name: string, selfId?: string): void {
  const other = tagNamed(sim, caller, name);
  if (other !== undefined && other.id !== selfId) throw conflict(`a tag named ${name} exists`, 'name');
}

export interface TagFields {
  name?: string;
  description?: string;
  /** Persona attribute slices laid over the record's. */
  attrs?: AttrSlices;
}

export async function createTag(sim: Sim, caller: Caller, body: TagFields & { name: string }): Promise<TagRec> {
  checkName(sim, caller, body.name);
  const { ids, change } = newIds(sim, 'tag');
  const doc = withAttrs<TagRec>(
    { id: ids[0]!, project_id: caller.projectId, name: body.name, description: body.description ?? '', created: nowIso(sim) },
    body.attrs ?? {},
  );
  await sim.store.commit([change, { op: 'put', coll: 'tags', doc }]);
  return doc;
}

/** `entries` with key `from` renamed `to`, or dropped when `to` is null. */
function moveKey(entries: Record<string, string>, from: string, to: string | null): Record<string, string> {
  return Object.fromEntries(Object.entries(entries).flatMap(([k, v]): [string, string][] => (k !== from ? [[k, v]] : to === null ? [] : [[to, v]])));
}

/** The carriers' writes moving tag name `from` to `to` (off them when null); a carrier of `to` already is a conflict. */
function retag(sim: Sim, caller: Caller, from: string, to: string | null): Change[] {
  const { servers, ipBlocks } = tagCarriers(sim, caller, from);
  if (to !== null) {
    const both = [...servers.filter((s) => hasOwnKey(s.labels, to)), ...ipBlocks.filter((b) => hasOwnKey(b.tags, to))];
    if (both.length > 0) throw conflict(`${both.map((r) => r.id).join(', ')} already carry a tag named ${to}`, 'name');
  }
  return [
    ...servers.map((s): Change => ({ op: 'put', coll: 'servers', doc: { ...s, labels: moveKey(s.labels, from, to) } })),
    ...ipBlocks.map((b): Change => ({ op: 'put', coll: 'ip_blocks', doc: { ...b, tags: moveKey(b.tags, from, to) } })),
  ];
}

/** Renames (on its carriers too) or re-describes a tag. */
export async function updateTag(sim: Sim, caller: Caller, id: string, body: TagFields): Promise<TagRec> {
  const tag = getOwned(sim, caller, 'tags', id);
  const renamed = body.name !== undefined && body.name !== tag.name ? body.name : undefined;
  if (renamed !== undefined) checkName(sim, caller, renamed, id);
  const carriers = renamed === undefined ? [] : retag(sim, caller, tag.name, renamed);
  const doc = withAttrs<TagRec>(
    { ...tag, ...(renamed === undefined ? {} : { name: renamed }), ...(body.description === undefined ? {} : { description: body.description }) },
    body.attrs ?? {},
  );
  await sim.store.commit([...carriers, { op: 'put', coll: 'tags', doc }]);
  return doc;
}

/** Deletes a tag and takes it off every resource carrying it. */
export async function deleteTag(sim: Sim, caller: Caller, id: string): Promise<TagRec> {
  const tag = getOwned(sim, caller, 'tags', id);
  await sim.store.commit([...retag(sim, caller, tag.name, null), { op: 'del', coll: 'tags', id }]);
  return tag;
}
