// Load balancers created through the API carry real TCP traffic on their loopback VIP: forwarding to
// loopback backends, health checks visible in the API, PROXY protocol, and source filtering.
import { randomInt } from 'node:crypto';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LoadBalancerService } from '../../simulator/api/schema/load-balancers.ts';
import { startSimcloudOnOwnPlan, type InProcessSimcloud } from '../helpers/simcloud.ts';
import { serverBody, tcpService, unique } from './support.ts';

// A /24 of loopback per test file run, so parallel simclouds never bind the same VIP.
let sc: InProcessSimcloud;
const cleanups: (() => Promise<void>)[] = [];
beforeAll(async () => {
  sc = await startSimcloudOnOwnPlan({ clientOptions: { retry: { maxRetries: 0 } } });
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  await sc?.stop();
});

interface Backend {
  ip: string;
  port: number;
  received: Buffer[];
  stop(): Promise<void>;
}

async function backend(ip: string, port: number, name: string): Promise<Backend> {
  const received: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.once('data', (d: Buffer) => {
      received.push(d);
      s.end(`${name}\n`);
    });
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, ip, () => resolve()));
  const b: Backend = {
    ip,
    port,
    received,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  cleanups.push(() => b.stop());
  return b;
}

function request(ip: string, port: number, payload = 'hello\n', localAddress?: string): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect({ host: ip, port, localAddress });
    let data = '';
    s.on('connect', () => s.write(payload));
    s.on('data', (d) => (data += d.toString()));
    s.on('close', () => resolve(data.trim()));
    s.on('error', () => resolve(data.trim()));
    s.setTimeout(3000, () => s.destroy());
  });
}

async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function setup(count: number, service: Partial<LoadBalancerService> = {}, lbOver: Record<string, unknown> = {}) {
  const destPort = randomInt(20_000, 30_000);
  const listenPort = randomInt(30_000, 40_000);
  const app = unique('app');
  const backends: Backend[] = [];
  const servers = [];
  for (let i = 0; i < count; i++) {
    const { server, action } = await sc.client.servers.create(serverBody({ labels: { app } }));
    await sc.client.waitForAction(action.id);
    servers.push(server);
    backends.push(await backend(server.public_ipv4!, destPort, server.name));
  }
  const { load_balancer: lb, action } = await sc.client.loadBalancers.create({
    name: unique('lb'),
    services: [tcpService(listenPort, destPort, service)],
    targets: [{ kind: 'label_selector', label_selector: `app=${app}` }],
    ...lbOver,
  });
  cleanups.push(async () => {
    await sc.client.loadBalancers.delete(lb.id).catch(() => undefined);
  });
  await sc.client.waitForAction(action.id);
  const healthy = (n: number) =>
    eventually(
      () => sc.client.loadBalancers.get(lb.id),
      (l) => l.resolved_targets.filter((t) => t.health[0]!.status === 'healthy').length === n,
    );
  await healthy(count);
  return { lb, servers, backends, listenPort, vip: lb.public_ipv4, healthy };
}

describe('load balancer data plane through the API', () => {
  it('forwards TCP on the VIP to loopback backends, round robin, and counts per target', async () => {
    const { vip, listenPort, servers, lb } = await setup(2);
    const replies = [];
    for (let i = 0; i < 4; i++) replies.push(await request(vip, listenPort));
    expect(replies.sort()).toEqual([servers[0]!.name, servers[0]!.name, servers[1]!.name, servers[1]!.name].sort());
    const counters = await eventually(
      () => sc.client.loadBalancers.metrics(lb.id),
      (c) => c.every((x) => x.active_connections === 0),
    );
    expect(counters.map((c) => c.connections)).toEqual([2, 2]);
    expect(counters.every((c) => c.bytes_in > 0 && c.bytes_out > 0)).toBe(true);
  });

  it('marks a stopped backend unhealthy in the API and sends it no traffic', async () => {
    const { vip, listenPort, servers, backends, lb } = await setup(2);
    await backends[0]!.stop();
    const got = await eventually(
      () => sc.client.loadBalancers.get(lb.id),
      (l) => l.resolved_targets.some((t) => t.health[0]!.status === 'unhealthy'),
    );
    expect(got.resolved_targets.find((t) => t.id === servers[0]!.id)!.health[0]!.status).toBe('unhealthy');
    for (let i = 0; i < 4; i++) expect(await request(vip, listenPort)).toBe(servers[1]!.name);
  });

  it('sends a PROXY protocol v1 header when enabled', async () => {
    const { vip, listenPort, backends } = await setup(1, { proxy_protocol: 'v1' });
    await request(vip, listenPort, 'payload\n');
    const first = backends[0]!.received.map((b) => b.toString()).join('');
    expect(first).toMatch(new RegExp(`^PROXY TCP4 127\\.0\\.0\\.1 ${vip.replace(/\./g, '\\.')} \\d+ ${listenPort}\\r\\n`));
  });

  it('refuses sources outside the LB source ranges, and follows a firewall policy on its server group', async () => {
    const { vip, listenPort, lb, servers } = await setup(1, {}, { source_ranges: ['10.0.0.0/8'] });
    expect(await request(vip, listenPort)).toBe('');
    await sc.client.loadBalancers.update(lb.id, { source_ranges: ['127.0.0.0/8'] });
    expect(
      await eventually(
        () => request(vip, listenPort),
        (r) => r === servers[0]!.name,
      ),
    ).toBe(servers[0]!.name);
    const group = await sc.client.serverGroups.create({ name: unique('grp'), servers: [servers[0]!.id] });
    const policy = await sc.client.firewallPolicies.create({
      name: unique('fw'),
      rules: [{ direction: 'inbound', protocol: 'tcp', source_cidrs: ['192.168.0.0/16'] }],
      server_group_id: group.id,
    });
    await sc.client.loadBalancers.update(lb.id, { source_ranges: [], targets: [{ kind: 'server_group', server_group_id: group.id }] });
    expect(
      await eventually(
        () => request(vip, listenPort),
        (r) => r === '',
      ),
    ).toBe('');
    await sc.client.firewallPolicies.setRules(policy.id, [{ direction: 'inbound', protocol: 'tcp', source_cidrs: ['127.0.0.1/32'] }]);
    expect(
      await eventually(
        () => request(vip, listenPort),
        (r) => r === servers[0]!.name,
      ),
    ).toBe(servers[0]!.name);
  });

  it('closes the VIP listener when the LB is deleted', async () => {
    const { vip, listenPort, lb } = await setup(1);
    await sc.client.waitForAction((await sc.client.loadBalancers.delete(lb.id)).id);
    const refused = await eventually(
      () =>
        new Promise<boolean>((resolve) => {
          const s = net.connect({ host: vip, port: listenPort });
          s.on('connect', () => {
            s.destroy();
            resolve(false);
          });
          s.on('error', () => resolve(true));
        }),
      (r) => r,
    );
    expect(refused).toBe(true);
  });
});
