// Linode's reserved IPv4 addresses over simcloud's IP blocks, reached through /v4beta as Linode's CCM e2e
// scripts reach them: a reserved address is a /v1 block of one address, a NodeBalancer created on it serves
// real TCP there, it outlives its NodeBalancer and no pool VIP takes it; a NodeBalancer's VIP can be reserved in
// place; an address that is not reserved is refused in Linode's words. Also /v4beta NodeBalancers with `vpcs`,
// their VPC configs and their plan type.
import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../sandbox/wait.ts';
import { linodeCaller, linodeSimcloud } from './linode-support.ts';
import { serverBody, tcpAsk, tcpBackend, unique } from './support.ts';

const { sim, stops } = linodeSimcloud();
const beta = linodeCaller(sim, '/v4beta');
const v4 = linodeCaller(sim);
const pad = (n: number): string => String(n).padStart(8, '0');

interface Address {
  address: string;
  reserved: boolean;
  tags: string[];
  region: string;
  assigned_entity: { id: number; type: string } | null;
}
interface Nb {
  id: number;
  ipv4: string;
  type: string;
}

/** A server answering its name on a random port, and the node body that points a config at it. */
async function node(): Promise<{ name: string; nodes: { address: string; label: string }[] }> {
  const { server, action } = await sim().client.servers.create(serverBody());
  await sim().client.waitForAction(action.id);
  const port = randomInt(20_000, 30_000);
  const b = await tcpBackend(server.public_ipv4!, port, server.name);
  stops.push(b.stop);
  return { name: server.name, nodes: [{ address: `${server.public_ipv4}:${port}`, label: 'backend' }] };
}

