// The Brightbox persona (/brightbox) is a view over the one store: a server, server group, firewall policy, load
// balancer or cloud IP made through it is the same resource through /v1; it authenticates with OAuth2 client
// credentials and expiring tokens of its own; errors come in Brightbox's body. The load-balancer test walks the
// calls Brightbox's CCM makes for a Service, in its order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientIdOf } from '../../simulator/personas/brightbox/auth.ts';
import { startSimcloudInProcess, type InProcessSimcloud } from '../helpers/simcloud.ts';
import { unique } from './support.ts';
import { brightboxCloud } from '../../sandbox/cloud/brightbox/cloud.ts';
import { BrightboxMachines } from '../../sandbox/cloud/brightbox/machines.ts';
import { buildRequester } from '../../simulator/api/client/client.ts';

let sc: InProcessSimcloud;
/** How far this simcloud's wall clock runs ahead of the real one. */
let wallSkewMs = 0;
beforeAll(async () => {
  process.env.SIMCLOUD_VALIDATE_RESPONSES = '1';
  sc = await startSimcloudInProcess({ clientOptions: { retry: { maxRetries: 0 } }, wallNow: () => Date.now() + wallSkewMs });
});
afterAll(async () => {
  await sc?.stop();
});

async function tokenFor(secret: string, id = clientIdOf(secret)): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${sc.url}/brightbox/token/`, {
    method: 'POST',
    body: 'grant_type=client_credentials&scope=infrastructure+orbit',
    headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

let bearer = '';
interface Json {
  readonly id: string;
  readonly status: string;
  readonly name: string;
  readonly public_ip: string;
  readonly servers: readonly { id: string }[];
  readonly interfaces: readonly { ipv4_address: string }[];
  readonly cloud_ips: readonly { id: string }[];
  readonly [k: string]: unknown;
}
async function bb(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const r = await fetch(`${sc.url}/brightbox/1.0${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as Json };
}
const simId = (prefix: string, id: string): string => `${prefix}-${String(parseInt(id.slice(4), 36)).padStart(8, '0')}`;

describe('Brightbox persona: OAuth2 client credentials', () => {
  it('issues an expiring bearer for the project token as secret and refuses the project token itself', async () => {
    const t = await tokenFor(sc.token);
    expect(t.status).toBe(200);
    expect(t.body).toMatchObject({ token_type: 'Bearer', expires_in: 7200 });
    bearer = String(t.body.access_token);
    expect(bearer).not.toContain(sc.token);
    const accounts = await bb('GET', '/accounts');
    expect(accounts.status).toBe(200);
    expect((accounts.body as unknown as { id: string }[])[0]?.id).toMatch(/^acc-/);
    const raw = await fetch(`${sc.url}/brightbox/1.0/accounts`, { headers: { authorization: `Bearer ${sc.token}` } });
    expect(raw.status).toBe(401);
    expect((await tokenFor(sc.token, 'cli-zzzzz')).body).toMatchObject({ error: 'invalid_client' });
  });

  it('expires the bearer on the wall clock, which a time advance leaves alone', async () => {
    const t = await tokenFor(sc.token);
    const other = String(t.body.access_token);
    const accounts = (): Promise<number> => fetch(`${sc.url}/brightbox/1.0/accounts`, { headers: { authorization: `Bearer ${other}` } }).then((r) => r.status);
    await sc.admin.fastForward(7_201_000);
    expect(await accounts()).toBe(200);
    wallSkewMs += 7_201_000;
    expect(await accounts()).toBe(401);
    bearer = String((await tokenFor(sc.token)).body.access_token);
  });
});

