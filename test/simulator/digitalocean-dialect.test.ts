// The DigitalOcean dialect (/v2) is a view over the one store: a droplet or load balancer made through it is
// the same server or load balancer through /v1 (and the reverse), errors come in DigitalOcean's body, and a
// load balancer's forwarding rules carry real TCP through the data plane, PROXY protocol and health checks included.
import { randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../sandbox/wait.ts';
import { startSimcloudInProcess, startSimcloudProcess, type InProcessSimcloud } from '../helpers/simcloud.ts';
import { serverBody, tcpAsk, tcpBackend, tcpService, unique } from './support.ts';

const octet = randomInt(20, 250);
let sc: InProcessSimcloud;
const stops: (() => void)[] = [];
beforeAll(async () => {
  sc = await startSimcloudInProcess({
    config: { dataplane: true, pools: { lb_vip: `127.${octet}.1.0/24`, server_public: `127.${octet}.2.0/24` } },
    clientOptions: { retry: { maxRetries: 0 } },
  });
});
afterAll(async () => {
  for (const stop of stops) stop();
  await sc?.stop();
});

type Call = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) => Promise<{ status: number; body: T }>;

/** Calls /v2 of the simcloud at `url` with `token`. */
const callerOf = (url: string, token: string): Call => async <T>(method: string, path: string, body?: unknown) => {
  const r = await fetch(`${url}/v2${path}`, {
    method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: (r.status === 204 ? {} : await r.json()) as T };
};

const digitalocean: Call = (method, path, body) => callerOf(sc.url, sc.token)(method, path, body);

const sid = (prefix: string, n: number): string => `${prefix}-${String(n).padStart(8, '0')}`;
const uuid = (id: string): string => `00000000-0000-4000-8000-${id.replace(/^[a-z]+-0*/, '').padStart(12, '0')}`;

interface Droplet { id: number; name: string; tags: string[]; networks: { v4: { ip_address: string; type: string }[] } }
interface Lb { id: string; ip: string; status: string; droplet_ids: number[]; forwarding_rules: { entry_port: number; target_port: number }[] }

describe('DigitalOcean dialect over the one store', () => {
  it('shows a droplet made through /v2 as the same server through /v1, tags as labels', async () => {
    const made = await digitalocean<{ droplet: Droplet }>('POST', '/droplets', { name: unique('do'), region: 'sim-1', size: 'sc-small', image: 'ubuntu-24.04', tags: ['k8s:c1', 'web'] });
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
    const { load_balancer: lb } = await sc.client.loadBalancers.create({ name: unique('lb'), services: [tcpService(8080, 31000)], targets: [{ kind: 'server', server_id: server.id }] });
    const seen = await digitalocean<{ load_balancer: Lb }>('GET', `/load_balancers/${uuid(lb.id)}`);
    expect(seen.body.load_balancer).toMatchObject({ id: uuid(lb.id), forwarding_rules: [{ entry_port: 8080, target_port: 31000 }], droplet_ids: [Number(server.id.slice(4))] });
  });

  it("answers errors in DigitalOcean's body with its ids and statuses", async () => {
    const missing = await digitalocean<{ id: string; message: string; request_id: string }>('GET', '/droplets/999999');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ id: 'not_found' });
    expect(missing.body.request_id).not.toBe('');
    const bad = await digitalocean<{ id: string; message: string }>('POST', '/load_balancers', { region: 'sim-1', forwarding_rules: [{ entry_protocol: 'udp', entry_port: 53, target_protocol: 'udp', target_port: 53 }] });
    expect(bad.status).toBe(422);
    expect(bad.body.id).toBe('unprocessable_entity');
    expect(bad.body.message).toMatch(/^forwarding_rules\.0\.entry_protocol: /);
  });

  it('carries TCP through a load balancer made through /v2 to its droplets, with PROXY protocol, once it is active', async () => {
    const port = randomInt(20_000, 30_000);
    const droplets: Droplet[] = [];
    const backends: string[][] = [];
    for (const i of [0, 1]) {
      const made = await digitalocean<{ droplet: Droplet }>('POST', '/droplets', { name: unique(`do-be${i}`), region: 'sim-1', size: 'sc-small', image: 'ubuntu-24.04' });
      const d = made.body.droplet;
      droplets.push(d);
      const backend = await tcpBackend(d.networks.v4.find((n) => n.type === 'public')!.ip_address, port, d.name);
      stops.push(backend.stop);
      backends.push(backend.received);
    }
    const listen = randomInt(30_000, 40_000);
    const created = await digitalocean<{ load_balancer: Lb }>('POST', '/load_balancers', {
      name: unique('do-lb'), region: 'sim-1', droplet_ids: droplets.map((d) => d.id), enable_proxy_protocol: true,
      forwarding_rules: [{ entry_protocol: 'tcp', entry_port: listen, target_protocol: 'tcp', target_port: port }],
      health_check: { protocol: 'tcp', port, check_interval_seconds: 3, response_timeout_seconds: 3, healthy_threshold: 2, unhealthy_threshold: 2 },
    });
    expect(created.status).toBe(202);
    expect(created.body.load_balancer).toMatchObject({ status: 'new', ip: '' });
    const get = async (): Promise<Lb> => (await digitalocean<{ load_balancer: Lb }>('GET', `/load_balancers/${created.body.load_balancer.id}`)).body.load_balancer;
    await waitFor(async () => (await get()).status === 'active', { timeoutMs: 15_000, description: 'load balancer active' });
    const { ip } = await get();
    const lb = await sc.client.loadBalancers.get(`lb-${created.body.load_balancer.id.slice(-8)}`);
    expect(lb.public_ipv4).toBe(ip);
    expect(lb.services).toMatchObject([{ listen_port: listen, destination_port: port, proxy_protocol: 'v1' }]);
    await waitFor(async () => (await sc.client.loadBalancers.get(lb.id)).resolved_targets.every((t) => t.health.every((h) => h.status === 'healthy')), { timeoutMs: 15_000, description: 'both droplets healthy' });
    const replies = new Set<string>();
    for (let i = 0; i < 4; i++) replies.add(await tcpAsk(ip, listen));
    expect([...replies].sort()).toEqual(droplets.map((d) => d.name).sort());
    expect(backends.flat()[0]).toMatch(new RegExp(`^PROXY TCP4 127\\.0\\.0\\.1 ${ip.replace(/\./g, '\\.')} \\d+ ${listen}\\r\\n`));
  });

  it('keeps a load balancer\'s and a firewall\'s DigitalOcean settings across a restart on the same state file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'simcloud-do-'));
    const dataPath = join(dir, 'state.json');
    const first = await startSimcloudProcess({ dataPath, args: ['--delay-ms', '5', '--no-dataplane'] });
    let second: Awaited<ReturnType<typeof startSimcloudProcess>> | undefined;
    try {
      const call = callerOf(first.url, first.token);
      const lb = await call<{ load_balancer: Lb }>('POST', '/load_balancers', {
        name: unique('do-lb'), region: 'sim-1', size_unit: 3, sticky_sessions: { type: 'cookies', cookie_name: 'c', cookie_ttl_seconds: 60 },
        forwarding_rules: [{ entry_protocol: 'https', entry_port: 443, target_protocol: 'http', target_port: 30080, tls_passthrough: false, certificate_id: 'cert-1' }],
      });
      const fw = await call<{ firewall: { id: string } }>('POST', '/firewalls', {
        name: unique('do-fw'), tags: ['k8s:c1'], inbound_rules: [{ protocol: 'tcp', ports: '30080', sources: { addresses: ['0.0.0.0/0', '::/0'] } }],
      });
      await first.stop();
      second = await startSimcloudProcess({ dataPath, token: first.token, args: ['--delay-ms', '5', '--no-dataplane'] });
      const again = callerOf(second.url, second.token);
      expect((await again('GET', `/load_balancers/${lb.body.load_balancer.id}`)).body).toMatchObject({
        load_balancer: {
          size_unit: 3, sticky_sessions: { type: 'cookies', cookie_name: 'c', cookie_ttl_seconds: 60 },
          forwarding_rules: [{ entry_protocol: 'https', target_protocol: 'http', certificate_id: 'cert-1' }],
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