describe('Linode reserved IPv4 addresses', () => {
  it('reserves an address as a /v1 block of one, serves a NodeBalancer created on it, and keeps it when the NodeBalancer goes', async () => {
    const reserved = await beta<Address>('POST', '/networking/reserved/ips', { region: 'sim-1', tags: ['ccm-e2e'] });
    expect(reserved.status, JSON.stringify(reserved.body)).toBe(200);
    const ip = reserved.body.address;
    expect(reserved.body).toMatchObject({ reserved: true, tags: ['ccm-e2e'], region: 'sim-1', assigned_entity: null });
    const blocks = await sim().client.ipBlocks.list();
    expect(blocks.ip_blocks.filter((b) => b.cidr === `${ip}/32`)).toMatchObject([{ size: 32, usable_addresses: [ip], tags: { 'ccm-e2e': '' } }]);
    const listed = await beta<{ data: Address[] }>('GET', '/networking/reserved/ips');
    expect(listed.body.data.map((a) => a.address)).toContain(ip);
    expect((await beta<Address>('PUT', `/networking/reserved/ips/${ip}`, { tags: ['a', 'b'] })).body.tags).toEqual(['a', 'b']);

    const backend = await node();
    const listen = randomInt(30_000, 40_000);
    const nb = await beta<Nb>('POST', '/nodebalancers', {
      region: 'sim-1',
      label: unique('nbr'),
      ipv4: ip,
      configs: [{ port: listen, protocol: 'tcp', check: 'connection', nodes: backend.nodes }],
    });
    expect(nb.status, JSON.stringify(nb.body)).toBe(200);
    expect(nb.body.ipv4).toBe(ip);
    await waitFor(async () => (await tcpAsk(ip, listen)) === backend.name, { timeoutMs: 15_000, description: 'the reserved VIP serving' });
    expect((await v4<Address>('GET', `/networking/reserved/ips/${ip}`)).body.assigned_entity).toMatchObject({ id: nb.body.id, type: 'nodebalancer' });

    expect((await beta('DELETE', `/nodebalancers/${nb.body.id}`)).status).toBe(200);
    expect((await beta<Address>('GET', `/networking/reserved/ips/${ip}`)).body).toMatchObject({ address: ip, reserved: true, assigned_entity: null });
    await waitFor(async () => (await tcpAsk(ip, listen)) === '', { timeoutMs: 15_000, description: 'the VIP closed with its NodeBalancer' });
    const again = await beta<Nb>('POST', '/nodebalancers', { region: 'sim-1', label: unique('nbr'), ipv4: ip });
    expect(again.body.ipv4).toBe(ip);
    expect((await beta('DELETE', `/nodebalancers/${again.body.id}`)).status).toBe(200);

    expect((await beta('DELETE', `/networking/reserved/ips/${ip}`)).status).toBe(200);
    expect((await beta('GET', `/networking/reserved/ips/${ip}`)).body).toEqual({ errors: [{ reason: 'Not found' }] });
  });

  it("reserves a NodeBalancer's VIP in place: no pool VIP takes it once the NodeBalancer is gone, and a new NodeBalancer can", async () => {
    const first = await beta<Nb>('POST', '/nodebalancers', { region: 'sim-1', label: unique('nbp') });
    const ip = first.body.ipv4;
    const put = await beta<Address>('PUT', `/networking/ips/${ip}`, { reserved: true });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ address: ip, reserved: true, assigned_entity: { id: first.body.id, type: 'nodebalancer' } });
    expect((await beta('DELETE', `/nodebalancers/${first.body.id}`)).status).toBe(200);
    const { load_balancer: lb, action } = await sim().client.loadBalancers.create({ name: unique('pool'), services: [] });
    await sim().client.waitForAction(action.id);
    expect(lb.public_ipv4).not.toBe(ip);
    const second = await beta<Nb>('POST', '/nodebalancers', { region: 'sim-1', label: unique('nbp'), ipv4: ip });
    expect(second.body.ipv4).toBe(ip);
    // Giving the reservation up leaves the address with its NodeBalancer, no longer reserved.
    expect((await beta('DELETE', `/networking/reserved/ips/${ip}`)).status).toBe(200);
    expect((await v4<Nb>('GET', `/nodebalancers/${second.body.id}`)).body.ipv4).toBe(ip);
    expect((await beta<Address>('GET', `/networking/ips/${ip}`)).body).toMatchObject({ reserved: false, assigned_entity: { id: second.body.id } });
  });

  it("hands a released reserved address or a deleted NodeBalancer's VIP to nobody next: a second DELETE of it stays a 404", async () => {
    const first = (await beta<Address>('POST', '/networking/reserved/ips', { region: 'sim-1' })).body.address;
    expect((await beta('DELETE', `/networking/reserved/ips/${first}`)).status).toBe(200);
    const second = await beta<Address>('POST', '/networking/reserved/ips', { region: 'sim-1' });
    expect(second.body.address).not.toBe(first);
    // A client's second release of the address it held does not take the new reservation away.
    expect((await beta('DELETE', `/networking/reserved/ips/${first}`)).status).toBe(404);
    expect((await beta<Address>('GET', `/networking/reserved/ips/${second.body.address}`)).status).toBe(200);

    const nb = (await v4<Nb>('POST', '/nodebalancers', { region: 'sim-1', label: unique('nb') })).body;
    expect((await v4('DELETE', `/nodebalancers/${nb.id}`)).status).toBe(200);
    const next = (await v4<Nb>('POST', '/nodebalancers', { region: 'sim-1', label: unique('nb') })).body;
    expect(next.ipv4).not.toBe(nb.ipv4);
    expect((await v4<{ data: Nb[] }>('GET', '/nodebalancers')).body.data.filter((n) => n.ipv4 === nb.ipv4)).toEqual([]);
    await v4('DELETE', `/nodebalancers/${next.id}`);
    await beta('DELETE', `/networking/reserved/ips/${second.body.address}`);
  });

  it("refuses an address that is not reserved, a malformed one and one already in use, in Linode's envelope", async () => {
    const pool = await beta<Nb>('POST', '/nodebalancers', { region: 'sim-1', label: unique('nbx') });
    const unreserved = await beta('POST', '/nodebalancers', { region: 'sim-1', label: unique('nbx'), ipv4: '127.250.1.1' });
    expect(unreserved).toEqual({ status: 400, body: { errors: [{ reason: 'IPv4 address is not reserved' }] } });
    expect((await beta('POST', '/nodebalancers', { region: 'sim-1', ipv4: '100.1000.1000.1000' })).body).toEqual({
      errors: [{ reason: 'Invalid IPv4 address' }],
    });
    const reserved = (await beta<Address>('POST', '/networking/reserved/ips', { region: 'sim-1' })).body.address;
    await beta('POST', '/nodebalancers', { region: 'sim-1', label: unique('nbx'), ipv4: reserved });
    const taken = await beta<{ errors: { field: string }[] }>('POST', '/nodebalancers', { region: 'sim-1', label: unique('nbx'), ipv4: reserved });
    expect(taken.status).toBe(400);
    expect(taken.body.errors[0]!.field).toBe('ipv4');
    expect((await beta<{ errors: { field: string }[] }>('POST', '/networking/reserved/ips', { region: 'nowhere' })).body.errors[0]!.field).toBe('region');
    expect((await beta<{ errors: { field: string }[] }>('PUT', `/networking/ips/${pool.body.ipv4}`, { rdns: 'x.example' })).body.errors[0]!.field).toBe('rdns');
  });
});

