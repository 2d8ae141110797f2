/**
 * phoenixNAP persona, tag API (/tag-manager/v1): tags, which phoenixNAP keeps as resources of their own and its
 * CCM makes sure exist before it tags an IP block. Here a tag is a name in use: the label names of the caller's
 * servers and the tag names of its IP blocks, with their values and the resources carrying them; creating one
 * answers the tag phoenixNAP would, and it is listed once a resource carries it (one store, no tag records).
 */
import { z } from 'zod';
import type { Caller, Sim } from '../../server/context.ts';
import { conflict } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { ownedRecords } from '../../server/resources/common.ts';
import { pnapIdOf, TAG_MANAGER, tagId, TagRequest } from './common.ts';
import { Tag } from './schemas.ts';

const CreateBody = z.strictObject({ name: TagRequest.shape.name, description: z.string().max(250).optional(), isBillingTag: z.boolean() });

/** Every tag name in use by the caller's servers and IP blocks, with the resources carrying it. */
function tagsInUse(sim: Sim, caller: Caller): Tag[] {
  const byName = new Map<string, { values: Set<string>; assigned: { resourceName: string; value?: string }[] }>();
  const carry = (labels: Record<string, string>, resourceName: string): void => {
    for (const [name, value] of Object.entries(labels)) {
      const t = byName.get(name) ?? { values: new Set<string>(), assigned: [] };
      if (value !== '') t.values.add(value);
      t.assigned.push({ resourceName, ...(value === '' ? {} : { value }) });
      byName.set(name, t);
    }
  };
  for (const s of ownedRecords(sim, caller, 'servers')) carry(s.labels, `/bmc/servers/${pnapIdOf(s.id)}`);
  for (const b of ownedRecords(sim, caller, 'ip_blocks')) carry(b.tags, `/ips/ip-blocks/${pnapIdOf(b.id)}`);
  return [...byName].map(([name, t]) => ({
    id: tagId(name),
    name,
    values: [...t.values],
    isBillingTag: false,
    resourceAssignments: t.assigned,
    createdBy: 'USER',
  }));
}

export const tagRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${TAG_MANAGER}/tags`,
    operation: 'phoenixnap.tags.list',
    summary: 'List tags, by name',
    query: z.strictObject({ name: z.string().max(63).optional() }),
    response: z.array(Tag),
    handle: (sim, { caller, query }) => tagsInUse(sim, caller).filter((t) => query.name === undefined || t.name === query.name),
  }),
  defineRoute({
    method: 'post',
    path: `${TAG_MANAGER}/tags`,
    operation: 'phoenixnap.tags.create',
    summary: 'Create a tag',
    body: CreateBody,
    response: Tag,
    status: 201,
    handle: (sim, { caller, body }) => {
      if (tagsInUse(sim, caller).some((t) => t.name === body.name)) throw conflict(`tag ${body.name} already exists`, 'name');
      return {
        id: tagId(body.name),
        name: body.name,
        values: [],
        ...(body.description === undefined ? {} : { description: body.description }),
        isBillingTag: body.isBillingTag,
        resourceAssignments: [],
        createdBy: 'USER',
      };
    },
  }),
];
