// The DigitalOcean persona (/v2) is a view over the one store: a droplet or load balancer made through it is
// the same server or load balancer through /v1 (and the reverse), errors come in DigitalOcean's body, and a
// load balancer's forwarding rules carry real TCP through the data plane, PROXY protocol and health checks included;
// its types, network stacks and firewall sources as DigitalOcean's own CCM uses them (below).
import { randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../sandbox/wait.ts';
import { PERSONA_ROWS } from '../security/persona-rows.ts';
import { startSimcloudOnOwnPlan, startSimcloudProcess, type InProcessSimcloud } from '../helpers/simcloud.ts';
import { serverBody, tcpAsk, tcpBackend, tcpService, unique } from './support.ts';

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

type Call = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) => Promise<{ status: number; body: T }>;

/** Calls /v2 of the simcloud at `url` with `token`. */
const callerOf =
  (url: string, token: string): Call =>
  async <T>(method: string, path: string, body?: unknown) => {
    const r = await fetch(`${url}/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: (r.status === 204 ? {} : await r.json()) as T };
  };

const digitalocean: Call = (method, path, body) => callerOf(sc.url, sc.token)(method, path, body);

const sid = (prefix: string, n: number): string => `${prefix}-${String(n).padStart(8, '0')}`;
const uuid = (id: string): string => `00000000-0000-4000-8000-${id.replace(/^[a-z]+-0*/, '').padStart(12, '0')}`;

interface Droplet {
  id: number;
  name: string;
  tags: string[];
  networks: { v4: { ip_address: string; type: string }[] };
}
interface Lb {
  id: string;
  ip: string;
  status: string;
  droplet_ids: number[];
  forwarding_rules: { entry_port: number; target_port: number }[];
}

describe('DigitalOcean persona over the one store', () => {
  it('shows a droplet made through /v2 as the same server through /v1, tags as labels', async () => {
    const made = await digitalocean<{ droplet: Droplet }>('POST', '/droplets', {
      name: unique('do'),
      region: 'sim-1',
      size: 'sc-small',
      image: 'ubuntu-24.04',
      tags: ['k8s:c1', 'web'],
    });
    expect(made.status).toBe(202);
    const server = await sc.client.servers.get(sid('srv', made.body.droplet.id));
    expect(server.name).toBe(made.body.droplet.name);
    expect(server.labels).toEqual({ k8s: 'c1', web: '' });
    await sc.client.servers.update(server.id, { labels: { team: 'b' } });
    expect((await digitalocean<{ droplet: Droplet }>('GET', `/droplets/${made.body.droplet.id}`)).body.droplet.tags).toEqual(['team:b']);
  });

  it('shows a /v1 load balancer under its UUID with its services as forwarding rules and its servers as droplet ids', async () => {
    const { server, action } = await sc.client.servers.create(serverBody());
    await sc.client.waitForAction(action.id);
    const { load_balancer: lb } = await sc.client.loadBalancers.create({
      name: unique('lb'),
      services: [tcpService(8080, 31000)],
      targets: [{ kind: 'server', server_id: server.id }],
    });
    const seen = await digitalocean<{ load_balancer: Lb }>('GET', `/load_balancers/${uuid(lb.id)}`);
    expect(seen.body.load_balancer).toMatchObject({
      id: uuid(lb.id),
      forwarding_rules: [{ entry_port: 8080, target_port: 31000 }],
      droplet_ids: [Number(server.id.slice(4))],
    });
  });

  it("answers errors in DigitalOcean's body with its ids and statuses", async () => {
    const missing = await digitalocean<{ id: string; message: string; request_id: string }>('GET', '/droplets/999999');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ id: 'not_found' });
    expect(missing.body.request_id).not.toBe('');
    const bad = await digitalocean<{ id: string; message: string }>('POST', '/load_balancers', {
      region: 'sim-1',
      forwarding_rules: [{ entry_protocol: 'http3', entry_port: 443, target_protocol: 'http', target_port: 80 }],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.id).toBe('unprocessable_entity');
    expect(bad.body.message).toMatch(/^forwarding_rules\.0\.entry_protocol: /);
  });

  // The fuzz suite sent keys no client would (``, `a b`): each made a message (`: unknown field`) whose field no
  // reader could find. A key that is no plain name is JSON-quoted, so the message names it whatever it holds.
  it('names an unknown field of any key readably, a JSON-quoted key where it is no plain name', async () => {
    const rule = { entry_protocol: 'tcp', entry_port: 80, target_protocol: 'tcp', target_port: 80 };
    const body = { name: unique('lb'), region: 'sim-1', forwarding_rules: [{ ...rule, '': 1 }], '': 1, 'a b': 2, 'x, y': 3, 'é.$': 4, extra: 5 };
    const r = await fetch(`${sc.url}/v2/load_balancers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sc.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await r.text();
    expect(r.status, text).toBe(422);
    const digitaloceanRow = PERSONA_ROWS.find((row) => row.name === 'digitalocean')!;
    const fields = digitaloceanRow.read({ status: r.status, headers: {}, text, json: () => JSON.parse(text) as unknown }).fields;
    expect(fields.sort(), text).toEqual(['""', '"a b"', '"x, y"', '"é.$"', 'extra', 'forwarding_rules.0.""'].sort());
  });

  it('carries TCP through a load balancer made through /v2 to its droplets, with PROXY protocol, once it is active', async () => {
    const port = randomInt(20_000, 30_000);
    const droplets: Droplet[] = [];
    const backends: string[][] = [];
    for (const i of [0, 1]) {
      const made = await digitalocean<{ droplet: Droplet }>('POST', '/droplets', {
        name: unique(`do-be${i}`),
        region: 'sim-1',
        size: 'sc-small',
        image: 'ubuntu-24.04',
      });
      const d = made.body.droplet;
      droplets.push(d);
      const backend = await tcpBackend(d.networks.v4.find((n) => n.type === 'public')!.ip_address, port, d.name);
      stops.push(backend.stop);
      backends.push(backend.received);
    }
    const listen = randomInt(30_000, 40_000);
    const created = await digitalocean<{ load_balancer: Lb }>('POST', '/load_balancers', {
      name: unique('do-lb'),
      region: 'sim-1',
      droplet_ids: droplets.map((d) => d.id),
      enable_proxy_protocol: true,
      forwarding_rules: [{ entry_protocol: 'tcp', entry_port: listen, target_protocol: 'tcp', target_port: port }],
      health_check: { protocol: 'tcp', port, check_interval_seconds: 3, response_timeout_seconds: 3, healthy_threshold: 2, unhealthy_threshold: 2 },
    });
    expect(created.status).toBe(202);
    expect(created.body.load_balancer).toMatchObject({ status: 'new', ip: '' });
    const get = async (): Promise<Lb> =>
      (await digitalocean<{ load_balancer: Lb }>('GET', `/load_balancers/${created.body.load_balancer.id}`)).body.load_balancer;
    await waitFor(async () => (await get()).status === 'active', { timeoutMs: 15_000, description: 'load balancer active' });
    const { ip } = await get();
    const lb = await sc.client.loadBalancers.get(`lb-${created.body.load_balancer.id.slice(-8)}`);
    expect(lb.public_ipv4).toBe(ip);
    expect(lb.services).toMatchObject([{ listen_port: listen, destination_port: port, proxy_protocol: 'v1' }]);
    await waitFor(async () => (await sc.client.loadBalancers.get(lb.id)).resolved_targets.every((t) => t.health.every((h) => h.status === 'healthy')), {
      timeoutMs: 15_000,
      description: 'both droplets healthy',
    });
    const replies = new Set<string>();
    for (let i = 0; i < 4; i++) replies.add(await tcpAsk(ip, listen));
    expect([...replies].sort()).toEqual(droplets.map((d) => d.name).sort());
    expect(backends.flat()[0]).toMatch(new RegExp(`^PROXY TCP4 127\\.0\\.0\\.1 ${ip.replace(/\./g, '\\.')} \\d+ ${listen}\\r\\n`));
  });

  it("keeps a load balancer's and a firewall's DigitalOcean settings across a restart on the same state file", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'simcloud-do-'));
    const dataPath = join(dir, 'state.json');
    const first = await startSimcloudProcess({ dataPath, args: ['--delay-ms', '5', '--no-dataplane'] });
    let second: Awaited<ReturnType<typeof startSimcloudProcess>> | undefined;
    try {
      const call = callerOf(first.url, first.token);
      const lb = await call<{ load_balancer: Lb }>('POST', '/load_balancers', {
        name: unique('do-lb'),
        region: 'sim-1',
        size_unit: 3,
        sticky_sessions: { type: 'cookies', cookie_name: 'c', cookie_ttl_seconds: 60 },
        forwarding_rules: [{ entry_protocol: 'http2', entry_port: 443, target_protocol: 'http2', target_port: 30080, tls_passthrough: true }],
      });
      const fw = await call<{ firewall: { id: string } }>('POST', '/firewalls', {
        name: unique('do-fw'),
        tags: ['k8s:c1'],
        inbound_rules: [{ protocol: 'tcp', ports: '30080', sources: { addresses: ['0.0.0.0/0', '::/0'] } }],
      });
      await first.stop();
      second = await startSimcloudProcess({ dataPath, token: first.token, args: ['--delay-ms', '5', '--no-dataplane'] });
      const again = callerOf(second.url, second.token);
      expect((await again('GET', `/load_balancers/${lb.body.load_balancer.id}`)).body).toMatchObject({
        load_balancer: {
          size_unit: 3,
          sticky_sessions: { type: 'cookies', cookie_name: 'c', cookie_ttl_seconds: 60 },
          forwarding_rules: [{ entry_protocol: 'http2', target_protocol: 'http2', certificate_id: '', tls_passthrough: true }],
        },
      });
      expect((await again('GET', `/firewalls/${fw.body.firewall.id}`)).body).toMatchObject({
        firewall: { tags: ['k8s:c1'], inbound_rules: [{ ports: '30080', sources: { addresses: ['0.0.0.0/0', '::/0'] } }] },
      });
    } finally {
      await first.stop().catch(() => undefined);
      await second?.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// Load balancer types and network stacks as DigitalOcean's own CCM uses them:
// - the type and network_stack round-trip (the CCM echoes the type it reads into its annotation and, for
//   REGIONAL, sends network_stack DUALSTACK on every update: a view that always said REGIONAL made every
//   update of a REGIONAL_NETWORK load balancer a 422), and are fixed at creation as on DigitalOcean (a type
//   change is refused, a stack change is ignored);
// - DUALSTACK shows simcloud's public IPv6 as `ipv6` (the CCM writes it into the Service status);
// - REGIONAL_NETWORK is simcloud's passthrough forwarding: a droplet is reached on the rule's target port
//   (the Service port) from the VIP, as a node programmed for the ingress IP is;
// - the CCM's firewall controller names a REGIONAL_NETWORK load balancer in `load_balancer_uids` to open
//   kube-proxy's health port: accepted, enforced as the VIP, and returned as written.
interface TypedLb {
  id: string;
  ip: string;
  ipv6: string;
  status: string;
  type: string;
  network_stack: string;
}
interface DoError {
  id: string;
  message: string;
}
const simId = (uuid: string): string => `lb-${uuid.slice(-8)}`;
const rule = (port: number, protocol = 'tcp', target = port) => ({
  entry_protocol: protocol,
  entry_port: port,
  target_protocol: protocol,
  target_port: target,
});

async function activeLb(body: Record<string, unknown>): Promise<TypedLb> {
  const made = await digitalocean<{ load_balancer: TypedLb }>('POST', '/load_balancers', { name: unique('do-lb'), region: 'sim-1', ...body });
  expect(made.status).toBe(202);
  return waitFor(
    async () => {
      const { load_balancer } = (await digitalocean<{ load_balancer: TypedLb }>('GET', `/load_balancers/${made.body.load_balancer.id}`)).body;
      return load_balancer.status === 'active' ? load_balancer : undefined;
    },
    { timeoutMs: 15_000, description: 'load balancer active' },
  );
}

describe('DigitalOcean load balancer types', () => {
  it('defaults to REGIONAL and IPV4, keeps REGIONAL_NETWORK as simcloud passthrough, and refuses http on it', async () => {
    const plain = await activeLb({ forwarding_rules: [rule(8080, 'tcp', 30080)] });
    expect(plain).toMatchObject({ type: 'REGIONAL', network_stack: 'IPV4', ipv6: '' });
    expect((await sc.client.loadBalancers.get(simId(plain.id))).forwarding).toBe('proxy');
    const network = await activeLb({ type: 'REGIONAL_NETWORK', network_stack: 'IPV4', forwarding_rules: [rule(80)] });
    expect(network).toMatchObject({ type: 'REGIONAL_NETWORK', network_stack: 'IPV4', ipv6: '' });
    expect((await sc.client.loadBalancers.get(simId(network.id))).forwarding).toBe('passthrough');
    const http = await digitalocean<DoError>('POST', '/load_balancers', { region: 'sim-1', type: 'REGIONAL_NETWORK', forwarding_rules: [rule(80, 'http')] });
    expect(http).toMatchObject({
      status: 422,
      body: { id: 'unprocessable_entity', message: expect.stringMatching(/^forwarding_rules\.0\.entry_protocol: /) as unknown },
    });
  });

  it('gives a DUALSTACK load balancer the IPv6 address simcloud holds for it, once active', async () => {
    const dual = await activeLb({ network_stack: 'DUALSTACK', forwarding_rules: [rule(8081, 'tcp', 30081)] });
    const rec = await sc.client.loadBalancers.get(simId(dual.id));
    expect(dual).toMatchObject({ type: 'REGIONAL', network_stack: 'DUALSTACK', ipv6: rec.public_ipv6, ip: rec.public_ipv4 });
    expect(dual.ipv6).toMatch(/^2001:db8:/);
  });

  it('keeps type and network stack across a PUT that repeats, omits or (the stack) changes them, and refuses a PUT that changes the type', async () => {
    const lb = await activeLb({ type: 'REGIONAL_NETWORK', forwarding_rules: [rule(80)] });
    const put = (over: Record<string, unknown>) =>
      digitalocean<{ load_balancer: TypedLb } & DoError>('PUT', `/load_balancers/${lb.id}`, {
        name: unique('do-lb'),
        region: 'sim-1',
        forwarding_rules: [rule(80), rule(443)],
        ...over,
      });
    expect((await put({ type: 'REGIONAL_NETWORK', network_stack: 'IPV4' })).body.load_balancer).toMatchObject({
      type: 'REGIONAL_NETWORK',
      network_stack: 'IPV4',
    });
    expect((await put({})).body.load_balancer).toMatchObject({ type: 'REGIONAL_NETWORK', network_stack: 'IPV4' });
    // What DigitalOcean's CCM did to a REGIONAL_NETWORK load balancer shown as REGIONAL: echo REGIONAL, send DUALSTACK.
    expect(await put({ type: 'REGIONAL', network_stack: 'DUALSTACK' })).toMatchObject({
      status: 422,
      body: { message: expect.stringMatching(/^type: cannot be changed/) as unknown },
    });
    // What DigitalOcean's CCM (v0.1.63 on) sends for a REGIONAL one an older release made IPV4: kept, not refused.
    expect(await put({ network_stack: 'DUALSTACK' })).toMatchObject({
      status: 200,
      body: { load_balancer: { type: 'REGIONAL_NETWORK', network_stack: 'IPV4', ipv6: '' } },
    });
    expect((await sc.client.loadBalancers.get(simId(lb.id))).services.map((s) => s.listen_port)).toEqual([80, 443]);
  });

  it('REGIONAL_NETWORK reaches a droplet on the target port from the VIP, as a node answering for the ingress IP sees it', async () => {
    const port = randomInt(20_000, 30_000);
    const made = await digitalocean<{ droplet: { id: number; networks: { v4: { ip_address: string; type: string }[] } } }>('POST', '/droplets', {
      name: unique('do-nlb'),
      region: 'sim-1',
      size: 'sc-small',
      image: 'ubuntu-24.04',
    });
    const ip = made.body.droplet.networks.v4.find((n) => n.type === 'public')!.ip_address;
    const server = net.createServer((s) => {
      s.on('error', () => undefined);
      s.once('data', () => s.end(`${s.remoteAddress}>${s.localPort}\n`));
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, ip, () => resolve()));
    stops.push(() => server.close());
    const lb = await activeLb({
      type: 'REGIONAL_NETWORK',
      droplet_ids: [made.body.droplet.id],
      forwarding_rules: [rule(port)],
      health_check: { protocol: 'tcp', port, check_interval_seconds: 3, response_timeout_seconds: 3, healthy_threshold: 2, unhealthy_threshold: 2 },
    });
    const reply = await waitFor(async () => (await tcpAsk(lb.ip, port)) || undefined, {
      timeoutMs: 15_000,
      description: 'an answer through the network load balancer',
    });
    expect(reply).toBe(`${lb.ip}>${port}`);
  });
});

describe("DigitalOcean firewalls as DigitalOcean's CCM keeps them", () => {
  interface Fw {
    id: string;
    inbound_rules: { protocol: string; ports: string; sources: { addresses: string[]; load_balancer_uids?: string[] } }[];
  }

  it('accepts load balancers as rule sources, enforces them as their VIPs and returns them as written', async () => {
    const lb = await activeLb({ type: 'REGIONAL_NETWORK', forwarding_rules: [rule(80)] });
    const inbound = [
      { protocol: 'tcp', ports: '80', sources: { addresses: ['0.0.0.0/0', '::/0'] } },
      { protocol: 'tcp', ports: '10256', sources: { load_balancer_uids: [lb.id] } },
    ];
    const made = await digitalocean<{ firewall: Fw }>('POST', '/firewalls', { name: unique('do-fw'), tags: ['k8s:c1'], inbound_rules: inbound });
    expect(made.status).toBe(202);
    const got = (await digitalocean<{ firewall: Fw }>('GET', `/firewalls/${made.body.firewall.id}`)).body.firewall;
    expect(got.inbound_rules).toEqual([
      { protocol: 'tcp', ports: '80', sources: { addresses: ['0.0.0.0/0', '::/0'] } },
      { protocol: 'tcp', ports: '10256', sources: { addresses: [], load_balancer_uids: [lb.id] } },
    ]);
    const policy = await sc.client.firewallPolicies.get(`fwp-${made.body.firewall.id.slice(-8)}`);
    expect(policy.rules.find((r) => r.ports === '10256')!.source_cidrs).toEqual([`${lb.ip}/32`]);
    const unknown = await digitalocean<DoError>('PUT', `/firewalls/${made.body.firewall.id}`, {
      name: unique('do-fw'),
      inbound_rules: [{ protocol: 'tcp', ports: '10256', sources: { load_balancer_uids: ['00000000-0000-4000-8000-000099999999'] } }],
    });
    expect(unknown).toMatchObject({ status: 422, body: { message: expect.stringMatching(/^inbound_rules\.0\.sources\.load_balancer_uids\.0: /) as unknown } });
  });
});

// The persona shows the store's loopback private addresses as DigitalOcean VPC addresses in 10.110.0.0/16 and
// takes the addresses it is sent in that block back (ADR 0013): the store and the data plane see loopback.
describe('DigitalOcean presented private addresses', () => {
  interface Fw {
    id: string;
    inbound_rules: { sources: { addresses: string[] } }[];
  }
  interface FwLb extends Lb {
    firewall: { allow: string[] };
  }

  it('shows a droplet on a network with its private address in 10.110.0.0/16, takes firewall sources back, and still carries TCP through a load balancer', async () => {
    const made = await digitalocean<{ droplet: Droplet }>('POST', '/droplets', {
      name: unique('do-vpc'),
      region: 'sim-1',
      size: 'sc-small',
      image: 'ubuntu-24.04',
    });
    await waitFor(
      async () => (await digitalocean<{ droplet: { status: string } }>('GET', `/droplets/${made.body.droplet.id}`)).body.droplet.status === 'active',
      { timeoutMs: 10_000, description: 'droplet active' },
    );
    // Joined to a network through /v1, as the sandbox joins its droplets.
    const network = await sc.client.networks.create({ name: unique('net') });
    await sc.client.waitForAction((await sc.client.servers.attachToNetwork(sid('srv', made.body.droplet.id), { network_id: network.id })).id);
    const loopback = (await sc.client.servers.get(sid('srv', made.body.droplet.id))).private_networks[0]!.ip;
    expect(loopback).toMatch(new RegExp(`^127\\.${privateOctet}\\.`));
    const presented = loopback.replace(new RegExp(`^127\\.${privateOctet}\\.`), '10.110.');
    const droplet = (await digitalocean<{ droplet: Droplet }>('GET', `/droplets/${made.body.droplet.id}`)).body.droplet;
    expect(droplet.networks.v4.filter((n) => n.type === 'private').map((n) => n.ip_address)).toEqual([presented]);

    const fw = await digitalocean<{ firewall: Fw }>('POST', '/firewalls', {
      name: unique('do-fw'),
      inbound_rules: [{ protocol: 'tcp', ports: '80', sources: { addresses: [presented, '10.110.0.0/24', '192.0.2.0/24'] } }],
    });
    expect(fw.status, JSON.stringify(fw.body)).toBe(202);
    expect(fw.body.firewall.inbound_rules[0]!.sources.addresses).toEqual([presented, '10.110.0.0/24', '192.0.2.0/24']);
    const policy = await sc.client.firewallPolicies.get(`fwp-${fw.body.firewall.id.slice(-8)}`);
    expect(policy.rules[0]!.source_cidrs).toEqual([`${loopback}/32`, `127.${privateOctet}.0.0/24`, '192.0.2.0/24']);

    const port = randomInt(20_000, 30_000);
    // A load balancer off any network reaches its droplets on their public addresses (simcloud's targetIp).
    const backend = await tcpBackend(droplet.networks.v4.find((n) => n.type === 'public')!.ip_address, port, 'behind-the-presented-address');
    stops.push(backend.stop);
    const listen = randomInt(30_000, 40_000);
    const created = await digitalocean<{ load_balancer: FwLb }>('POST', '/load_balancers', {
      name: unique('do-lb'),
      region: 'sim-1',
      droplet_ids: [droplet.id],
      forwarding_rules: [rule(listen, 'tcp', port)],
      health_check: { protocol: 'tcp', port, check_interval_seconds: 3, response_timeout_seconds: 3, healthy_threshold: 2, unhealthy_threshold: 2 },
      firewall: { allow: [`ip:${presented}`, 'cidr:127.0.0.0/8'] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const lb = await sc.client.loadBalancers.get(`lb-${created.body.load_balancer.id.slice(-8)}`);
    expect(lb.source_ranges).toEqual([`${loopback}/32`, '127.0.0.0/8']);
    const active = await waitFor(
      async () => {
        const { load_balancer } = (await digitalocean<{ load_balancer: FwLb }>('GET', `/load_balancers/${created.body.load_balancer.id}`)).body;
        return load_balancer.status === 'active' ? load_balancer : undefined;
      },
      { timeoutMs: 15_000, description: 'load balancer active' },
    );
    expect(active.firewall.allow).toEqual([`ip:${presented}`, 'cidr:127.0.0.0/8']);
    await waitFor(async () => (await tcpAsk(active.ip, listen)) === 'behind-the-presented-address', {
      timeoutMs: 15_000,
      description: 'traffic through the VIP',
    });
  });
});
