// simcloud's HTTP surface against hostile requests: DNS-rebinding Host headers on /v1, /_sim, the event
// stream and /metrics; missing, wrong and misplaced tokens; every /v1 route aimed at another project's
// resources; references to another project's resources inside one's own requests; oversized, malformed
// and deeply nested bodies; path traversal in seed names and resource ids. Each refusal is checked for
// its answer (the error envelope) AND for the store's commit sequence not having moved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCa, issueServerCertificate } from '../../sandbox/control-plane/pki.ts';
import { ALL_ROUTES } from '../../simulator/server/app.ts';
import type { SimcloudClient } from '../../simulator/api/client/index.ts';
import { startSimcloudInProcess, type InProcessSimcloud } from '../helpers/simcloud.ts';
import { hostileHosts, loopbackHosts, raw, unchangedBy, type RawResponse } from './support.ts';

interface Owned {
  server: string;
  network: string;
  route: string;
  lb: string;
  group: string;
  policy: string;
  block: string;
  certificate: string;
  action: string;
}

async function createAll(client: SimcloudClient, tag: string): Promise<Owned> {
  const { server, action } = await client.servers.create({ name: `${tag}-srv`, server_type: 'sc-small', image: 'ubuntu-24.04', zone: 'sim-1a' });
  await client.waitForAction(action.id);
  const network = await client.networks.create({ name: `${tag}-net`, ip_range: tag === 'a' ? '10.20.0.0/16' : '10.30.0.0/16' });
  const { route, action: routed } = await client.networks.createRoute(network.id, {
    destination: '10.244.1.0/24',
    gateway: tag === 'a' ? '10.20.0.5' : '10.30.0.5',
  });
  const group = await client.serverGroups.create({ name: `${tag}-grp`, servers: [server.id] });
  const policy = await client.firewallPolicies.create({ name: `${tag}-fw` });
  const { load_balancer: lb, action: built } = await client.loadBalancers.create({ name: `${tag}-lb`, targets: [{ kind: 'server', server_id: server.id }] });
  // Quiet from here on: a refusal must leave the commit sequence where it was.
  for (const id of [routed.id, built.id]) await client.waitForAction(id);
  const block = await client.ipBlocks.allocate({ location: 'sim-1' });
  const tls = await issueServerCertificate(await generateCa(`${tag}-ca`), `CN=${tag}.test`, [`${tag}.test`]);
  const certificate = await client.certificates.create({ name: `${tag}-cert`, certificate: tls.cert, private_key: tls.key });
  return {
    server: server.id,
    network: network.id,
    route: route.id,
    lb: lb.id,
    group: group.id,
    policy: policy.id,
    block: block.id,
    certificate: certificate.id,
    action: action.id,
  };
}

const PARAM_OF: Record<string, keyof Owned> = {
  servers: 'server',
  networks: 'network',
  load_balancers: 'lb',
  server_groups: 'group',
  firewall_policies: 'policy',
  ip_blocks: 'block',
  certificates: 'certificate',
  actions: 'action',
};

