// The Linode persona presents the store's loopback private addresses as Linode's 192.168.128.0/17 (ADR 0013)
// and takes every address it is sent back: an instance's private address, its VPC address and subnet show in
// that block, a NodeBalancer node given as 192.168.x.y:port targets (and carries TCP to) the loopback address
// behind it, and a firewall address in the block guards the loopback one. Nothing below the persona sees a
// 192.168 address.
import { randomInt } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../sandbox/wait.ts';
import { startSimcloudOnOwnPlan, type InProcessSimcloud } from '../helpers/simcloud.ts';
import { linodeCaller } from './linode-support.ts';
import { unique } from './support.ts';

/** The private-network pool's second octet (the persona presents its /16 in another block, ADR 0013). */
let privateOctet = 0;
let sc: InProcessSimcloud;
const stops: (() => void)[] = [];
beforeAll(async () => {
  const own = await startSimcloudOnOwnPlan({ clientOptions: { retry: { maxRetries: 0 } } });
  privateOctet = Number(own.pools.private_networks.split('.')[1]);
  sc = own;
});
afterAll(async () => {
  for (const stop of stops) stop();
  await sc?.stop();
});

const linode = linodeCaller(() => sc);

const pad = (n: number): string => String(n).padStart(8, '0');

/** 127.P.a.b as Linode shows it: as the private IPv4, or as the VPC address. */
const presented = (ip: string): string => {
  const [, , a, b] = ip.split('.').map(Number);
  return `192.168.${128 + a!}.${b!}`;
};
const inVpc = (ip: string): string => ip.replace(/^127\.\d+\./, '10.0.');

function backend(ip: string, port: number, name: string): Promise<void> {
  const server = net.createServer((s) => {
    s.on('error', () => undefined);
    s.end(`${name}\n`);
  });
  stops.push(() => server.close());
  return new Promise((resolve, reject) => server.once('error', reject).listen(port, ip, () => resolve()));
}

function request(ip: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    const s = net.connect({ host: ip, port });
    s.on('data', (d) => (data += d.toString()));
    s.on('close', () => resolve(data.trim()));
    s.on('error', () => resolve(data.trim()));
    s.setTimeout(3000, () => s.destroy());
  });
}

