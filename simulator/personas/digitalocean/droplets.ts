/**
 * DigitalOcean persona: droplets (create, list with `tag_name` or `name`, get, delete), their actions
 * (power_on, power_off, shutdown, reboot, power_cycle; GET of one and of all) and the account-wide actions,
 * over simcloud's servers and its one actions collection.
 */
import { z } from 'zod';
import type { ServerActionName } from '../../api/schema/servers.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField, notFound } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { IMAGES, SERVER_TYPES, ZONES } from '../../server/resources/catalogue/data.ts';
import { findOwned, findRecord, getOwned, ownedRecords } from '../../server/resources/common.ts';
import * as svc from '../../server/resources/servers/service.ts';
import type { ActionRec } from '../../server/store/state.ts';
import { NumericIdParams, numericIdOf, simcloudId } from '../numeric-ids.ts';
import { ListQuery, PREFIX, dropletSid, labelsOf, ownedDroplet, pageOf, tagsOf } from './common.ts';
import { Action, Droplet, DropletCreated, NoContent, list, one } from './responses.ts';
import { actionView, dropletView } from './views.ts';

const Tags = z.array(z.string().max(255)).max(50);

/** Every field godo sends; the switches DigitalOcean bills for (backups, monitoring, ...) are accepted and have no effect. */
const CreateDropletBody = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(63)
    .regex(/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/, 'must be letters, digits, dots and dashes'),
  region: z.string().min(1).max(63),
  size: z.string().min(1).max(63),
  image: z.union([z.string().min(1).max(63), z.number().int()]),
  tags: Tags.nullish(),
  vpc_uuid: z.string().max(64).optional(),
  ssh_keys: z
    .array(z.union([z.string().max(128), z.number().int()]))
    .max(32)
    .nullish(),
  backups: z.boolean().optional(),
  ipv6: z.boolean().optional(),
  private_networking: z.boolean().optional(),
  monitoring: z.boolean().optional(),
  user_data: z.string().max(65_536).optional(),
  with_droplet_agent: z.boolean().optional(),
  public_networking: z.boolean().optional(),
});
type CreateDropletBody = z.infer<typeof CreateDropletBody>;

const DropletListQuery = ListQuery.extend({ tag_name: z.string().min(1).max(255).optional(), name: z.string().min(1).max(255).optional() });

const POWER = { power_on: 'poweron', power_off: 'poweroff', shutdown: 'shutdown', reboot: 'reboot', power_cycle: 'reboot' } as const satisfies Record<
  string,
  ServerActionName
>;
const ActionBody = z.strictObject({ type: z.enum(Object.keys(POWER) as [keyof typeof POWER, ...(keyof typeof POWER)[]]) });

const ActionParams = z.object({ id: NumericIdParams.shape.id, action: NumericIdParams.shape.id });

function image(ref: string | number): string {
  const slug = typeof ref === 'number' ? IMAGES[ref - 1]?.id : ref;
  if (slug === undefined || !IMAGES.some((i) => i.id === slug))
    throw invalidField('image', `unknown image ${ref}; one of ${IMAGES.map((i) => i.id).join(', ')}`);
  return slug;
}

async function create(sim: Sim, caller: Caller, body: CreateDropletBody): Promise<DropletCreated> {
  const zone = ZONES.find((z) => z.region === body.region);
  if (zone === undefined) throw invalidField('region', `unknown region ${body.region}`);
  if (!SERVER_TYPES.some((t) => t.id === body.size))
    throw invalidField('size', `unknown size ${body.size}; one of ${SERVER_TYPES.map((t) => t.id).join(', ')}`);
  if (body.vpc_uuid !== undefined) throw invalidField('vpc_uuid', 'VPCs are not emulated; droplets join no network');
  const { server, action } = await svc.createServer(sim, caller, {
    name: body.name,
    server_type: body.size,
    image: image(body.image),
    zone: zone.id,
    labels: labelsOf(body.tags ?? []),
    start_after_create: true,
  });
  const href = `${PREFIX}/actions/${numericIdOf(action.id)}`;
  return { droplet: dropletView(sim, getOwned(sim, caller, 'servers', server.id)), links: { actions: [{ id: numericIdOf(action.id), rel: 'create', href }] } };
}

