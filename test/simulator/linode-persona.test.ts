// The Linode persona (/v4) is a view over the one store: an instance or NodeBalancer made through it is the
// same server or load balancer through /v1 (and the reverse), and a NodeBalancer's configs and nodes carry
// real TCP through the data plane, PROXY protocol and health checks included.
import { randomInt } from 'node:crypto';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../sandbox/wait.ts';
import { linodeCaller, linodeSimcloud } from './linode-support.ts';
import { serverBody, tcpAsk, tcpService, unique } from './support.ts';

const { sim, stops } = linodeSimcloud();
const linode = linodeCaller(sim);

const num = (id: string): number => Number(id.replace(/^[a-z]+-0*/, ''));

/** A TCP server on ip:port answering `name` (after recording what it got) to every connection. */
function backend(ip: string, port: number, name: string): Promise<Buffer[]> {
  const received: Buffer[] = [];
  const server = net.createServer((s) => {
    s.on('error', () => undefined);
    s.once('data', (d: Buffer) => {
      received.push(d);
      s.end(`${name}\n`);
    });
  });
  stops.push(() => server.close());
  return new Promise((resolve, reject) => server.once('error', reject).listen(port, ip, () => resolve(received)));
}

describe('Linode persona over the one store', () => {
  it('shows an instance made through /v4 as the same server through /v1, tags as labels', async () => {
    const created = await linode<{ id: number; label: string }>('POST', '/linode/instances', {
      region: 'sim-1',
      type: 'sc-small',
      label: unique('lin'),
      tags: ['team=a', 'web'],
    });
    expect(created.status).toBe(200);
    const server = await sim().client.servers.get(`srv-${String(created.body.id).padStart(8, '0')}`);
    expect(server.name).toBe(created.body.label);
    expect(server.labels).toEqual({ team: 'a', web: '' });
    await sim().client.servers.update(server.id, { labels: { team: 'b' } });
    expect((await linode<{ tags: string[] }>('GET', `/linode/instances/${created.body.id}`)).body.tags).toEqual(['team=b']);
  });

  it('shows a /v1 load balancer as a NodeBalancer with one config per service and its targets as nodes', async () => {
    const { server, action } = await sim().client.servers.create(serverBody());
    await sim().client.waitForAction(action.id);
    const { load_balancer: lb } = await sim().client.loadBalancers.create({
      name: unique('lb'),
      services: [tcpService(8080, 31000)],
      targets: [{ kind: 'server', server_id: server.id }],
    });
    const nb = await linode<{ ipv4: string; label: string }>('GET', `/nodebalancers/${num(lb.id)}`);
    expect(nb.body).toMatchObject({ ipv4: lb.public_ipv4, label: lb.name });
    const configs = await linode<{ data: { id: number; port: number; protocol: string }[] }>('GET', `/nodebalancers/${num(lb.id)}/configs`);
    expect(configs.body.data).toMatchObject([{ port: 8080, protocol: 'tcp' }]);
    const nodes = await linode<{ data: { address: string }[] }>('GET', `/nodebalancers/${num(lb.id)}/configs/${configs.body.data[0]!.id}/nodes`);
    expect(nodes.body.data.map((n) => n.address)).toEqual([`${server.public_ipv4}:31000`]);
  });

  it('carries TCP through a NodeBalancer made through /v4, with PROXY protocol, and reports its nodes UP', async () => {
    const servers = [];
    for (const i of [0, 1]) {
      const { server, action } = await sim().client.servers.create(serverBody({ name: unique(`nb-be${i}`) }));
      await sim().client.waitForAction(action.id);
      servers.push(server);
    }
    const port = randomInt(20_000, 30_000);
    const received = await Promise.all(servers.map((s) => backend(s.public_ipv4!, port, s.name)));
    const nodes = servers.map((s) => ({ address: `${s.public_ipv4}:${port}`, label: s.name }));
    const listen = randomInt(30_000, 40_000);
    const created = await linode<{ id: number; ipv4: string }>('POST', '/nodebalancers', {
      region: 'sim-1',
      label: unique('nb'),
      tags: ['kubernetes'],
      configs: [{ port: listen, protocol: 'tcp', proxy_protocol: 'v1', check: 'connection', check_interval: 2, check_timeout: 1, check_attempts: 1, nodes }],
    });
    expect(created.status).toBe(200);
    const lb = await sim().client.loadBalancers.get(`lb-${String(created.body.id).padStart(8, '0')}`);
    expect(lb.services).toMatchObject([{ listen_port: listen, destination_port: port, proxy_protocol: 'v1' }]);
    expect(lb.targets).toEqual(servers.map((s) => ({ kind: 'ip', ip: s.public_ipv4 })));
    const [config] = (await linode<{ data: { id: number }[] }>('GET', `/nodebalancers/${created.body.id}/configs`)).body.data;
    const statuses = async (): Promise<string[]> =>
      (await linode<{ data: { status: string }[] }>('GET', `/nodebalancers/${created.body.id}/configs/${config!.id}/nodes`)).body.data.map((n) => n.status);
    await waitFor(async () => (await statuses()).every((s) => s === 'UP'), { timeoutMs: 15_000, description: 'both nodes UP' });
    const replies = new Set<string>();
    for (let i = 0; i < 4; i++) replies.add(await tcpAsk(created.body.ipv4, listen));
    expect([...replies].sort()).toEqual(servers.map((s) => s.name).sort());
    const first = received.flat().map((b) => b.toString())[0];
    expect(first).toMatch(new RegExp(`^PROXY TCP4 127\\.0\\.0\\.1 ${created.body.ipv4.replace(/\./g, '\\.')} \\d+ ${listen}\\r\\n`));
  });

  it('enforces a firewall on a NodeBalancer on its VIP: closed to sources outside the rules, open once they allow loopback', async () => {
    const { server, action } = await sim().client.servers.create(serverBody());
    await sim().client.waitForAction(action.id);
    const port = randomInt(20_000, 30_000);
    await backend(server.public_ipv4!, port, server.name);
    const listen = randomInt(30_000, 40_000);
    const nb = (
      await linode<{ id: number; ipv4: string }>('POST', '/nodebalancers', {
        region: 'sim-1',
        label: unique('nbfw'),
        configs: [{ port: listen, protocol: 'tcp', check: 'connection', nodes: [{ address: `${server.public_ipv4}:${port}`, label: 'backend' }] }],
      })
    ).body;
    const rules = (cidr: string) => ({
      inbound: [{ action: 'ACCEPT', label: 'acl', protocol: 'TCP', ports: String(listen), addresses: { ipv4: [cidr] } }],
      inbound_policy: 'DROP',
      outbound_policy: 'ACCEPT',
    });
    const fw = await linode<{ id: number }>('POST', '/networking/firewalls', {
      label: unique('fw'),
      rules: rules('10.0.0.0/8'),
      devices: { nodebalancers: [nb.id] },
    });
    expect(fw.status, JSON.stringify(fw.body)).toBe(200);
    expect((await sim().client.loadBalancers.get(`lb-${String(nb.id).padStart(8, '0')}`)).source_ranges).toEqual(['10.0.0.0/8']);
    await waitFor(async () => (await tcpAsk(nb.ipv4, listen)) === '', { timeoutMs: 10_000, description: 'the VIP refusing loopback' });
    expect((await linode('PUT', `/networking/firewalls/${fw.body.id}/rules`, rules('127.0.0.0/8'))).status).toBe(200);
    await waitFor(async () => (await tcpAsk(nb.ipv4, listen)) === server.name, { timeoutMs: 10_000, description: 'the VIP serving loopback' });
  });
  it("routes a vpc interface's ip_range set through /v4 as a /v1 route to its address, and shows a /v1 route as an ip_range", async () => {
    const vpc = await linode<{ id: number; subnets: { id: number }[] }>('POST', '/vpcs', {
      label: unique('vpc'),
      region: 'sim-1',
      subnets: [{ label: 'nodes', ipv4: '10.210.0.0/24' }],
    });
    expect(vpc.status, JSON.stringify(vpc.body)).toBe(200);
    const created = await linode<{ id: number }>('POST', '/linode/instances', {
      region: 'sim-1',
      type: 'sc-small',
      label: unique('vpc-node'),
      interfaces: [{ purpose: 'vpc', subnet_id: vpc.body.subnets[0]!.id }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.id;
    const netId = `net-${String(vpc.body.id).padStart(8, '0')}`;
    const server = await sim().client.servers.get(`srv-${String(id).padStart(8, '0')}`);
    const ip = server.private_networks.find((p) => p.network_id === netId)!.ip;
    const put = await linode('PUT', `/linode/instances/${id}/configs/${id}/interfaces/${vpc.body.id}`, { ip_ranges: ['10.244.7.0/24'] });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await sim().client.networks.get(netId)).routes.map((r) => [r.destination, r.gateway])).toEqual([['10.244.7.0/24', ip]]);
    const { action } = await sim().client.networks.createRoute(netId, { destination: '10.244.8.0/24', gateway: ip });
    await sim().client.waitForAction(action.id);
    const configs = await linode<{ data: { interfaces: { ip_ranges: string[] }[] }[] }>('GET', `/linode/instances/${id}/configs`);
    expect(configs.body.data[0]!.interfaces[0]!.ip_ranges).toEqual(['10.244.7.0/24', '10.244.8.0/24']);
    expect((await linode('PUT', `/linode/instances/${id}/configs/${id}/interfaces/${vpc.body.id}`, { ip_ranges: [] })).status).toBe(200);
    expect((await sim().client.networks.get(netId)).routes).toEqual([]);
    // Deleting the instance through /v4 takes its vpc interface's ip_ranges with it, as on Linode (Linode's
    // CCM cannot delete the range of an instance that is gone: its DeleteRoute looks the instance up).
    expect((await linode('PUT', `/linode/instances/${id}/configs/${id}/interfaces/${vpc.body.id}`, { ip_ranges: ['10.244.9.0/24'] })).status).toBe(200);
    expect((await linode('DELETE', `/linode/instances/${id}`)).status).toBe(200);
    expect((await sim().client.networks.get(netId)).routes).toEqual([]);
  });
});