/** An instance on a VPC over a /v1 network of the private pool; its store (loopback) private address. */
async function instanceOnVpc(): Promise<{ id: number; vpcId: number; loopback: string }> {
  const network = await sc.client.networks.create({ name: unique('net') });
  const vpc = await linode<{ id: number; subnets: { id: number; label: string; ipv4: string }[] }>('GET', `/vpcs/${Number(network.id.replace(/\D/g, ''))}`);
  expect(vpc.body.subnets[0]!.label).toBe('default');
  const created = await linode<{ id: number }>('POST', '/linode/instances', {
    region: 'sim-1',
    type: 'sc-small',
    label: unique('lin'),
    interfaces: [{ purpose: 'public' }, { purpose: 'vpc', subnet_id: vpc.body.subnets[0]!.id }],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const server = await sc.client.servers.get(`srv-${pad(created.body.id)}`);
  return { id: created.body.id, vpcId: vpc.body.id, loopback: server.private_networks[0]!.ip };
}

describe('Linode persona: presented private addresses', () => {
  it('shows a loopback private address as 192.168.(128+a).b in the instance, its ips, its VPC and its subnet', async () => {
    const { id, vpcId, loopback } = await instanceOnVpc();
    expect(loopback.startsWith(`127.${privateOctet}.`)).toBe(true);
    const shown = presented(loopback);
    expect((await linode<{ ipv4: string[] }>('GET', `/linode/instances/${id}`)).body.ipv4).toContain(shown);
    const ips = await linode<{ ipv4: { private: { address: string }[] } }>('GET', `/linode/instances/${id}/ips`);
    expect(ips.body.ipv4.private.map((p) => p.address)).toEqual([shown]);
    const vpcIps = await linode<{ data: { address: string | null }[] }>('GET', `/vpcs/${vpcId}/ips`);
    expect(vpcIps.body.data.map((x) => x.address)).toEqual([inVpc(loopback)]);
    const subnets = await linode<{ data: { ipv4: string }[] }>('GET', `/vpcs/${vpcId}/subnets`);
    expect(subnets.body.data[0]!.ipv4).toMatch(/^10\.0\.\d+\.\d+\/\d+$/);
  });

  it('takes NodeBalancer nodes at 192.168.x.y:port or a VPC address to the loopback address, which carries the traffic', async () => {
    const { loopback } = await instanceOnVpc();
    const port = randomInt(20_000, 30_000);
    await backend(loopback, port, 'behind-the-presented-address');
    const listen = randomInt(30_000, 40_000);
    const nb = await linode<{ id: number; ipv4: string }>('POST', '/nodebalancers', {
      region: 'sim-1',
      label: unique('nb'),
      configs: [{ port: listen, protocol: 'tcp', check: 'connection', nodes: [{ address: `${presented(loopback)}:${port}`, label: 'node-a' }] }],
    });
    expect(nb.status, JSON.stringify(nb.body)).toBe(200);
    const lb = await sc.client.loadBalancers.get(`lb-${pad(nb.body.id)}`);
    expect(lb.targets).toEqual([{ kind: 'ip', ip: loopback }]);
    const [config] = (await linode<{ data: { id: number }[] }>('GET', `/nodebalancers/${nb.body.id}/configs`)).body.data;
    const nodes = await linode<{ data: { address: string }[] }>('GET', `/nodebalancers/${nb.body.id}/configs/${config!.id}/nodes`);
    expect(nodes.body.data.map((n) => n.address)).toEqual([`${presented(loopback)}:${port}`]);
    await waitFor(async () => (await request(nb.body.ipv4, listen)) === 'behind-the-presented-address', {
      timeoutMs: 10_000,
      description: 'traffic through the VIP',
    });
    // A CCM in VPC mode gives the node's VPC address (with its subnet): the same loopback target, shown as sent.
    const vpcNb = await linode<{ id: number; ipv4: string }>('POST', '/nodebalancers', {
      region: 'sim-1',
      label: unique('nbvpc'),
      configs: [{ port: listen, protocol: 'tcp', check: 'connection', nodes: [{ address: `${inVpc(loopback)}:${port}`, label: 'node-a' }] }],
    });
    expect(vpcNb.status, JSON.stringify(vpcNb.body)).toBe(200);
    expect((await sc.client.loadBalancers.get(`lb-${pad(vpcNb.body.id)}`)).targets).toEqual([{ kind: 'ip', ip: loopback }]);
    const [vpcConfig] = (await linode<{ data: { id: number }[] }>('GET', `/nodebalancers/${vpcNb.body.id}/configs`)).body.data;
    const vpcNodes = await linode<{ data: { address: string }[] }>('GET', `/nodebalancers/${vpcNb.body.id}/configs/${vpcConfig!.id}/nodes`);
    expect(vpcNodes.body.data.map((n) => n.address)).toEqual([`${inVpc(loopback)}:${port}`]);
    await waitFor(async () => (await request(vpcNb.body.ipv4, listen)) === 'behind-the-presented-address', {
      timeoutMs: 10_000,
      description: 'traffic through the VPC NodeBalancer',
    });
  });

  it('takes a firewall address in 192.168.128.0/17 back to loopback and shows it presented', async () => {
    const { loopback } = await instanceOnVpc();
    const fw = await linode<{ id: number; rules: { inbound: { addresses: { ipv4: string[] } }[] } }>('POST', '/networking/firewalls', {
      label: unique('fw'),
      rules: {
        inbound: [{ action: 'ACCEPT', label: 'acl', protocol: 'TCP', ports: '80', addresses: { ipv4: [presented(loopback), '127.0.0.1'] } }],
        inbound_policy: 'DROP',
        outbound_policy: 'ACCEPT',
      },
    });
    expect(fw.status, JSON.stringify(fw.body)).toBe(200);
    expect(fw.body.rules.inbound[0]!.addresses.ipv4).toEqual([`${presented(loopback)}/32`, '127.0.0.1/32']);
    const policy = await sc.client.firewallPolicies.get(`fwp-${pad(fw.body.id)}`);
    expect(policy.rules.flatMap((r) => r.source_cidrs)).toEqual([`${loopback}/32`, '127.0.0.1/32']);
  });
});
