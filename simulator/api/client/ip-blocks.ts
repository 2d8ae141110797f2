/** IP blocks: `client.ipBlocks.*`. */
import type { ListMeta } from '../schema/common.ts';
import {
  IpBlockListResponse,
  IpBlockResponse,
  type AllocateIpBlockRequest,
  type AssignmentKind,
  type IpBlock,
  type IpBlockListParams,
  type UpdateIpBlockRequest,
} from '../schema/ip-blocks.ts';
import { collectPages, seg, type CallOptions, type Requester } from './requester.ts';

export interface IpBlockListOptions extends Omit<IpBlockListParams, 'tags'> {
  /** Every given tag must match. */
  tags?: Record<string, string>;
}

const tagQuery = (tags: Record<string, string> | undefined): string | undefined =>
  tags === undefined || Object.keys(tags).length === 0
    ? undefined
    : Object.entries(tags)
        .map(([k, v]) => `${k}=${v}`)
        .join(',');

export class IpBlocksClient {
  readonly #r: Requester;
  constructor(r: Requester) {
    this.#r = r;
  }

  async list(params: IpBlockListOptions = {}, opts?: CallOptions): Promise<{ ip_blocks: IpBlock[]; meta: ListMeta }> {
    const query = { ...params, tags: tagQuery(params.tags) };
    return this.#r.call('ipBlocks.list', IpBlockListResponse, { method: 'GET', path: '/v1/ip_blocks', query }, opts);
  }

  async listAll(params: Omit<IpBlockListOptions, 'page'> = {}, opts?: CallOptions): Promise<IpBlock[]> {
    return collectPages(async (page) => {
      const r = await this.list({ per_page: 500, ...params, page }, opts);
      return { items: r.ip_blocks, meta: r.meta };
    });
  }

  async get(id: string, opts?: CallOptions): Promise<IpBlock> {
    return (await this.#r.call('ipBlocks.get', IpBlockResponse, { method: 'GET', path: `/v1/ip_blocks/${seg(id)}` }, opts)).ip_block;
  }

  /** conflict (`pool exhausted`) when no block of that size is free. */
  async allocate(body: AllocateIpBlockRequest, opts?: CallOptions): Promise<IpBlock> {
    return (await this.#r.call('ipBlocks.allocate', IpBlockResponse, { method: 'POST', path: '/v1/ip_blocks', body }, opts)).ip_block;
  }

  /** Replaces tags and/or description. */
  async update(id: string, body: UpdateIpBlockRequest, opts?: CallOptions): Promise<IpBlock> {
    return (await this.#r.call('ipBlocks.update', IpBlockResponse, { method: 'PATCH', path: `/v1/ip_blocks/${seg(id)}`, body }, opts)).ip_block;
  }

  /** Assigns the block to a load balancer (its VIP becomes the first usable address) or a network. */
  async assign(id: string, target: { kind: AssignmentKind; id: string }, opts?: CallOptions): Promise<IpBlock> {
    const path = `/v1/ip_blocks/${seg(id)}/actions/assign`;
    return (await this.#r.call('ipBlocks.assign', IpBlockResponse, { method: 'POST', path, body: target }, opts)).ip_block;
  }

  async unassign(id: string, opts?: CallOptions): Promise<IpBlock> {
    const path = `/v1/ip_blocks/${seg(id)}/actions/unassign`;
    return (await this.#r.call('ipBlocks.unassign', IpBlockResponse, { method: 'POST', path, body: {} }, opts)).ip_block;
  }

  /** Returns the block to the pool; conflict while assigned. */
  async release(id: string, opts?: CallOptions): Promise<void> {
    await this.#r.callVoid('ipBlocks.release', { method: 'DELETE', path: `/v1/ip_blocks/${seg(id)}` }, opts);
  }
}
