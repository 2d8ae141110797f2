/**
 * phoenixNAP-style steps for strategy `ip-block`: one /29 IP block per Service, tagged `usage`, `cluster` and
 * `service` (`<namespace>.<name>`, since tags cannot hold `/`) plus `service-uid`; the VIP is the block's third
 * address. `spec.loadBalancerIP` selects an existing block (the one whose VIP, or range, holds that address).
 */
import type { V1Service } from '@kubernetes/client-node';
import type { IpBlock } from '../../../simulator/api/schema/index.ts';
import { callOptions, deleteIgnoringNotFound, unlessNotFound } from '../client.ts';
import { cidrContains, nthAddress } from '../../../lib/ip.ts';
import type { OpsContext, Reconciled } from './load-balancer.ts';
import { IP_BLOCK_USAGE, ipBlockTags, serviceKey, serviceUid } from './naming.ts';

export const IP_BLOCK_SIZE = 29;
/** phoenixNAP puts the block's third address (index 2) in `loadBalancerIP`. */
export const VIP_INDEX = 2;

export function blockVip(block: IpBlock): string {
  return nthAddress(block.cidr, VIP_INDEX);
}

/** Tags for lookup: the cluster and the Service UID identify the block. */
function lookupTags(ops: OpsContext, service: V1Service): Record<string, string> {
  return { usage: IP_BLOCK_USAGE, cluster: ops.clusterName, 'service-uid': serviceUid(service) };
}

/**
 * The Service's block by tags, else by `knownId` (a block this process allocated: lists may not show a new
 * block yet, and IP blocks have no unique name to make a second allocation fail).
 */
export async function findIpBlock(ops: OpsContext, service: V1Service, knownId?: string): Promise<IpBlock | undefined> {
  const blocks = await ops.client.ipBlocks.listAll({ tags: lookupTags(ops, service) }, callOptions(ops.ctx));
  const found = blocks.find((b) => b.tags['service-uid'] === serviceUid(service));
  if (found || knownId === undefined) return found;
  const known = await unlessNotFound(() => ops.client.ipBlocks.get(knownId, callOptions(ops.ctx)));
  return known?.tags['service-uid'] === serviceUid(service) ? known : undefined;
}

async function selectBlock(ops: OpsContext, service: V1Service, requestedIp: string): Promise<IpBlock> {
  const blocks = await ops.client.ipBlocks.listAll({}, callOptions(ops.ctx));
  const block = blocks.find((b) => blockVip(b) === requestedIp) ?? blocks.find((b) => cidrContains(b.cidr, requestedIp));
  if (!block) throw new Error(`spec.loadBalancerIP ${requestedIp} of ${serviceKey(service)} is in no IP block of the project`);
  if (blockVip(block) !== requestedIp)
    throw new Error(`spec.loadBalancerIP ${requestedIp}: the VIP of block ${block.cidr} is its third address ${blockVip(block)}`);
  const owner = block.tags['service-uid'];
  if (owner !== undefined && owner !== serviceUid(service))
    throw new Error(`spec.loadBalancerIP ${requestedIp}: block ${block.id} belongs to service ${block.tags.service ?? owner}`);
  return block;
}

/**
 * Finds or allocates the Service's block; an adopted id or `loadBalancerIP` selects an existing one, which is
 * then tagged as the Service's.
 */
export async function ensureIpBlock(
  ops: OpsContext,
  service: V1Service,
  want: { readonly adoptId: string | undefined; readonly requestedIp: string | undefined; readonly location: () => Promise<string>; readonly knownId?: string },
): Promise<Reconciled<IpBlock>> {
  const opts = callOptions(ops.ctx);
  const tags = ipBlockTags(ops.clusterName, service);
  const owned = await findIpBlock(ops, service, want.knownId);
  let block = owned;
  if (!block && want.adoptId !== undefined) {
    const adoptId = want.adoptId;
    block = await unlessNotFound(() => ops.client.ipBlocks.get(adoptId, opts));
    if (!block) throw new Error(`loadbalancer.simcloud.dev/load-balancer-id: IP block ${adoptId} does not exist`);
  }
  if (!block && want.requestedIp !== undefined) block = await selectBlock(ops, service, want.requestedIp);
  if (!block) {
    const allocated = await ops.client.ipBlocks.allocate(
      { location: await want.location(), size: IP_BLOCK_SIZE, description: `load balancer VIP of ${serviceKey(service)}`, tags },
      opts,
    );
    return { resource: allocated, changed: true };
  }
  if (Object.entries(tags).every(([k, v]) => block.tags[k] === v)) return { resource: block, changed: false };
  const tagged = await ops.client.ipBlocks.update(block.id, { tags: { ...block.tags, ...tags } }, opts);
  return { resource: tagged, changed: true };
}

/** Unassigns and releases the block; tolerates not_found. */
export async function releaseIpBlock(ops: OpsContext, block: IpBlock): Promise<void> {
  const opts = callOptions(ops.ctx);
  if (block.assigned_to !== null) await deleteIgnoringNotFound(() => ops.client.ipBlocks.unassign(block.id, opts));
  await deleteIgnoringNotFound(() => ops.client.ipBlocks.release(block.id, opts).then(() => true));
}
