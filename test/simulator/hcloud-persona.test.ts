// The Hetzner persona is a view over simcloud's one store: a resource made through /hcloud/v1 is the same
// resource through /v1 and back, and a load balancer made through the persona carries real TCP on its VIP
// with Hetzner's PROXY protocol and public-interface settings. (hcloud-go's own contract tests are in
// go/contract/hcloud.)
import { randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { waitFor } from '../../sandbox/wait.ts';
import { startSimcloudOnOwnPlan, startSimcloudProcess, type InProcessSimcloud } from '../helpers/simcloud.ts';
import { unique } from './support.ts';

/** The private-network pool's second octet (the persona presents its /16 in another block, ADR 0013). */
let privateOctet = 0;
let sc: InProcessSimcloud;
beforeAll(async () => {
  const own = await startSimcloudOnOwnPlan({ clientOptions: { retry: { maxRetries: 0 } } });
  privateOctet = Number(own.pools.private_networks.split('.')[1]);
  sc = own;
});
afterAll(async () => {
  await sc?.stop();
});

const HAction = z.object({ id: z.number(), status: z.string() });
const HServer = z.object({
  id: z.number(),
  name: z.string(),
  labels: z.record(z.string(), z.string()),
  public_net: z.object({ ipv4: z.object({ ip: z.string() }) }),
});
const HLoadBalancer = z.object({
  id: z.number(),
  name: z.string(),
  public_net: z.object({ enabled: z.boolean(), ipv4: z.object({ ip: z.string() }) }),
  services: z.array(z.object({ listen_port: z.number(), destination_port: z.number(), proxyprotocol: z.boolean() })),
});

type Call = <T>(schema: z.ZodType<T>, method: string, path: string, body?: unknown) => Promise<T>;

/** Calls to the Hetzner persona of the simcloud at `h`, answers parsed with `schema`. */
const persona =
  (h: { url: string; token: string }): Call =>
  async (schema, method, path, body) => {
    const res = await fetch(`${h.url}/hcloud/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return schema.parse(text === '' ? {} : JSON.parse(text));
  };
const hcloud: Call = (schema, method, path, body) => persona(sc)(schema, method, path, body);

async function finished(id: number): Promise<void> {
  const status = await waitFor(
    async () => {
      const { action } = await hcloud(z.object({ action: HAction }), 'GET', `/actions/${id}`);
      return action.status === 'running' ? undefined : action.status;
    },
    { timeoutMs: 10_000, intervalMs: 20, description: `action ${id}` },
  );
  expect(status).toBe('success');
}

describe('the hcloud persona over the one store', () => {
  it('shows a server made through /hcloud/v1 in /v1 under the same number, and a /v1 load balancer in /hcloud/v1', async () => {
    const made = await hcloud(z.object({ server: HServer, action: HAction }), 'POST', '/servers', {
      name: unique('h'),
      server_type: 'sc-small',
      image: 'debian-13',
      location: 'sim-1',
      labels: { via: 'hcloud' },
    });
    await finished(made.action.id);
    const v1 = await sc.client.servers.get(`srv-${String(made.server.id).padStart(8, '0')}`);
    expect({ name: v1.name, labels: v1.labels, ip: v1.public_ipv4 }).toEqual({
      name: made.server.name,
      labels: { via: 'hcloud' },
      ip: made.server.public_net.ipv4.ip,
    });

    const { load_balancer: lb, action } = await sc.client.loadBalancers.create({ name: unique('lb'), services: [] });
    await sc.client.waitForAction(action.id);
    const seen = await hcloud(z.object({ load_balancer: HLoadBalancer }), 'GET', `/load_balancers/${Number(lb.id.split('-')[1])}`);
    expect({ name: seen.load_balancer.name, vip: seen.load_balancer.public_net.ipv4.ip }).toEqual({ name: lb.name, vip: lb.public_ipv4 });

    const deleted = await hcloud(z.object({ action: HAction }), 'DELETE', `/load_balancers/${seen.load_balancer.id}`);
    await finished(deleted.action.id);
    await expect(sc.client.loadBalancers.get(lb.id)).rejects.toMatchObject({ code: 'not_found' });
    await sc.client.servers.delete(v1.id);
  });
});

function listen(ip: string, port: number): Promise<{ received: string[]; stop: () => Promise<void> }> {
  const received: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined).on('close', () => sockets.delete(s));
    s.once('data', (d: Buffer) => {
      received.push(d.toString());
      s.end('pong\n');
    });
  });
  return new Promise((resolve, reject) =>
    server.once('error', reject).listen(port, ip, () =>
      resolve({
        received,
        stop: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      }),
    ),
  );
}

function ask(ip: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect({ host: ip, port });
    let data = '';
    s.on('connect', () => s.write('ping\n')).on('data', (d) => (data += d.toString()));
    s.on('close', () => resolve(data.trim())).on('error', () => resolve(data.trim()));
    s.setTimeout(3000, () => s.destroy());
  });
}

/** The reply once it is `want` (the data plane applies a change within milliseconds, not in the same tick). */
async function until(fn: () => Promise<string>, want: string): Promise<string> {
  return waitFor(async () => ((await fn()) === want ? want : undefined), { timeoutMs: 10_000, intervalMs: 50, description: `the VIP to answer '${want}'` });
}

describe('a load balancer made through the hcloud persona', () => {
  it('forwards TCP with a PROXY v1 header and stops serving its VIP while its public interface is disabled', async () => {
    const destination = randomInt(20_000, 30_000);
    const listenPort = randomInt(30_000, 40_000);
    const app = unique('app');
    const made = await hcloud(z.object({ server: HServer, action: HAction }), 'POST', '/servers', {
      name: unique('h'),
      server_type: 'sc-small',
      image: 'debian-13',
      location: 'sim-1',
      labels: { app },
    });
    await finished(made.action.id);
    const backend = await listen(made.server.public_net.ipv4.ip, destination);
    try {
      const { load_balancer: lb, action } = await hcloud(z.object({ load_balancer: HLoadBalancer, action: HAction }), 'POST', '/load_balancers', {
        name: unique('lb'),
        load_balancer_type: 'lb11',
        location: 'sim-1',
        services: [
          {
            protocol: 'tcp',
            listen_port: listenPort,
            destination_port: destination,
            proxyprotocol: true,
            health_check: { protocol: 'tcp', interval: 1, timeout: 1, retries: 1 },
          },
        ],
        targets: [{ type: 'label_selector', label_selector: { selector: `app=${app}` } }],
      });
      await finished(action.id);
      const vip = lb.public_net.ipv4.ip;
      expect(await until(() => ask(vip, listenPort), 'pong')).toBe('pong');
      expect(backend.received.at(-1)).toMatch(new RegExp(`^PROXY TCP4 127\\.0\\.0\\.1 ${vip.replace(/\./g, '\\.')} \\d+ ${listenPort}\\r\\n`));

      await finished((await hcloud(z.object({ action: HAction }), 'POST', `/load_balancers/${lb.id}/actions/disable_public_interface`, {})).action.id);
      expect(await until(() => ask(vip, listenPort), '')).toBe('');
      await finished((await hcloud(z.object({ action: HAction }), 'POST', `/load_balancers/${lb.id}/actions/enable_public_interface`, {})).action.id);
      expect(await until(() => ask(vip, listenPort), 'pong')).toBe('pong');
      await finished((await hcloud(z.object({ action: HAction }), 'DELETE', `/load_balancers/${lb.id}`)).action.id);
    } finally {
      await backend.stop();
      await hcloud(z.object({ action: HAction }), 'DELETE', `/servers/${made.server.id}`);
    }
  });
});

describe('Hetzner-only attributes', () => {
  it('persist with their load balancer across a restart on the same state file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'simcloud-hcloud-'));
    const dataPath = join(dir, 'state.json');
    const first = await startSimcloudProcess({ dataPath, args: ['--delay-ms', '5', '--no-dataplane'] });
    let second: Awaited<ReturnType<typeof startSimcloudProcess>> | undefined;
    try {
      const call = persona(first);
      const { load_balancer: lb, action } = await call(z.object({ load_balancer: HLoadBalancer, action: HAction }), 'POST', '/load_balancers', {
        name: unique('lb'),
        load_balancer_type: 'lb21',
        location: 'sim-1',
      });
      await waitFor(async () => (await call(z.object({ action: HAction }), 'GET', `/actions/${action.id}`)).action.status === 'success' || undefined, {
        timeoutMs: 10_000,
        intervalMs: 20,
        description: 'LB create',
      });
      const off = await call(z.object({ action: HAction }), 'POST', `/load_balancers/${lb.id}/actions/disable_public_interface`, {});
      await waitFor(async () => (await call(z.object({ action: HAction }), 'GET', `/actions/${off.action.id}`)).action.status === 'success' || undefined, {
        timeoutMs: 10_000,
        intervalMs: 20,
        description: 'disable',
      });
      await first.stop();
      second = await startSimcloudProcess({ dataPath, token: first.token, args: ['--delay-ms', '5', '--no-dataplane'] });
      const again = await persona(second)(
        z.object({ load_balancer: HLoadBalancer.extend({ load_balancer_type: z.object({ name: z.string() }) }) }),
        'GET',
        `/load_balancers/${lb.id}`,
      );
      expect({ type: again.load_balancer.load_balancer_type.name, public: again.load_balancer.public_net.enabled }).toEqual({ type: 'lb21', public: false });
      // The /v1 view of the same record leaves the Hetzner attributes out and shows the switch, simcloud's own field.
      const raw = await fetch(`${second.url}/v1/load_balancers/lb-${String(lb.id).padStart(8, '0')}`, { headers: { authorization: `Bearer ${second.token}` } });
      const v1 = z.object({ load_balancer: z.record(z.string(), z.unknown()) }).parse(await raw.json()).load_balancer;
      expect(v1).not.toHaveProperty('dialect_attrs');
      expect(v1.public_interface).toBe(false);
    } finally {
      await first.stop().catch(() => undefined);
      await second?.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// The persona shows the store's loopback private addresses as Hetzner's 10.0.0.0/16 and takes every address it
// is sent in that block back (ADR 0013): what the store and the data plane see is loopback.
describe('Hetzner presented private addresses', () => {
  const HNetwork = z.object({
    id: z.number(),
    ip_range: z.string(),
    subnets: z.array(z.object({ ip_range: z.string(), gateway: z.string() })),
    routes: z.array(z.object({ destination: z.string(), gateway: z.string() })),
  });
  const HPrivate = z.object({ private_net: z.array(z.object({ network: z.number(), ip: z.string() })) });
  const shown = (loopback: string): string => loopback.replace(new RegExp(`^127\\.${privateOctet}\\.`), '10.0.');
  const sid = (kind: string, n: number): string => `${kind}-${String(n).padStart(8, '0')}`;
  const act = async (path: string, body: unknown): Promise<void> => finished((await hcloud(z.object({ action: HAction }), 'POST', path, body)).action.id);
  const thirds = [randomInt(1, 100), randomInt(100, 200)];

  /** A network of 10.0.0.0/16 with the subnet 10.0.`third`.0/24, made through the persona, and a server on it. */
  async function networkWithServer(third: number): Promise<{ network: number; server: number; loopback: string }> {
    const { network } = await hcloud(z.object({ network: HNetwork }), 'POST', '/networks', {
      name: unique('net'),
      ip_range: '10.0.0.0/16',
      subnets: [{ type: 'cloud', network_zone: 'sim-1', ip_range: `10.0.${third}.0/24` }],
    });
    expect({ range: network.ip_range, subnets: network.subnets }).toEqual({
      range: '10.0.0.0/16',
      subnets: [{ ip_range: `10.0.${third}.0/24`, gateway: `10.0.${third}.1` }],
    });
    const stored = await sc.client.networks.get(sid('net', network.id));
    expect({ range: stored.ip_range, subnet: stored.subnets[0]?.ip_range }).toEqual({
      range: `127.${privateOctet}.0.0/16`,
      subnet: `127.${privateOctet}.${third}.0/24`,
    });
    const made = await hcloud(z.object({ server: HServer, action: HAction }), 'POST', '/servers', {
      name: unique('h'),
      server_type: 'sc-small',
      image: 'debian-13',
      location: 'sim-1',
      networks: [network.id],
    });
    await finished(made.action.id);
    const loopback = (await sc.client.servers.get(sid('srv', made.server.id))).private_networks[0]!.ip;
    expect(loopback).toMatch(new RegExp(`^127\\.${privateOctet}\\.${third}\\.`));
    expect((await hcloud(z.object({ server: HPrivate }), 'GET', `/servers/${made.server.id}`)).server.private_net).toEqual([
      { network: network.id, ip: shown(loopback) },
    ]);
    return { network: network.id, server: made.server.id, loopback };
  }

  it("shows a network, its subnet and a server in 10.0.0.0/16, and takes a route's gateway and an attach ip back", async () => {
    const third = thirds[0]!;
    const { network, server, loopback } = await networkWithServer(third);
    // A route as Hetzner's CCM sends it: a pod CIDR via the node's presented address.
    const route = { destination: '10.244.9.0/24', gateway: shown(loopback) };
    await act(`/networks/${network}/actions/add_route`, route);
    expect((await sc.client.networks.listRoutes(sid('net', network))).map((r) => [r.destination, r.gateway])).toEqual([['10.244.9.0/24', loopback]]);
    expect((await hcloud(z.object({ network: HNetwork }), 'GET', `/networks/${network}`)).network.routes).toEqual([route]);
    await act(`/networks/${network}/actions/delete_route`, route);
    expect(await sc.client.networks.listRoutes(sid('net', network))).toEqual([]);
    // A server attached with an address of its own choosing: that address, stored as loopback.
    const other = await hcloud(z.object({ server: HServer, action: HAction }), 'POST', '/servers', {
      name: unique('h'),
      server_type: 'sc-small',
      image: 'debian-13',
      location: 'sim-1',
    });
    await finished(other.action.id);
    await act(`/servers/${other.server.id}/actions/attach_to_network`, { network, ip: `10.0.${third}.77` });
    expect((await sc.client.servers.get(sid('srv', other.server.id))).private_networks[0]!.ip).toBe(`127.${privateOctet}.${third}.77`);
    for (const id of [server, other.server.id]) await hcloud(z.object({ action: HAction }), 'DELETE', `/servers/${id}`);
  });

  it("shows a load balancer's private_net and IP targets in 10.0.0.0/16, takes IP targets back, and carries TCP to the loopback address behind a use_private_ip target", async () => {
    const third = thirds[1]!;
    const { network, server, loopback } = await networkWithServer(third);
    const [destination, listenPort] = [randomInt(20_000, 30_000), randomInt(30_000, 40_000)];
    const backend = await listen(loopback, destination);
    try {
      const { load_balancer: lb, action } = await hcloud(
        z.object({ load_balancer: HLoadBalancer.merge(HPrivate), action: HAction }),
        'POST',
        '/load_balancers',
        {
          name: unique('lb'),
          load_balancer_type: 'lb11',
          location: 'sim-1',
          network,
          services: [
            {
              protocol: 'tcp',
              listen_port: listenPort,
              destination_port: destination,
              proxyprotocol: false,
              health_check: { protocol: 'tcp', interval: 1, timeout: 1, retries: 1 },
            },
          ],
          targets: [
            { type: 'server', server: { id: server }, use_private_ip: true },
            { type: 'ip', ip: { ip: `10.0.${third}.99` } },
          ],
        },
      );
      await finished(action.id);
      const v1 = await sc.client.loadBalancers.get(sid('lb', lb.id));
      expect(v1.private_ipv4).toMatch(new RegExp(`^127\\.${privateOctet}\\.`));
      expect(lb.private_net).toEqual([{ network, ip: shown(v1.private_ipv4!) }]);
      expect(v1.targets).toContainEqual({ kind: 'ip', ip: `127.${privateOctet}.${third}.99` });
      const view = await hcloud(
        z.object({ load_balancer: z.object({ targets: z.array(z.record(z.string(), z.unknown())) }) }),
        'GET',
        `/load_balancers/${lb.id}`,
      );
      expect(view.load_balancer.targets.map((t) => t.ip)).toContainEqual({ ip: `10.0.${third}.99` });
      expect(await until(() => ask(lb.public_net.ipv4.ip, listenPort), 'pong')).toBe('pong');
      // The IP target is removed by the address it was added with.
      await act(`/load_balancers/${lb.id}/actions/remove_target`, { type: 'ip', ip: { ip: `10.0.${third}.99` } });
      expect((await sc.client.loadBalancers.get(v1.id)).targets).toEqual([{ kind: 'server', server_id: sid('srv', server) }]);
      await finished((await hcloud(z.object({ action: HAction }), 'DELETE', `/load_balancers/${lb.id}`)).action.id);
    } finally {
      await backend.stop();
      await hcloud(z.object({ action: HAction }), 'DELETE', `/servers/${server}`);
    }
  });
});
