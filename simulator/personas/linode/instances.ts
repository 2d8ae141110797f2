/**
 * Linode persona: instances (list with X-Filter, get, create, update, delete; boot, shutdown, reboot) and
 * their IP addresses, over simcloud's servers. Power calls answer `{}` at once, as Linode does; the
 * server's status follows through simcloud's action.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { IMAGES, SERVER_TYPES, ZONES } from '../../server/resources/catalogue/data.ts';
import { ownedRecords } from '../../server/resources/common.ts';
import * as svc from '../../server/resources/servers/service.ts';
import type { ServerActionName } from '../../api/schema/servers.ts';
import { NumericId, NumericIdParams } from '../numeric-ids.ts';
import { ListQuery, PREFIX, owned, pageOf, sid } from './common.ts';
import { Empty, Instance, InstanceIPs, page } from './responses.ts';
import { presentedOf } from './addresses.ts';
import { instanceView, ipsView, labelsOf } from './views.ts';
import { dropRangesOf, networkOfSubnet } from './vpcs.ts';

const Label = z
  .string()
  .min(3)
  // 63, not Linode's 64: the label is the server's simcloud name, which /v1 shows.
  .max(63)
  .regex(/^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/, 'must be 3-63 letters, digits, dots, dashes or underscores');
const Tags = z.array(z.string().min(1).max(50)).max(50);

// A vpc interface puts the instance on the VPC's network; public (and an omitted subnet) change nothing.
const Interface = z.object({ purpose: z.enum(['public', 'vpc']), subnet_id: NumericId.optional() });
const CreateInstanceBody = z.object({
  region: z.string().min(1),
  type: z.string().min(1),
  label: Label.optional(),
  image: z.string().optional(),
  tags: Tags.optional(),
  booted: z.boolean().optional(),
  private_ip: z.boolean().optional(),
  root_pass: z.string().optional(),
  authorized_keys: z.array(z.string()).optional(),
  interfaces: z.array(Interface).max(3).optional(),
});
type CreateInstanceBody = z.infer<typeof CreateInstanceBody>;
const UpdateInstanceBody = z.object({ label: Label.optional(), tags: Tags.optional() });
const PowerBody = z.object({ config_id: z.number().int().optional() });

function catalogue(body: CreateInstanceBody): { zone: string; type: string; image: string } {
  const zone = ZONES.find((z) => z.region === body.region);
  if (zone === undefined) throw invalidField('region', `unknown region ${body.region}`);
  if (!SERVER_TYPES.some((t) => t.id === body.type))
    throw invalidField('type', `unknown type ${body.type}; one of ${SERVER_TYPES.map((t) => t.id).join(', ')}`);
  const image = (body.image ?? `linode/${IMAGES[0]!.id}`).replace(/^linode\//, '');
  if (!IMAGES.some((i) => i.id === image)) throw invalidField('image', `unknown image ${body.image ?? ''}`);
  return { zone: zone.id, type: body.type, image };
}

function vpcNetworks(sim: Sim, caller: Caller, body: CreateInstanceBody): string[] {
  return (body.interfaces ?? []).flatMap((i, k) =>
    i.purpose === 'vpc' && i.subnet_id !== undefined ? [networkOfSubnet(sim, caller, i.subnet_id, `interfaces.${k}.subnet_id`).id] : [],
  );
}

async function create(sim: Sim, caller: Caller, body: CreateInstanceBody): Promise<Instance> {
  const { zone, type, image } = catalogue(body);
  const { server } = await svc.createServer(sim, caller, {
    name: body.label ?? `linode${randomBytes(4).toString('hex')}`,
    server_type: type,
    image,
    zone,
    labels: labelsOf(body.tags ?? []),
    start_after_create: body.booted ?? true,
    networks: vpcNetworks(sim, caller, body),
  });
  return instanceView(server, presentedOf(sim));
}

const power = (name: string, action: ServerActionName): RouteDef =>
  defineRoute({
    method: 'post',
    path: `${PREFIX}/linode/instances/:id/${name}`,
    operation: `linode.instances.${name}`,
    summary: `${name} an instance`,
    params: NumericIdParams,
    body: PowerBody,
    response: Empty,
    handle: async (sim, { caller, params }) => {
      await svc.powerAction(sim, caller, sid('linode/instances', params.id), action);
      return {};
    },
  });

export const instanceRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${PREFIX}/linode/instances`,
    operation: 'linode.instances.list',
    summary: 'List instances',
    query: ListQuery,
    queryHeaders: ['X-Filter'],
    response: page(Instance),
    handle: (sim, { caller, query }) => {
      const mine = ownedRecords(sim, caller, 'servers');
      return pageOf(
        mine.map((s) => instanceView(svc.toServer(s), presentedOf(sim))),
        query,
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/linode/instances`,
    operation: 'linode.instances.create',
    summary: 'Create an instance',
    body: CreateInstanceBody,
    response: Instance,
    handle: (sim, { caller, body }) => create(sim, caller, body),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/linode/instances/:id`,
    operation: 'linode.instances.get',
    summary: 'Get an instance',
    params: NumericIdParams,
    response: Instance,
    handle: (sim, { caller, params }) => instanceView(svc.toServer(owned(sim, caller, 'linode/instances', params.id)), presentedOf(sim)),
  }),
  defineRoute({
    method: 'put',
    path: `${PREFIX}/linode/instances/:id`,
    operation: 'linode.instances.update',
    summary: 'Update label or tags',
    params: NumericIdParams,
    body: UpdateInstanceBody,
    response: Instance,
    handle: async (sim, { caller, params, body }) =>
      instanceView(
        await svc.updateServer(sim, caller, sid('linode/instances', params.id), {
          name: body.label,
          labels: body.tags === undefined ? undefined : labelsOf(body.tags),
        }),
        presentedOf(sim),
      ),
  }),
  defineRoute({
    method: 'delete',
    path: `${PREFIX}/linode/instances/:id`,
    operation: 'linode.instances.delete',
    summary: 'Delete an instance',
    params: NumericIdParams,
    response: Empty,
    handle: async (sim, { caller, params }) => {
      await dropRangesOf(sim, caller, owned(sim, caller, 'linode/instances', params.id));
      await svc.deleteServer(sim, caller, sid('linode/instances', params.id));
      return {};
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/linode/instances/:id/ips`,
    operation: 'linode.instances.ips',
    summary: "An instance's IP addresses",
    params: NumericIdParams,
    response: InstanceIPs,
    handle: (sim, { caller, params }) => ipsView(svc.toServer(owned(sim, caller, 'linode/instances', params.id)), presentedOf(sim)),
  }),
  power('boot', 'poweron'),
  power('shutdown', 'shutdown'),
  power('reboot', 'reboot'),
];