describe('Linode /v4beta NodeBalancers', () => {
  it('creates one with vpcs on a subnet, lists that VPC config, and shows its plan type', async () => {
    const vpc = await v4<{ id: number; subnets: { id: number }[] }>('POST', '/vpcs', {
      label: unique('vpc'),
      region: 'sim-1',
      subnets: [{ label: 'nodes', ipv4: '10.211.0.0/24' }],
    });
    expect(vpc.status, JSON.stringify(vpc.body)).toBe(200);
    const subnet = vpc.body.subnets[0]!.id;
    const nb = await beta<Nb>('POST', '/nodebalancers', { region: 'sim-1', label: unique('nbv'), type: 'premium', vpcs: [{ subnet_id: subnet }] });
    expect(nb.status, JSON.stringify(nb.body)).toBe(200);
    expect(nb.body.type).toBe('premium');
    const configs = await beta<{ data: { nodebalancer_id: number; subnet_id: number; vpc_id: number; ipv4_range: string; id: number }[] }>(
      'GET',
      `/nodebalancers/${nb.body.id}/vpcs`,
    );
    expect(configs.body.data).toMatchObject([{ nodebalancer_id: nb.body.id, subnet_id: subnet, vpc_id: vpc.body.id }]);
    expect(configs.body.data[0]!.ipv4_range).toMatch(/^10\.211\.0\.\d+\/32$/);
    const lb = await sim().client.loadBalancers.get(`lb-${pad(nb.body.id)}`);
    expect(lb.network_id).toBe(`net-${pad(vpc.body.id)}`);
    expect((await v4('GET', `/nodebalancers/${nb.body.id}/vpcs/${configs.body.data[0]!.id}`)).body).toEqual(configs.body.data[0]);
    const plain = await v4<Nb>('POST', '/nodebalancers', { region: 'sim-1', label: unique('nbv') });
    expect(plain.body.type).toBe('common');
    expect((await v4<{ data: unknown[] }>('GET', `/nodebalancers/${plain.body.id}/vpcs`)).body.data).toEqual([]);
    const bad = await beta<{ errors: { field: string }[] }>('POST', '/nodebalancers', { region: 'sim-1', vpcs: [{ subnet_id: 999_999 }] });
    expect(bad.status).toBe(404);
    expect(bad.body.errors[0]!.field).toBe('vpcs.0.subnet_id');
  });
});
