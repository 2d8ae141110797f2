/**
 * phoenixNAP persona, BMC API (/bmc/v1): servers (list by tag, create, get, rename, delete and deprovision),
 * their power actions (power-on, power-off, reboot, shutdown), tags, IP blocks (assign, remove), private
 * networks (join, leave) and public networks (join with addresses of the network's IP blocks, leave), over
 * simcloud's servers, IP blocks and networks.
 */
import { z } from 'zod';
import { Ipv4 } from '../../api/schema/common.ts';
import type { ServerActionName } from '../../api/schema/servers.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { conflict, forbidden, invalidField } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { PlantedFault, unlessPlanted } from '../../server/planted.ts';
import { IMAGES, SERVER_TYPES } from '../../server/resources/catalogue/data.ts';
import { findOwned, getOwned, ownedRecords } from '../../server/resources/common.ts';
import * as ipb from '../../server/resources/ip-blocks/service.ts';
import * as svc from '../../server/resources/servers/service.ts';
import type { IpBlockRec, ServerRec } from '../../server/store/state.ts';
import { BMC, IdParams, NAME, ownedBy, TagQuery, TagRequests, labelsOf, pnapIdOf, simIdOf, tagFilter, zoneOf } from './common.ts';
import { ownedPublic } from './public-networks.ts';
import { ActionResult, DeleteResult, Server, ServerIpBlock, ServerPrivateNetwork, ServerPublicNetwork, TextResult } from './schemas.ts';
import { membersOf, serverAttrsOf } from './server-attrs.ts';
import { tagIdOf } from './tags.ts';
import { serverView } from './views.ts';

const PrivateNetworkRef = z.strictObject({
  id: z.string().min(1).max(64),
  ips: z.array(unlessPlanted(PlantedFault.ipsSchema, Ipv4)).max(1).nullish(),
  dhcp: z.boolean().optional(),
  statusDescription: z.string().optional(),
});

/** Every field bmcapi's ServerCreate has; what simcloud cannot act on is refused or accepted without effect (parity.ts). */
const CreateServerBody = z.strictObject({
  hostname: z
    .string()
    .min(1)
    .max(63)
    .regex(/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/, 'must be letters, digits, dots and dashes'),
  description: z.string().max(250).optional(),
  os: z.string().min(1).max(63),
  type: z.string().min(1).max(63),
  location: z.string().min(1).max(63),
  installDefaultSshKeys: z.boolean().optional(),
  sshKeys: z.array(z.string().max(4096)).max(16).optional(),
  sshKeyIds: z.array(z.string().max(64)).max(16).optional(),
  reservationId: z.string().max(64).optional(),
  pricingModel: z.literal('HOURLY').optional(),
  networkType: z.enum(['PUBLIC_AND_PRIVATE', 'PRIVATE_ONLY']).optional(),
  osConfiguration: z.record(z.string(), z.unknown()).optional(),
  tags: TagRequests.optional(),
  networkConfiguration: z
    .strictObject({
      gatewayAddress: z.string().max(64).optional(),
      privateNetworkConfiguration: z
        .strictObject({
          gatewayAddress: z.string().max(64).optional(),
          configurationType: z.enum(['USE_OR_CREATE_DEFAULT', 'USER_DEFINED', 'NONE']).optional(),
          privateNetworks: z.array(PrivateNetworkRef).max(8).optional(),
        })
        .optional(),
      ipBlocksConfiguration: z.strictObject({ configurationType: z.literal('NONE').optional(), ipBlocks: z.array(ServerIpBlock).max(0).optional() }).optional(),
      publicNetworkConfiguration: z.strictObject({ publicNetworks: z.array(z.unknown()).max(0).optional() }).optional(),
    })
    .optional(),
});
type CreateServerBody = z.infer<typeof CreateServerBody>;

const ListQuery = z.strictObject({ tag: TagQuery });
const PatchBody = z.strictObject({ hostname: CreateServerBody.shape.hostname.optional(), description: z.string().max(250).optional() });
const Relinquish = z.strictObject({
  deleteIpBlocks: z.literal(false, { error: 'deleting IP blocks with their server is not emulated; release them through the IP API' }).optional(),
});
const SubParams = z.object({ id: IdParams.shape.id, sub: IdParams.shape.id });