describe("Brightbox persona: servers and the CCM's load balancer", () => {
  it("makes a server that /v1 shows, with Brightbox's id, zone handle and interface", async () => {
    const made = await bb('POST', '/servers', { name: unique('bb'), image: 'ubuntu-24.04', server_type: 'sc-small', zone: 'sim-1-a' });
    expect(made.status).toBe(202);
    expect(made.body.id).toMatch(/^srv-[0-9a-z]{5}$/);
    const v1 = await sc.client.servers.get(simId('srv', made.body.id));
    const got = await bb('GET', `/servers/${made.body.id}`);
    expect(got.body).toMatchObject({ hostname: made.body.id, zone: { handle: 'sim-1-a' }, server_type: { handle: 'sc-small' } });
    expect(got.body.interfaces[0]?.ipv4_address).toBe(v1.public_ipv4);
    const missing = await bb('GET', '/servers/srv-zzzzz');
    expect(missing).toEqual({ status: 404, body: { error_name: 'missing_resource', errors: ['server srv-zzzzz not found'] } });
  });

  it("walks the CCM's calls: cloud IP, group, policy, rule, load balancer, map, then tears down", async () => {
    const name = unique('web.default.kubernetes');
    const server = (await bb('POST', '/servers', { name: unique('bb'), image: 'ubuntu-24.04', server_type: 'sc-small' })).body;
    const cip = (await bb('POST', '/cloud_ips', { name })).body;
    expect(cip).toMatchObject({ status: 'unmapped', name });
    const group = (await bb('POST', '/server_groups', { name })).body;
    expect((await bb('POST', `/server_groups/${group.id}/add_servers`, { servers: [{ server: server.id }] })).body.servers[0]?.id).toBe(server.id);
    const policy = (await bb('POST', '/firewall_policies', { name, server_group: group.id })).body;
    const rule = await bb('POST', '/firewall_rules', {
      firewall_policy: policy.id,
      protocol: 'tcp',
      source: '10.0.0.0/8',
      destination_port: '30080,30081',
      description: name,
    });
    expect(rule.status).toBe(202);
    const updated = await bb('PUT', `/firewall_rules/${rule.body.id}`, { firewall_policy: policy.id, destination_port: '30080' });
    expect(updated.body).toMatchObject({ destination_port: '30080', source: '10.0.0.0/8' });
    const p1 = await sc.client.firewallPolicies.get(simId('fwp', policy.id));
    expect(p1.rules).toHaveLength(1);
    const lb = await bb('POST', '/load_balancers', {
      name,
      nodes: [{ node: server.id }],
      listeners: [{ protocol: 'http', in: 80, out: 30080 }],
      healthcheck: { type: 'http', port: 30080, request: '/healthz' },
      https_redirect: false,
    });
    expect(lb.body).toMatchObject({
      status: 'creating',
      nodes: [{ id: server.id }],
      listeners: [{ protocol: 'http', in: 80, out: 30080, proxy_protocol: null }],
    });
    const mapped = await bb('POST', `/cloud_ips/${cip.id}/map`, { destination: lb.body.id });
    expect(mapped.body).toMatchObject({ status: 'mapped', load_balancer: { id: lb.body.id } });
    const v1 = await sc.client.loadBalancers.get(simId('lb', lb.body.id));
    expect(v1.public_ipv4).toBe(cip.public_ip);
    expect((await bb('GET', `/load_balancers/${lb.body.id}`)).body.cloud_ips[0]?.id).toBe(cip.id);
    expect((await bb('DELETE', `/server_groups/${group.id}`)).status).toBe(202);
    expect((await bb('DELETE', `/firewall_policies/${policy.id}`)).status).toBe(202);
    expect((await bb('DELETE', `/load_balancers/${lb.body.id}`)).body.status).toBe('deleting');
    expect((await bb('GET', `/cloud_ips/${cip.id}`)).body.status).toBe('unmapped');
    expect((await bb('DELETE', `/cloud_ips/${cip.id}`)).status).toBe(202);
  });

  it("shows a cloud IP mapped to a server as mapped, naming the server and its interface (gobrightbox's contract test found it unmapped)", async () => {
    const server = (await bb('POST', '/servers', { name: unique('bb'), image: 'ubuntu-24.04', server_type: 'sc-small' })).body;
    const cip = (await bb('POST', '/cloud_ips', { name: unique('cip') })).body;
    const mapped = await bb('POST', `/cloud_ips/${cip.id}/map`, { destination: server.id });
    const iface = (await bb('GET', `/servers/${server.id}`)).body.interfaces[0];
    expect(mapped.body).toMatchObject({ status: 'mapped', server: { id: server.id, resource_type: 'server' }, interface: iface, load_balancer: null });
    const listed = ((await bb('GET', '/cloud_ips')).body as unknown as readonly Json[]).find((c) => c.id === cip.id);
    expect(listed).toMatchObject({ status: 'mapped', server: { id: server.id } });
    expect((await bb('GET', `/servers/${server.id}`)).body.cloud_ips).toMatchObject([{ id: cip.id }]);
    expect((await bb('POST', `/cloud_ips/${cip.id}/unmap`, {})).body).toMatchObject({ status: 'unmapped', server: null, interface: null });
    expect((await bb('DELETE', `/cloud_ips/${cip.id}`)).status).toBe(202);
  });
});