describe('simcloud surface', () => {
  let sc: InProcessSimcloud;
  let a: Owned;
  let b: Owned;
  let tokenB: string;
  let port: number;

  beforeAll(async () => {
    sc = await startSimcloudInProcess({ config: { allowedHosts: ['sim.dev.test'] } });
    port = Number(new URL(sc.url).port);
    a = await createAll(sc.client, 'a');
    const project = await sc.admin.createProject('intruder');
    tokenB = (await sc.admin.createToken(project.id, { name: 'b' })).token;
    b = await createAll(sc.clientFor(tokenB, { retry: { maxRetries: 0 } }), 'b');
  });

  afterAll(async () => {
    await sc?.stop();
  });

  const seq = (): number => sc.sim.store.state.seq;
  const unchanged = (attack: () => Promise<RawResponse>): Promise<RawResponse> => unchangedBy(seq, attack);
  const bearer = (t: string): Record<string, string> => ({ authorization: `Bearer ${t}`, 'content-type': 'application/json' });
  const envelope = (r: RawResponse): { code: string; message: string; details?: { fields: { name: string }[] } } =>
    (r.json() as { error: { code: string; message: string; details?: { fields: { name: string }[] } } }).error;

  it('refuses every DNS-rebinding Host with 403 in the error envelope naming the header and the allowed hosts, even with valid tokens', async () => {
    const targets: [string, string, Record<string, string>][] = [
      ['GET', '/v1/servers', bearer(sc.token)],
      ['POST', '/_sim/reset', bearer(sc.adminToken)],
      ['GET', '/_sim/snapshot', bearer(sc.adminToken)],
      ['GET', `/_sim/events?token=${sc.adminToken}`, {}],
      ['GET', '/_sim/health', {}],
      ['GET', '/metrics', {}],
      ['GET', '/openapi.json', {}],
    ];
    for (const [method, path, headers] of targets) {
      for (const host of hostileHosts(port)) {
        const r = await unchanged(() => raw(`${sc.url}${path}`, { method, host, headers, ...(method === 'POST' ? { body: '{}' } : {}) }));
        expect(r.status, `${host} ${path}`).toBe(403);
        const e = envelope(r);
        expect(e.code).toBe('forbidden');
        expect(e.details?.fields[0]?.name).toBe('host');
        expect(e.message).toContain(`127.0.0.1:${port}, localhost:${port}, [::1]:${port}`);
      }
      for (const host of [...loopbackHosts(port), 'sim.dev.test:443']) {
        if (method === 'POST') continue;
        expect((await raw(`${sc.url}${path}`, { method, host, headers, maxBytes: 1 })).status, `${host} ${path}`).toBe(200);
      }
    }
  });

  it('checks Host before any route, so a dialect mounted under its own prefix (or no route at all) is covered too', async () => {
    for (const path of [
      '/hcloud/v1/servers',
      '/v1/hcloud/servers',
      '/linode/v4/linode/instances',
      '/v4/linode/instances',
      '/godo/v2/droplets',
      '/no/such/route',
      '/',
    ]) {
      const r = await unchanged(() => raw(`${sc.url}${path}`, { host: `attacker.example:${port}`, headers: bearer(sc.token) }));
      expect(r.status, path).toBe(403);
      // Linode's envelope is {"errors": [{"field", "reason"}]}; the others name the field in error.details.
      const linode = (r.json() as { errors?: { field?: string }[] }).errors;
      expect(linode === undefined ? envelope(r).details?.fields[0]?.name : linode[0]?.field, path).toBe('host');
    }
  });

  it('refuses a state change carrying a foreign browser Origin even with a valid token, and takes its own Origin', async () => {
    const fault = JSON.stringify({ kind: 'error', probability: 0.01, status: 503, code: 'service_unavailable' });
    for (const origin of ['http://attacker.example', 'null', `https://127.0.0.1:${port}`, `http://localhost:${port + 1}`]) {
      for (const [path, headers, body] of [
        ['/_sim/reset', bearer(sc.adminToken), '{}'],
        [`/v1/servers/${a.server}/actions/poweroff`, bearer(sc.token), '{}'],
        ['/_sim/faults', bearer(sc.adminToken), fault],
      ] as const) {
        const r = await unchanged(() => raw(`${sc.url}${path}`, { method: 'POST', headers: { ...headers, origin }, body }));
        expect(r.status, `${origin} ${path}`).toBe(403);
        expect(envelope(r).details?.fields[0]?.name).toBe('origin');
      }
    }
    expect(sc.sim.faults.list()).toHaveLength(0);
    const own = await raw(`${sc.url}/_sim/faults`, { method: 'POST', headers: { ...bearer(sc.adminToken), origin: `http://localhost:${port}` }, body: fault });
    expect(own.status, own.text).toBe(201);
    expect(sc.sim.faults.list()).toHaveLength(1);
    sc.sim.faults.clear();
    expect((await raw(`${sc.url}/v1/servers`, { headers: { ...bearer(sc.token), origin: 'http://attacker.example' } })).status).toBe(200);
  });

  it('refuses missing, wrong and misplaced tokens on /v1 and /_sim', async () => {
    const cases: [string, string, Record<string, string>, number][] = [
      ['GET', '/v1/servers', {}, 401],
      ['GET', '/v1/servers', bearer('sct_not-a-real-token-000000'), 401],
      ['GET', '/v1/servers', { authorization: `Basic ${Buffer.from(`x:${sc.token}`).toString('base64')}` }, 401],
      ['GET', `/v1/servers?token=${sc.token}`, {}, 401],
      ['GET', '/v1/servers', bearer(sc.adminToken), 401],
      ['POST', `/v1/servers/${a.server}/actions/poweroff`, { 'content-type': 'application/json' }, 401],
      ['POST', '/_sim/reset', {}, 401],
      ['POST', '/_sim/reset', bearer('wrong-admin-token'), 401],
      ['POST', '/_sim/reset', bearer(sc.token), 403],
      ['POST', '/_sim/reset', bearer(tokenB), 403],
      ['PUT', '/_sim/snapshot', bearer(sc.token), 403],
      ['POST', '/_sim/seed', bearer(tokenB), 403],
      ['GET', '/_sim/events', bearer(sc.token), 403],
      ['GET', `/_sim/events?token=${sc.token}`, {}, 403],
      ['POST', `/_sim/projects/${'x'}/tokens`, bearer(tokenB), 403],
    ];
    for (const [method, path, headers, status] of cases) {
      const r = await unchanged(() => raw(`${sc.url}${path}`, { method, headers, ...(method === 'GET' ? {} : { body: '{}' }) }));
      expect(r.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(status);
      expect(envelope(r).code).toBe(status === 401 ? 'unauthorized' : 'forbidden');
    }
  });

  it("answers every /v1 route aimed at another project's resource with 404, changing nothing", async () => {
    const bodies: Record<string, unknown> = {
      'post /v1/servers/:id/actions/attach_to_network': { network_id: b.network },
      'post /v1/servers/:id/actions/detach_from_network': { network_id: b.network },
      'post /v1/networks/:id/routes': { destination: '10.244.9.0/24', gateway: '10.20.0.9' },
      'post /v1/load_balancers/:id/actions/attach_to_network': { network_id: b.network },
      'put /v1/server_groups/:id/servers': { servers: [] },
      'post /v1/server_groups/:id/actions/add_servers': { servers: [b.server] },
      'post /v1/server_groups/:id/actions/remove_servers': { servers: [a.server] },
      'put /v1/firewall_policies/:id/rules': { rules: [] },
      'post /v1/firewall_policies/:id/actions/apply': { server_group_id: b.group },
      'post /v1/ip_blocks/:id/actions/assign': { kind: 'load_balancer', id: b.lb },
    };
    const routes = ALL_ROUTES.filter((r) => r.path.startsWith('/v1/') && r.path.includes(':id'));
    expect(routes.length).toBeGreaterThan(30);
    for (const route of routes) {
      const path = route.path.replace(':id', a[PARAM_OF[route.path.split('/')[2]!]!]).replace(':routeId', a.route);
      const key = `${route.method} ${route.path}`;
      const body = route.method === 'get' || route.method === 'delete' ? undefined : JSON.stringify(bodies[key] ?? {});
      const r = await unchanged(() =>
        raw(`${sc.url}${path}`, { method: route.method.toUpperCase(), headers: bearer(tokenB), ...(body === undefined ? {} : { body }) }),
      );
      expect(r.status, `${key}: ${r.text.slice(0, 200)}`).toBe(404);
      expect(r.text).not.toContain('a-srv');
    }
  });

  it("refuses another project's ids inside one's own requests (targets, members, networks, assignments) and lists none of them", async () => {
    const cases: [string, string, unknown][] = [
      ['POST', '/v1/load_balancers', { name: 'steal', targets: [{ kind: 'server', server_id: a.server }] }],
      ['POST', '/v1/load_balancers', { name: 'steal2', targets: [{ kind: 'server_group', server_group_id: a.group }] }],
      ['POST', '/v1/server_groups', { name: 'steal', servers: [a.server] }],
      ['POST', `/v1/server_groups/${b.group}/actions/add_servers`, { servers: [a.server] }],
      ['PUT', `/v1/server_groups/${b.group}/servers`, { servers: [a.server] }],
      ['POST', `/v1/servers/${b.server}/actions/attach_to_network`, { network_id: a.network }],
      ['POST', `/v1/firewall_policies/${b.policy}/actions/apply`, { server_group_id: a.group }],
      ['POST', '/v1/firewall_policies', { name: 'steal', server_group_id: a.group }],
      ['POST', `/v1/ip_blocks/${b.block}/actions/assign`, { kind: 'load_balancer', id: a.lb }],
      ['POST', `/v1/ip_blocks/${b.block}/actions/assign`, { kind: 'network', id: a.network }],
    ];
    for (const [method, path, body] of cases) {
      const r = await unchanged(() => raw(`${sc.url}${path}`, { method, headers: bearer(tokenB), body: JSON.stringify(body) }));
      expect([400, 404], `${method} ${path} ${JSON.stringify(body)}: ${r.text.slice(0, 200)}`).toContain(r.status);
    }
    for (const list of ['servers', 'networks', 'load_balancers', 'server_groups', 'firewall_policies', 'ip_blocks', 'certificates']) {
      const r = await raw(`${sc.url}/v1/${list}`, { headers: bearer(tokenB) });
      expect(r.status).toBe(200);
      for (const id of Object.values(a)) expect(r.text, `${list} lists ${id}`).not.toContain(`"${id}"`);
    }
  });

  it('refuses oversized, malformed, deeply nested and non-object bodies with invalid_input naming (body)', async () => {
    const bodies = [
      `{"name":"${'x'.repeat(3 * 1024 * 1024)}"}`,
      '{"name":',
      '\u0000\u0001',
      `${'['.repeat(50_000)}${']'.repeat(50_000)}`,
      '"just a string"',
      'null',
      '[]',
      JSON.stringify({ name: 'p', server_type: 'sc-small', image: 'ubuntu-24.04', zone: 'sim-1a', __proto__: { labels: { admin: 'yes' } }, extra: true }),
    ];
    for (const body of bodies) {
      const r = await unchanged(() => raw(`${sc.url}/v1/servers`, { method: 'POST', headers: bearer(sc.token), body }));
      expect(r.status, body.slice(0, 40)).toBe(400);
      expect(envelope(r).code).toBe('invalid_input');
    }
  });

  it('refuses path traversal in seed names and resource ids', async () => {
    for (const name of ['../../etc/passwd', '..%2F..%2Fetc', 'demo/../../x', 'constructor', '__proto__', 'toString', '/etc/passwd']) {
      const r = await unchanged(() => raw(`${sc.url}/_sim/seed`, { method: 'POST', headers: bearer(sc.adminToken), body: JSON.stringify({ name }) }));
      expect(r.status, name).toBe(400);
      expect(envelope(r).details?.fields[0]?.name).toBe('name');
    }
    for (const id of ['..%2F..%2F_sim%2Freset', '%2e%2e', '..', 'srv-1%00', `${a.server}%2F..%2F${a.server}`]) {
      const r = await unchanged(() => raw(`${sc.url}/v1/servers/${id}`, { method: 'DELETE', headers: bearer(sc.token) }));
      expect([400, 404], id).toContain(r.status);
    }
  });
});