const blocksOf = (sim: Sim, caller: Caller): IpBlockRec[] => ownedRecords(sim, caller, 'ip_blocks');
/**
 * The caller's server behind `id`. One of its project's servers that was deleted is 403 on every call that
 * addresses it, as phoenixNAP answers a deleted server (k8s-cloud-provider-bmc d84a2c5 reads that 403 as gone); an
 * id that never named one of its servers stays 404.
 */
function ownedServer(sim: Sim, caller: Caller, id: string): ServerRec {
  const simId = simIdOf('srv', id);
  if (findOwned(sim, caller, 'servers', simId) === undefined && findOwned(sim, caller, 'tombstones', simId) !== undefined)
    throw forbidden(`server ${id} was deleted and can no longer be accessed`);
  return ownedBy(sim, caller, 'servers', id);
}
const view = (sim: Sim, caller: Caller, s: ServerRec): Server => serverView(s, blocksOf(sim, caller), tagIdOf(sim, caller));

function checkCatalogue(body: CreateServerBody): void {
  if (!SERVER_TYPES.some((t) => t.id === body.type))
    throw invalidField('type', `unknown type ${body.type}; one of ${SERVER_TYPES.map((t) => t.id).join(', ')}`);
  if (!IMAGES.some((i) => i.id === body.os)) throw invalidField('os', `unknown os ${body.os}; one of ${IMAGES.map((i) => i.id).join(', ')}`);
}

async function create(sim: Sim, caller: Caller, body: CreateServerBody): Promise<Server> {
  const zone = zoneOf(body.location);
  checkCatalogue(body);
  const nets = body.networkConfiguration?.privateNetworkConfiguration?.privateNetworks ?? [];
  const ip = nets[0]?.ips?.[0];
  const { server } = await svc.createServer(sim, caller, {
    name: body.hostname,
    server_type: body.type,
    image: body.os,
    zone,
    labels: labelsOf(body.tags ?? []),
    start_after_create: true,
    networks: nets.map(
      (n, i) => ownedBy(sim, caller, 'networks', { id: n.id, field: `networkConfiguration.privateNetworkConfiguration.privateNetworks.${i}.id` }).id,
    ),
    ...(ip === undefined ? {} : { private_ipv4: ip }),
    public_net: body.networkType !== 'PRIVATE_ONLY',
  });
  return view(sim, caller, getOwned(sim, caller, 'servers', server.id));
}

const POWER: readonly (readonly [string, ServerActionName, string])[] = [
  ['power-on', 'poweron', 'Server powered on'],
  ['power-off', 'poweroff', 'Server powered off'],
  ['reboot', 'reboot', 'Server rebooted'],
  ['shutdown', 'shutdown', 'Server shutdown'],
];

const powerRoutes = POWER.map(([path, action, result]) =>
  defineRoute({
    method: 'post',
    path: `${BMC}/servers/:id/actions/${path}`,
    operation: `phoenixnap.servers.${path}`,
    summary: `${result} (simcloud's ${action})`,
    params: IdParams,
    body: z.strictObject({}),
    response: ActionResult,
    handle: async (sim, { caller, params }) => {
      await svc.powerAction(sim, caller, ownedServer(sim, caller, params.id).id, action);
      return { result };
    },
  }),
);

async function remove(sim: Sim, caller: Caller, id: string): Promise<ServerRec> {
  const s = ownedServer(sim, caller, id);
  await svc.deleteServer(sim, caller, s.id);
  return s;
}

const IPB_PATH = `${BMC}/servers/:id/network-configuration/ip-block-configurations/ip-blocks`;
const NET_PATH = `${BMC}/servers/:id/network-configuration/private-network-configuration/private-networks`;
const PUB_PATH = `${BMC}/servers/:id/network-configuration/public-network-configuration/public-networks`;

/** bmcapi's ServerPublicNetwork as a request: the addresses come from the IP blocks on the network. */
const PublicNetworkRef = z.strictObject({
  id: z.string().min(1).max(64),
  ips: z.array(Ipv4).max(64).optional(),
  statusDescription: z.string().max(64).optional(),
});

