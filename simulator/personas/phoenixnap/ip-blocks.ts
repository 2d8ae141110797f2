/**
 * phoenixNAP persona, IP API (/ips/v1): IP blocks (list by tag, create, get, patch the description, replace
 * tags, delete) over simcloud's IP blocks: a block is a CIDR carved from simcloud's IP-block pool, a /29 unless
 * another size is asked for; it stays public (unassigned) until assigned to a server through the BMC API.
 */
import { z } from 'zod';
import type { Caller, Sim } from '../../server/context.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { ownedRecords } from '../../server/resources/common.ts';
import * as svc from '../../server/resources/ip-blocks/service.ts';
import { IPS, IdParams, TagQuery, TagRequests, labelsOf, ownedBy, pnapIdOf, tagFilter, zoneOf } from './common.ts';
import { DeleteIpBlockResult, IpBlock } from './schemas.ts';
import { tagIdOf } from './tags.ts';
import { ipBlockView } from './views.ts';

/** `/31` is phoenixNAP's too, but a simcloud block keeps a gateway and at least one usable address. */
const SIZES = ['/30', '/29', '/28', '/27', '/26', '/25', '/24'] as const;

const CreateBody = z.strictObject({
  location: z.string().min(1).max(63),
  cidrBlockSize: z.enum(SIZES).optional(),
  description: z.string().max(250).optional(),
  tags: TagRequests.optional(),
});
const PatchBody = z.strictObject({ description: z.string().max(250).optional() });

const view = (sim: Sim, caller: Caller, id: string): IpBlock => ipBlockView(ownedBy(sim, caller, 'ip_blocks', id), tagIdOf(sim, caller));

export const ipBlockRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${IPS}/ip-blocks`,
    operation: 'phoenixnap.ip-blocks.list',
    summary: 'List IP blocks, by tag',
    query: z.strictObject({ tag: TagQuery }),
    response: z.array(IpBlock),
    handle: (sim, { caller, query }) => {
      const match = tagFilter(query.tag);
      const idOf = tagIdOf(sim, caller);
      return ownedRecords(sim, caller, 'ip_blocks')
        .filter((b) => match(b.tags))
        .map((b) => ipBlockView(b, idOf));
    },
  }),
  defineRoute({
    method: 'post',
    path: `${IPS}/ip-blocks`,
    operation: 'phoenixnap.ip-blocks.create',
    summary: 'Create an IP block (a /29 by default)',
    body: CreateBody,
    response: IpBlock,
    status: 201,
    handle: async (sim, { caller, body }) => {
      zoneOf(body.location);
      const size = Number((body.cidrBlockSize ?? '/29').slice(1));
      const b = await svc.allocateIpBlock(sim, caller, {
        location: body.location,
        size,
        ...(body.description === undefined ? {} : { description: body.description }),
        tags: labelsOf(body.tags ?? []),
      });
      return view(sim, caller, pnapIdOf(b.id));
    },
  }),
  defineRoute({
    method: 'get',
    path: `${IPS}/ip-blocks/:id`,
    operation: 'phoenixnap.ip-blocks.get',
    summary: 'Get an IP block',
    params: IdParams,
    response: IpBlock,
    handle: (sim, { caller, params }) => view(sim, caller, params.id),
  }),
  defineRoute({
    method: 'patch',
    path: `${IPS}/ip-blocks/:id`,
    operation: 'phoenixnap.ip-blocks.patch',
    summary: "Change an IP block's description",
    params: IdParams,
    body: PatchBody,
    response: IpBlock,
    handle: async (sim, { caller, params, body }) => {
      const b = ownedBy(sim, caller, 'ip_blocks', params.id);
      await svc.updateIpBlock(sim, caller, b.id, body);
      return view(sim, caller, params.id);
    },
  }),
  defineRoute({
    method: 'put',
    path: `${IPS}/ip-blocks/:id/tags`,
    operation: 'phoenixnap.ip-blocks.tags',
    summary: "Replace an IP block's tags",
    params: IdParams,
    body: TagRequests,
    response: IpBlock,
    handle: async (sim, { caller, params, body }) => {
      const b = ownedBy(sim, caller, 'ip_blocks', params.id);
      await svc.updateIpBlock(sim, caller, b.id, { tags: labelsOf(body, '') });
      return view(sim, caller, params.id);
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${IPS}/ip-blocks/:id`,
    operation: 'phoenixnap.ip-blocks.delete',
    summary: 'Delete an IP block (unassigned only)',
    params: IdParams,
    response: DeleteIpBlockResult,
    handle: async (sim, { caller, params }) => {
      await svc.releaseIpBlock(sim, caller, ownedBy(sim, caller, 'ip_blocks', params.id).id);
      return { result: 'IP Block is being deleted.', ipBlockId: params.id };
    },
  }),
];
