/**
 * phoenixNAP persona, tag API (/tag-manager/v1): tags, which phoenixNAP keeps as resources of their own and its
 * CCM makes sure exist before it tags an IP block. A tag is a simcloud tag record of the caller's project
 * (resources/tags/service.ts: names unique, renames and deletes carried onto the resources); the resources it
 * shows as assigned are the caller's servers whose labels, and IP blocks whose tags, hold its name.
 */
import { z } from 'zod';
import type { Caller, Sim } from '../../server/context.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { ownedRecords } from '../../server/resources/common.ts';
import * as svc from '../../server/resources/tags/service.ts';
import type { TagRec } from '../../server/store/state.ts';
import { sliceReader } from '../attrs.ts';
import { IdParams, NAME, ownedBy, pnapIdOf, TAG_MANAGER, TagRequest, unrecordedTagId, type TagIdOf } from './common.ts';
import { Tag, TagDeleteResult } from './schemas.ts';

/** The persona's slice of a tag record: what phoenixNAP has and simcloud's tags do not. */
const PnapTagAttrs = z.object({ is_billing_tag: z.boolean() });
const attrsOf = sliceReader(NAME, PnapTagAttrs);

/** tagapi's TagCreate and TagUpdate: both take the whole tag. */
const TagBody = z.strictObject({ name: TagRequest.shape.name, description: z.string().max(250).optional(), isBillingTag: z.boolean() });
type TagBody = z.infer<typeof TagBody>;

const fieldsOf = (b: TagBody): svc.TagFields & { name: string } => ({
  name: b.name,
  ...(b.description === undefined ? {} : { description: b.description }),
  attrs: { [NAME]: { is_billing_tag: b.isBillingTag } },
});

/** The id each resource shows for a tag name: its record's, else one spelled from the project and the name. */
export function tagIdOf(sim: Sim, caller: Caller): TagIdOf {
  const ids = new Map(ownedRecords(sim, caller, 'tags').map((t) => [t.name, pnapIdOf(t.id)]));
  return (name) => ids.get(name) ?? unrecordedTagId(caller.projectId, name);
}

function tagView(sim: Sim, caller: Caller, t: TagRec): Tag {
  const { servers, ipBlocks } = svc.tagCarriers(sim, caller, t.name);
  const assigned = [
    ...servers.map((s) => ({ resourceName: `/bmc/servers/${pnapIdOf(s.id)}`, value: s.labels[t.name] ?? '' })),
    ...ipBlocks.map((b) => ({ resourceName: `/ips/ip-blocks/${pnapIdOf(b.id)}`, value: b.tags[t.name] ?? '' })),
  ];
  return {
    id: pnapIdOf(t.id),
    name: t.name,
    values: [...new Set(assigned.flatMap((a) => (a.value === '' ? [] : [a.value])))],
    ...(t.description === '' ? {} : { description: t.description }),
    isBillingTag: attrsOf(t)?.is_billing_tag ?? false,
    resourceAssignments: assigned.map((a) => ({ resourceName: a.resourceName, ...(a.value === '' ? {} : { value: a.value }) })),
    createdBy: 'USER',
  };
}

const ownedTag = (sim: Sim, caller: Caller, id: string): TagRec => ownedBy(sim, caller, 'tags', id);

export const tagRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${TAG_MANAGER}/tags`,
    operation: 'phoenixnap.tags.list',
    summary: 'List tags, by name',
    query: z.strictObject({ name: z.string().max(63).optional() }),
    response: z.array(Tag),
    handle: (sim, { caller, query }) =>
      ownedRecords(sim, caller, 'tags')
        .filter((t) => query.name === undefined || t.name === query.name)
        .map((t) => tagView(sim, caller, t)),
  }),
  defineRoute({
    method: 'post',
    path: `${TAG_MANAGER}/tags`,
    operation: 'phoenixnap.tags.create',
    summary: 'Create a tag',
    body: TagBody,
    response: Tag,
    status: 201,
    handle: async (sim, { caller, body }) => tagView(sim, caller, await svc.createTag(sim, caller, fieldsOf(body))),
  }),
  defineRoute({
    method: 'get',
    path: `${TAG_MANAGER}/tags/:id`,
    operation: 'phoenixnap.tags.get',
    summary: 'Get a tag',
    params: IdParams,
    response: Tag,
    handle: (sim, { caller, params }) => tagView(sim, caller, ownedTag(sim, caller, params.id)),
  }),
  defineRoute({
    method: 'patch',
    path: `${TAG_MANAGER}/tags/:id`,
    operation: 'phoenixnap.tags.update',
    summary: 'Rename or re-describe a tag (on the resources carrying it too)',
    params: IdParams,
    body: TagBody,
    response: Tag,
    handle: async (sim, { caller, params, body }) =>
      tagView(sim, caller, await svc.updateTag(sim, caller, ownedTag(sim, caller, params.id).id, fieldsOf(body))),
  }),
  defineRoute({
    method: 'delete',
    path: `${TAG_MANAGER}/tags/:id`,
    operation: 'phoenixnap.tags.delete',
    summary: 'Delete a tag, taking it off the resources carrying it',
    params: IdParams,
    response: TagDeleteResult,
    handle: async (sim, { caller, params }) => {
      const t = await svc.deleteTag(sim, caller, ownedTag(sim, caller, params.id).id);
      return { result: `Tag ${t.name} deleted.`, tagId: params.id };
    },
  }),
];