/** The server's membership of a public network: `ips` must be usable addresses of blocks on it, held by no other member. */
async function joinPublic(sim: Sim, caller: Caller, id: string, body: z.infer<typeof PublicNetworkRef>): Promise<z.infer<typeof ServerPublicNetwork>> {
  const s = ownedServer(sim, caller, id);
  const net = ownedPublic(sim, caller, body.id, 'id');
  const attrs = serverAttrsOf(s);
  if (attrs.public_networks.some((m) => m.network_id === net.id)) throw conflict(`server ${id} is already a member of public network ${body.id}`, 'id');
  const usable = new Set(
    blocksOf(sim, caller)
      .filter((b) => b.assigned_to?.kind === 'network' && b.assigned_to.id === net.id)
      .flatMap((b) => b.usable_addresses),
  );
  const held = new Set(membersOf(ownedRecords(sim, caller, 'servers'), net.id).flatMap(({ membership }) => membership.ips));
  const ips = body.ips ?? [];
  ips.forEach((ip, i) => {
    if (!usable.has(ip)) throw invalidField(`ips.${i}`, `${ip} is not a usable address of an IP block on public network ${body.id}`);
    if (held.has(ip) || ips.indexOf(ip) !== i) throw conflict(`${ip} is already held on public network ${body.id}`, `ips.${i}`);
  });
  await svc.updateServerAttrsByAction(sim, caller, s.id, { [NAME]: { ...attrs, public_networks: [...attrs.public_networks, { network_id: net.id, ips }] } });
  return { id: body.id, ips, statusDescription: 'assigning' };
}