describe("Brightbox persona: the sandbox's side", () => {
  it("makes a machine through the persona, whose kubelet registers with the providerID Brightbox's CCM reads", async () => {
    const name = unique('bbm');
    const machines = new BrightboxMachines({ endpoint: sc.url, token: sc.token, providerId: (id) => brightboxCloud.providerId(id) });
    expect(await machines.createMachine({ name, zone: 'sim-1b', serverType: 'sc-small', image: 'ubuntu-24.04', labels: {}, network: 'none' })).toEqual({
      joinedNetwork: false,
      labelled: false,
    });
    const server = (await sc.client.servers.list()).servers.find((x) => x.name === name)!;
    expect(server).toMatchObject({ zone: 'sim-1b', status: 'running' });
    expect(machines.kubeletProviderId(server.id)).toBe(`brightbox://${brightboxCloud.personaId!(server.id)}`);
  });

  it("reads a load balancer back by its cloud IP, and finds the address behind the Service's hostname ingress", async () => {
    const server = (await bb('POST', '/servers', { name: unique('bb'), image: 'ubuntu-24.04', server_type: 'sc-small' })).body;
    const name = `${unique('svc')}.default.kubernetes`;
    const cip = (await bb('POST', '/cloud_ips', { name })).body;
    const lb = (
      await bb('POST', '/load_balancers', {
        name,
        nodes: [{ node: server.id }],
        listeners: [{ protocol: 'tcp', in: 80, out: 30080 }],
        healthcheck: { type: 'tcp', port: 30080 },
      })
    ).body;
    await bb('POST', `/cloud_ips/${cip.id}/map`, { destination: lb.id });
    const ctx = { api: buildRequester({ endpoint: sc.url, token: sc.token }), servers: [], simcloud: { url: sc.url, token: sc.token } };
    expect(await brightboxCloud.conformance.readLoadBalancer(ctx, cip.public_ip)).toMatchObject({
      id: lb.id,
      ports: [80],
      serverIds: [simId('srv', server.id)],
    });
    expect(await brightboxCloud.conformance.readLoadBalancer(ctx, '127.254.254.254')).toBeUndefined();
    const ingress = { hostname: 'localhost', namespace: 'default', service: name.split('.')[0]!, cluster: 'kubernetes' };
    expect(await brightboxCloud.conformance.resolveHostname!(ctx, ingress)).toBe(cip.public_ip);
    // A second cluster on the account with a Service of the same name: each cluster's hostname resolves to its own cloud IP.
    const theirs = (await bb('POST', '/cloud_ips', { name: `${ingress.service}.default.neighbour` })).body;
    expect(await brightboxCloud.conformance.resolveHostname!(ctx, ingress)).toBe(cip.public_ip);
    expect(await brightboxCloud.conformance.resolveHostname!(ctx, { ...ingress, cluster: 'neighbour' })).toBe(theirs.public_ip);
  });
});