/** The caller's action `n`, optionally only if it concerns droplet `dropletId`. */
function ownedAction(sim: Sim, caller: Caller, n: number, dropletId?: string): ActionRec {
  const a = findOwned(sim, caller, 'actions', simcloudId('act', n));
  if (a === undefined || (dropletId !== undefined && !a.resources.some((r) => r.id === dropletId))) {
    throw notFound('action', String(n));
  }
  return a;
}

/** An action as DigitalOcean shows it, with the region of the droplet it concerns. */
export function viewAction(sim: Sim, a: ActionRec): Action {
  const res = a.resources[0];
  return actionView(a, res?.type === 'server' ? findRecord(sim, 'servers', res.id)?.region : undefined);
}

export const dropletRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${PREFIX}/droplets`,
    operation: 'digitalocean.droplets.list',
    summary: 'List droplets, by tag_name or name',
    query: DropletListQuery,
    response: list('droplets', Droplet),
    handle: (sim, { caller, query }) => {
      const mine = ownedRecords(sim, caller, 'servers').filter(
        (s) => (query.tag_name === undefined || tagsOf(s.labels).includes(query.tag_name)) && (query.name === undefined || s.name === query.name),
      );
      const filter = Object.fromEntries(Object.entries({ tag_name: query.tag_name, name: query.name }).filter(([, v]) => v !== undefined)) as Record<
        string,
        string
      >;
      return pageOf(
        { key: 'droplets', extra: filter },
        mine.map((s) => dropletView(sim, s)),
        query,
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/droplets`,
    operation: 'digitalocean.droplets.create',
    summary: 'Create a droplet',
    body: CreateDropletBody,
    status: 202,
    response: DropletCreated,
    handle: (sim, { caller, body }) => create(sim, caller, body),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/droplets/:id`,
    operation: 'digitalocean.droplets.get',
    summary: 'Get a droplet',
    params: NumericIdParams,
    response: one('droplet', Droplet),
    handle: (sim, { caller, params }) => ({ droplet: dropletView(sim, ownedDroplet(sim, caller, params.id)) }),
  }),
  defineRoute({
    method: 'delete',
    path: `${PREFIX}/droplets/:id`,
    operation: 'digitalocean.droplets.delete',
    summary: 'Delete a droplet',
    params: NumericIdParams,
    status: 204,
    response: NoContent,
    handle: async (sim, { caller, params }) => {
      await svc.deleteServer(sim, caller, dropletSid(params.id));
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/droplets/:id/actions`,
    operation: 'digitalocean.droplets.action',
    summary: 'Power a droplet on, off, or reboot it',
    params: NumericIdParams,
    body: ActionBody,
    status: 201,
    response: one('action', Action),
    handle: async (sim, { caller, params, body }) => ({ action: viewAction(sim, await svc.powerAction(sim, caller, dropletSid(params.id), POWER[body.type])) }),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/droplets/:id/actions/:action`,
    operation: 'digitalocean.droplets.action.get',
    summary: "Get a droplet's action",
    params: ActionParams,
    response: one('action', Action),
    handle: (sim, { caller, params }) => {
      const droplet = ownedDroplet(sim, caller, params.id);
      return { action: viewAction(sim, ownedAction(sim, caller, params.action, droplet.id)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/actions`,
    operation: 'digitalocean.actions.list',
    summary: 'List actions',
    query: ListQuery,
    response: list('actions', Action),
    handle: (sim, { caller, query }) => {
      const mine = ownedRecords(sim, caller, 'actions').sort((a, b) => numericIdOf(b.id) - numericIdOf(a.id));
      return pageOf(
        { key: 'actions' },
        mine.map((a) => viewAction(sim, a)),
        query,
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/actions/:id`,
    operation: 'digitalocean.actions.get',
    summary: 'Get an action',
    params: NumericIdParams,
    response: one('action', Action),
    handle: (sim, { caller, params }) => ({ action: viewAction(sim, ownedAction(sim, caller, params.id)) }),
  }),
];