const networkRoutes: RouteDef[] = [
  defineRoute({
    method: 'post',
    path: IPB_PATH,
    operation: 'phoenixnap.servers.ip-blocks.add',
    summary: 'Assign an IP block to the server',
    params: IdParams,
    body: ServerIpBlock.strict(),
    response: ServerIpBlock,
    status: 202,
    handle: async (sim, { caller, params, body }) => {
      const s = ownedServer(sim, caller, params.id);
      await ipb.assignIpBlock(sim, caller, ownedBy(sim, caller, 'ip_blocks', { id: body.id, field: 'id' }).id, { kind: 'server', id: s.id });
      return { id: body.id, ...(body.vlanId === undefined ? {} : { vlanId: body.vlanId }) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${IPB_PATH}/:sub`,
    operation: 'phoenixnap.servers.ip-blocks.remove',
    summary: 'Remove an IP block from the server',
    params: SubParams,
    body: Relinquish,
    response: TextResult,
    status: 202,
    handle: async (sim, { caller, params }) => {
      const s = ownedServer(sim, caller, params.id);
      const block = ownedBy(sim, caller, 'ip_blocks', params.sub);
      if (block.assigned_to?.kind !== 'server' || block.assigned_to.id !== s.id)
        throw invalidField('ipBlockId', `IP block ${block.id} is not assigned to server ${s.id}`);
      await ipb.unassignIpBlock(sim, caller, block.id);
      return 'The IP block is being removed from the server.';
    },
  }),
  defineRoute({
    method: 'post',
    path: NET_PATH,
    operation: 'phoenixnap.servers.private-networks.add',
    summary: 'Add the server to a private network',
    params: IdParams,
    body: PrivateNetworkRef,
    response: ServerPrivateNetwork,
    status: 202,
    handle: async (sim, { caller, params, body }) => {
      const s = ownedServer(sim, caller, params.id);
      const ip = body.ips?.[0];
      const net = ownedBy(sim, caller, 'networks', { id: body.id, field: 'id' });
      await svc.attachServer(sim, caller, s.id, { network_id: net.id, ...(ip === undefined ? {} : { ip }) });
      const joined = getOwned(sim, caller, 'servers', s.id).private_networks.find((n) => n.network_id === net.id);
      return { id: body.id, ips: joined === undefined ? [] : [joined.ip], dhcp: false, statusDescription: 'assigning' };
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${NET_PATH}/:sub`,
    operation: 'phoenixnap.servers.private-networks.remove',
    summary: 'Remove the server from a private network',
    params: SubParams,
    response: TextResult,
    status: 202,
    handle: async (sim, { caller, params }) => {
      await svc.detachServer(sim, caller, ownedServer(sim, caller, params.id).id, ownedBy(sim, caller, 'networks', params.sub).id);
      return 'Server removed from the private network.';
    },
  }),
  defineRoute({
    method: 'post',
    path: PUB_PATH,
    operation: 'phoenixnap.servers.public-networks.add',
    summary: 'Add the server to a public network',
    params: IdParams,
    body: PublicNetworkRef,
    response: ServerPublicNetwork,
    status: 202,
    handle: (sim, { caller, params, body }) => joinPublic(sim, caller, params.id, body),
  }),
  defineRoute({
    method: 'delete',
    path: `${PUB_PATH}/:sub`,
    operation: 'phoenixnap.servers.public-networks.remove',
    summary: 'Remove the server from a public network',
    params: SubParams,
    response: TextResult,
    status: 202,
    handle: async (sim, { caller, params }) => {
      const s = ownedServer(sim, caller, params.id);
      const net = ownedPublic(sim, caller, params.sub, 'publicNetworkId');
      const attrs = serverAttrsOf(s);
      if (!attrs.public_networks.some((m) => m.network_id === net.id))
        throw invalidField('publicNetworkId', `server ${params.id} is not a member of public network ${params.sub}`);
      await svc.updateServerAttrsByAction(sim, caller, s.id, {
        [NAME]: { ...attrs, public_networks: attrs.public_networks.filter((m) => m.network_id !== net.id) },
      });
      return 'Server removed from the public network.';
    },
  }),
];

export const serverRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${BMC}/servers`,
    operation: 'phoenixnap.servers.list',
    summary: 'List servers, by tag',
    query: ListQuery,
    response: z.array(Server),
    handle: (sim, { caller, query }) => {
      const match = tagFilter(query.tag);
      const blocks = blocksOf(sim, caller);
      const idOf = tagIdOf(sim, caller);
      return ownedRecords(sim, caller, 'servers')
        .filter((s) => match(s.labels))
        .map((s) => serverView(s, blocks, idOf));
    },
  }),
  defineRoute({
    method: 'post',
    path: `${BMC}/servers`,
    operation: 'phoenixnap.servers.create',
    summary: 'Create a server',
    body: CreateServerBody,
    response: Server,
    handle: (sim, { caller, body }) => create(sim, caller, body),
  }),
  defineRoute({
    method: 'get',
    path: `${BMC}/servers/:id`,
    operation: 'phoenixnap.servers.get',
    summary: 'Get a server',
    params: IdParams,
    response: Server,
    handle: (sim, { caller, params }) => view(sim, caller, ownedServer(sim, caller, params.id)),
  }),
  defineRoute({
    method: 'patch',
    path: `${BMC}/servers/:id`,
    operation: 'phoenixnap.servers.patch',
    summary: 'Rename a server',
    params: IdParams,
    body: PatchBody,
    response: Server,
    handle: async (sim, { caller, params, body }) => {
      const s = ownedServer(sim, caller, params.id);
      if (body.hostname !== undefined) await svc.updateServer(sim, caller, s.id, { name: body.hostname });
      return view(sim, caller, getOwned(sim, caller, 'servers', s.id));
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${BMC}/servers/:id`,
    operation: 'phoenixnap.servers.delete',
    summary: 'Delete a server (deprecated by deprovision)',
    params: IdParams,
    response: DeleteResult,
    handle: async (sim, { caller, params }) => ({ result: 'Server has been deleted', serverId: pnapIdOf((await remove(sim, caller, params.id)).id) }),
  }),
  defineRoute({
    method: 'post',
    path: `${BMC}/servers/:id/actions/deprovision`,
    operation: 'phoenixnap.servers.deprovision',
    summary: 'Deprovision a server',
    params: IdParams,
    body: Relinquish,
    response: TextResult,
    handle: async (sim, { caller, params }) => (await remove(sim, caller, params.id), 'Server has been deprovisioned.'),
  }),
  defineRoute({
    method: 'put',
    path: `${BMC}/servers/:id/tags`,
    operation: 'phoenixnap.servers.tags',
    summary: "Replace a server's tags",
    params: IdParams,
    body: TagRequests,
    response: Server,
    handle: async (sim, { caller, params, body }) => {
      const s = ownedServer(sim, caller, params.id);
      await svc.updateServer(sim, caller, s.id, { labels: labelsOf(body, '') });
      return view(sim, caller, getOwned(sim, caller, 'servers', s.id));
    },
  }),
  ...powerRoutes,
  ...networkRoutes,
];
