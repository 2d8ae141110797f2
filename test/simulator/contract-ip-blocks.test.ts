// IP blocks (allocate, tags, assign, release, exhaustion) through the typed client against a real process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimcloudProcess } from '../helpers/simcloud.ts';
import { apiError, lbBody, startContractProcess, unique } from './support.ts';

let sc: SimcloudProcess;
beforeAll(async () => {
  sc = await startContractProcess(['--seed', 'ip-pool-nearly-exhausted']);
});
afterAll(async () => {
  await sc?.stop();
});

describe('ip blocks', () => {
  it('allocates the last /29 of a nearly exhausted pool, then answers conflict, and release frees it', async () => {
    const seeded = await sc.client.ipBlocks.listAll({ tags: { seed: 'ip-pool-nearly-exhausted' } });
    expect(seeded).toHaveLength(3);
    const cluster = unique('c');
    const block = await sc.client.ipBlocks.allocate({ location: 'sim-1', tags: { cluster, usage: 'lb' }, description: 'vip' });
    expect(block).toMatchObject({ cidr: '127.2.0.24/29', size: 29, gateway: '127.2.0.25', status: 'unassigned', assigned_to: null });
    expect(block.usable_addresses).toEqual(['127.2.0.26', '127.2.0.27', '127.2.0.28', '127.2.0.29', '127.2.0.30']);
    const exhausted = await apiError(() => sc.client.ipBlocks.allocate({ location: 'sim-1' }));
    expect(exhausted).toMatchObject({ code: 'conflict' });
    expect((await sc.client.ipBlocks.list({ tags: { cluster } })).ip_blocks.map((b) => b.id)).toEqual([block.id]);
    expect((await sc.client.ipBlocks.list({ tags: { cluster, usage: 'other' } })).ip_blocks).toEqual([]);
    expect((await sc.client.ipBlocks.list({ location: 'sim-2' })).ip_blocks).toEqual([]);
    await sc.client.ipBlocks.release(block.id);
    expect((await sc.client.ipBlocks.allocate({ location: 'sim-1' })).cidr).toBe('127.2.0.24/29');
  });

  it('updates tags, assigns to an LB (VIP moves) and to a network, unassigns, refuses release while assigned', async () => {
    const [block] = await sc.client.ipBlocks.listAll({ tags: { seed: 'ip-pool-nearly-exhausted' } });
    const tagged = await sc.client.ipBlocks.update(block!.id, { tags: { owner: 'me' } });
    expect(tagged.tags).toEqual({ owner: 'me' });
    const { load_balancer: lb } = await sc.client.loadBalancers.create(lbBody());
    const assigned = await sc.client.ipBlocks.assign(block!.id, { kind: 'load_balancer', id: lb.id });
    expect(assigned).toMatchObject({ status: 'assigned', assigned_to: { kind: 'load_balancer', id: lb.id } });
    expect((await sc.client.loadBalancers.get(lb.id)).public_ipv4).toBe(block!.usable_addresses[0]);
    expect((await apiError(() => sc.client.ipBlocks.release(block!.id))).code).toBe('conflict');
    expect((await apiError(() => sc.client.ipBlocks.assign(block!.id, { kind: 'load_balancer', id: lb.id }))).code).toBe('conflict');
    await sc.client.ipBlocks.unassign(block!.id);
    const vip = (await sc.client.loadBalancers.get(lb.id)).public_ipv4;
    expect(vip).toMatch(/^127\.1\./);
    const net = await sc.client.networks.create({ name: unique('net') });
    expect((await sc.client.ipBlocks.assign(block!.id, { kind: 'network', id: net.id })).assigned_to).toEqual({ kind: 'network', id: net.id });
    await sc.client.ipBlocks.unassign(block!.id);
    expect((await apiError(() => sc.client.ipBlocks.unassign(block!.id))).code).toBe('conflict');
  });

  it('validates location, size and tags', async () => {
    expect((await apiError(() => sc.client.ipBlocks.allocate({ location: 'mars' }))).fields[0]!.name).toBe('location');
    expect((await apiError(() => sc.client.ipBlocks.allocate({ location: 'sim-1', size: 16 }))).fields[0]!.name).toBe('size');
    const badTag = await apiError(() => sc.client.ipBlocks.allocate({ location: 'sim-1', tags: { k: 'a,b' } }));
    expect(badTag.fields[0]!.name).toBe('tags.k');
  });
});
