// The phoenixNAP persona (/pnap) is a view over the one store: a server, IP block or private network made
// through it is the same server, IP block or network through /v1 (and the reverse); it authenticates with
// OAuth2 client credentials and expiring tokens of its own; errors come in phoenixNAP's body.
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientIdOf } from '../../simulator/personas/phoenixnap/auth.ts';
import { startSimcloudInProcess, type InProcessSimcloud } from '../helpers/simcloud.ts';
import { phoenixnapCloud } from '../../sandbox/cloud/phoenixnap/cloud.ts';
import { buildRequester } from '../../simulator/api/client/client.ts';
import { PhoenixnapMachines } from '../../sandbox/cloud/phoenixnap/machines.ts';
import { preparePhoenixnapCcm } from '../../sandbox/cloud/phoenixnap/ccm-config.ts';
import type { MachineCreateSpec } from '../../sandbox/cloud/descriptor.ts';
import { serverBody, tcpService, unique } from './support.ts';

let sc: InProcessSimcloud;
/** How far this simcloud's wall clock runs ahead of the real one. */
let wallSkewMs = 0;
beforeAll(async () => {
  // Every answer is checked against its route's response schema.
  process.env.SIMCLOUD_VALIDATE_RESPONSES = '1';
  sc = await startSimcloudInProcess({ clientOptions: { retry: { maxRetries: 0 } }, wallNow: () => Date.now() + wallSkewMs });
  // Every describe calls through `pnap` with this bearer, so none depends on a test before it having run (`-t`).
  bearer = String((await tokenFor(sc.token)).body.access_token);
});
afterAll(async () => {
  await sc?.stop();
});

const TOKEN = '/pnap/auth/realms/BMC/protocol/openid-connect/token';
const sid = (prefix: string, id: string): string => `${prefix}-${id.slice(2).replace(/^0+/, '').padStart(8, '0')}`;
const pid = (simId: string): string => `a1${simId.replace(/^[a-z]+-0*/, '').padStart(22, '0')}`;

async function tokenFor(secret: string, id = clientIdOf(secret)): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${sc.url}${TOKEN}`, {
    method: 'POST',
    body: 'grant_type=client_credentials&scope=bmc',
    headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

let bearer = '';
type Call = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) => Promise<{ status: number; body: T }>;
const pnap: Call = async <T>(method: string, path: string, body?: unknown) => {
  const r = await fetch(`${sc.url}/pnap${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (r.status === 401) throw new Error(`${method} ${path} answered 401 ${await r.text()}: ${bearerState()}`);
  return { status: r.status, body: (r.status === 204 ? {} : await r.json()) as T };
};

/**
 * No call through `pnap` expects a 401: when one comes, what says why (the bearer's claims against simcloud's wall
 * clock, and whether the project token it was issued for still exists).
 */
function bearerState(): string {
  let claims: { sub?: string; iat?: number; exp?: number } = {};
  try {
    claims = JSON.parse(Buffer.from(bearer.split('.')[1] ?? '', 'base64url').toString('utf8')) as typeof claims;
  } catch {
    return `the bearer is no JWT (${bearer.length} characters)`;
  }
  const wallS = Math.floor(sc.sim.clock.wallNow() / 1000);
  const kept = sc.sim.store.all('tokens').some((t) => t.id === claims.sub);
  return `bearer iat ${claims.iat} exp ${claims.exp}, simcloud wall clock ${wallS} s (skew ${wallSkewMs} ms), subject ${claims.sub} ${kept ? 'exists' : 'is gone'}`;
}

interface PnapServer {
  id: string;
  hostname: string;
  status: string;
  privateIpAddresses: string[];
  publicIpAddresses: string[];
  tags: { name: string; value?: string }[];
}
interface PnapBlock {
  id: string;
  cidr: string;
  cidrBlockSize: string;
  status: string;
  assignedResourceId?: string;
  assignedResourceType?: string;
}

describe('phoenixNAP persona: OAuth2 client credentials', () => {
  it('issues an expiring bearer for the project token as client secret, and refuses the project token itself', async () => {
    const t = await tokenFor(sc.token);
    expect(t.status).toBe(200);
    expect(t.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'bmc' });
    bearer = String(t.body.access_token);
    expect(bearer).not.toContain(sc.token);
    expect((await pnap('GET', '/bmc/v1/servers')).status).toBe(200);
    const raw = await fetch(`${sc.url}/pnap/bmc/v1/servers`, { headers: { authorization: `Bearer ${sc.token}` } });
    expect(raw.status).toBe(401);
    expect(await raw.json()).toEqual({ message: 'Unauthorized' });
  });

  it("answers invalid_client for a wrong secret or client id, in OAuth2's body", async () => {
    for (const r of [await tokenFor('not-a-token'), await tokenFor(sc.token, 'simcloud-0000')]) {
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ error: 'invalid_client', error_description: 'Invalid client or Invalid client credentials' });
    }
    expect(clientIdOf(sc.token)).toBe(`simcloud-${createHash('sha256').update(`phoenixnap-client:${sc.token}`).digest('hex').slice(0, 20)}`);
  });

  it('takes credentials in the form too, and refuses other grants', async () => {
    const form = (grant: string): Promise<Response> =>
      fetch(`${sc.url}${TOKEN}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: grant, client_id: clientIdOf(sc.token), client_secret: sc.token }).toString(),
      });
    expect((await form('client_credentials')).status).toBe(200);
    const bad = await form('password');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it('lets a token expire on the wall clock, which a time advance leaves alone', async () => {
    const old = String((await tokenFor(sc.token)).body.access_token);
    const servers = (): Promise<number> => fetch(`${sc.url}/pnap/bmc/v1/servers`, { headers: { authorization: `Bearer ${old}` } }).then((r) => r.status);
    await sc.admin.fastForward(3601 * 1000);
    expect(await servers()).toBe(200);
    wallSkewMs += 3601 * 1000;
    expect(await servers()).toBe(401);
    bearer = String((await tokenFor(sc.token)).body.access_token);
  });

  it("checks the signature with the realm key before the subject: a token signed with its project token's secret is refused", async () => {
    const good = String((await tokenFor(sc.token)).body.access_token);
    const [head, body] = good.split('.') as [string, string];
    const projectToken = sc.sim.store.all('tokens')[0]!;
    const perTokenKey = createHmac('sha256', projectToken.secret).update('phoenixnap-access-token').digest();
    const forged = `${head}.${body}.${createHmac('sha256', perTokenKey).update(`${head}.${body}`).digest('base64url')}`;
    for (const bad of [forged, `${head}.${body}.${'A'.repeat(43)}`]) {
      expect((await fetch(`${sc.url}/pnap/bmc/v1/servers`, { headers: { authorization: `Bearer ${bad}` } })).status).toBe(401);
    }
    expect((await fetch(`${sc.url}/pnap/bmc/v1/servers`, { headers: { authorization: `Bearer ${good}` } })).status).toBe(200);
  });

  it('revokes its access tokens with the project token they were issued for', async () => {
    const project = (await sc.admin.listProjects())[0]!;
    const made = await sc.admin.createToken(project.id, { name: unique('revoke') });
    const access = String((await tokenFor(made.token)).body.access_token);
    const servers = (): Promise<number> => fetch(`${sc.url}/pnap/bmc/v1/servers`, { headers: { authorization: `Bearer ${access}` } }).then((r) => r.status);
    expect(await servers()).toBe(200);
    await sc.admin.deleteToken(made.id);
    expect(await servers()).toBe(401);
  });
});

describe('phoenixNAP persona over the one store', () => {
  it('shows a server made through the BMC API as the same server through /v1, tags as labels', async () => {
    const net = await sc.client.networks.create({ name: unique('pn'), ip_range: '10.77.0.0/24' });
    const made = await pnap<PnapServer>('POST', '/bmc/v1/servers', {
      hostname: unique('bmc'),
      os: 'ubuntu-24.04',
      type: 'sc-small',
      location: 'sim-1',
      tags: [{ name: 'k8s', value: 'c1' }, { name: 'web' }],
      networkConfiguration: { privateNetworkConfiguration: { configurationType: 'USER_DEFINED', privateNetworks: [{ id: pid(net.id), ips: ['10.77.0.9'] }] } },
    });
    expect(made.status).toBe(200);
    expect(made.body.status).toBe('creating');
    const server = await sc.client.servers.get(sid('srv', made.body.id));
    expect(server).toMatchObject({ name: made.body.hostname, labels: { k8s: 'c1', web: '' }, private_ipv4: '10.77.0.9' });
    await expect.poll(async () => (await sc.client.servers.get(server.id)).status).toBe('running');
    await sc.client.servers.update(server.id, { labels: { team: 'b' } });
    const seen = await pnap<PnapServer>('GET', `/bmc/v1/servers/${made.body.id}`);
    expect(seen.body.tags).toEqual([expect.objectContaining({ name: 'team', value: 'b' })]);
    expect(seen.body.privateIpAddresses).toEqual(['10.77.0.9']);
    expect((await pnap<PnapServer[]>('GET', '/bmc/v1/servers?tag=team.b')).body.map((s) => s.id)).toEqual([made.body.id]);
    expect((await pnap<PnapServer[]>('GET', '/bmc/v1/servers?tag=team.c')).body).toEqual([]);
  });

  it('allocates a /29 by default, assigns it to a server and back, and shows a /v1 block', async () => {
    const { server, action } = await sc.client.servers.create(serverBody());
    await sc.client.waitForAction(action.id);
    const block = await pnap<PnapBlock>('POST', '/ips/v1/ip-blocks', { location: 'sim-1', tags: [{ name: 'usage', value: 'ccm' }] });
    expect(block.status).toBe(201);
    expect(block.body).toMatchObject({ cidrBlockSize: '/29', status: 'unassigned' });
    const add = await pnap('POST', `/bmc/v1/servers/${pid(server.id)}/network-configuration/ip-block-configurations/ip-blocks`, { id: block.body.id });
    expect(add.status).toBe(202);
    expect(await sc.client.ipBlocks.get(sid('ipb', block.body.id))).toMatchObject({ status: 'assigned', assigned_to: { kind: 'server', id: server.id } });
    const seen = await pnap<PnapBlock>('GET', `/ips/v1/ip-blocks/${block.body.id}`);
    expect(seen.body).toMatchObject({ status: 'assigned', assignedResourceId: pid(server.id), assignedResourceType: 'server' });
    expect((await pnap('DELETE', `/ips/v1/ip-blocks/${block.body.id}`)).status).toBe(409);
    const del = await pnap('DELETE', `/bmc/v1/servers/${pid(server.id)}/network-configuration/ip-block-configurations/ip-blocks/${block.body.id}`, {});
    expect(del.status).toBe(202);
    expect((await pnap('DELETE', `/ips/v1/ip-blocks/${block.body.id}`)).status).toBe(200);
    const v1 = await sc.client.ipBlocks.allocate({ location: 'sim-2', tags: { via: 'v1' } });
    expect((await pnap<PnapBlock[]>('GET', '/ips/v1/ip-blocks?tag=via.v1')).body).toEqual([expect.objectContaining({ id: pid(v1.id), cidr: v1.cidr })]);
  });

  it('creates private networks that are /v1 networks, with their members', async () => {
    const made = await pnap<{ id: string; cidr: string; memberships: unknown[] }>('POST', '/networks/v1/private-networks', {
      name: unique('pn'),
      location: 'sim-1',
      cidr: '10.78.0.0/24',
    });
    expect(made.status).toBe(201);
    const net = await sc.client.networks.get(sid('net', made.body.id));
    expect(net.ip_range).toBe('10.78.0.0/24');
    const { server, action } = await sc.client.servers.create({ ...serverBody(), networks: [net.id] });
    await sc.client.waitForAction(action.id);
    const seen = await pnap<{ memberships: { resourceId: string; ips: string[] }[] }>('GET', `/networks/v1/private-networks/${made.body.id}`);
    expect(seen.body.memberships).toEqual([{ resourceId: pid(server.id), resourceType: 'server', ips: [server.private_ipv4] }]);
    expect((await pnap('DELETE', `/networks/v1/private-networks/${made.body.id}`)).status).toBe(409);
  });

  it('powers servers off and on through the BMC API', async () => {
    const { server, action } = await sc.client.servers.create(serverBody());
    await sc.client.waitForAction(action.id);
    const off = await pnap('POST', `/bmc/v1/servers/${pid(server.id)}/actions/power-off`, {});
    expect(off.body).toEqual({ result: 'Server powered off' });
    await expect.poll(async () => (await pnap<PnapServer>('GET', `/bmc/v1/servers/${pid(server.id)}`)).body.status).toBe('powered-off');
    expect((await pnap('POST', `/bmc/v1/servers/${pid(server.id)}/actions/power-on`, {})).status).toBe(200);
    await expect.poll(async () => (await sc.client.servers.get(server.id)).status).toBe('running');
  });

  it("answers errors in phoenixNAP's body", async () => {
    const missing = await pnap('GET', '/bmc/v1/servers/a10000000000000000999999');
    expect(missing).toEqual({ status: 404, body: { message: 'server a10000000000000000999999 not found' } });
    const bad = await pnap<{ message: string; validationErrors: string[] }>('POST', '/bmc/v1/servers', {
      hostname: 'x',
      os: 'ubuntu-24.04',
      type: 'nope',
      location: 'sim-1',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors).toEqual(['type: unknown type nope; one of sc-small, sc-medium, sc-large']);
  });
});

describe('phoenixNAP persona: a deleted server', () => {
  it('answers 403 on every call naming a server of the project that was deleted, whichever API deleted it; an id that never was stays 404', async () => {
    const made = await Promise.all([0, 1].map(() => sc.client.servers.create(serverBody())));
    await Promise.all(made.map(({ action }) => sc.client.waitForAction(action.id)));
    const [viaPnap, viaV1] = [made[0]!.server, made[1]!.server];
    expect((await pnap('DELETE', `/bmc/v1/servers/${pid(viaPnap.id)}`)).status).toBe(200);
    await sc.client.waitForAction((await sc.client.servers.delete(viaV1.id)).id);
    await expect.poll(async () => (await pnap('GET', `/bmc/v1/servers/${pid(viaPnap.id)}`)).status).toBe(403);
    for (const s of [viaPnap, viaV1]) {
      const id = pid(s.id);
      expect(await pnap('GET', `/bmc/v1/servers/${id}`)).toEqual({ status: 403, body: { message: `server ${id} was deleted and can no longer be accessed` } });
      const calls: [string, string, unknown][] = [
        ['PATCH', `/bmc/v1/servers/${id}`, { hostname: 'again' }],
        ['DELETE', `/bmc/v1/servers/${id}`, undefined],
        ['POST', `/bmc/v1/servers/${id}/actions/deprovision`, {}],
        ['POST', `/bmc/v1/servers/${id}/actions/power-on`, {}],
        ['PUT', `/bmc/v1/servers/${id}/tags`, []],
        ['POST', `/bmc/v1/servers/${id}/network-configuration/private-network-configuration/private-networks`, { id: 'a10000000000000000000001' }],
      ];
      for (const [method, path, body] of calls) expect((await pnap(method, path, body)).status, `${method} ${path}`).toBe(403);
    }
    expect((await pnap('GET', '/bmc/v1/servers/a10000000000000000888888')).status).toBe(404);
  });

  it("answers another project's deleted server as an id that never was: 404", async () => {
    const { server, action } = await sc.client.servers.create(serverBody());
    await sc.client.waitForAction(action.id);
    await sc.client.waitForAction((await sc.client.servers.delete(server.id)).id);
    const project = await sc.admin.createProject(unique('other'));
    const other = String((await tokenFor((await sc.admin.createToken(project.id, { name: 'other' })).token)).body.access_token);
    const r = await fetch(`${sc.url}/pnap/bmc/v1/servers/${pid(server.id)}`, { headers: { authorization: `Bearer ${other}` } });
    expect(r.status).toBe(404);
    expect((await pnap('GET', `/bmc/v1/servers/${pid(server.id)}`)).status).toBe(403);
  });
});

describe('phoenixNAP persona: servers on public networks', () => {
  interface PubNet {
    id: string;
    memberships: { resourceId: string; resourceType: string; ips: string[] }[];
    ipBlocks: { id: string }[];
  }
  interface WithPublic {
    networkConfiguration: { publicNetworkConfiguration: { publicNetworks: { id: string; ips: string[]; statusDescription?: string }[] } };
  }
  const joinPath = (serverId: string): string => `/bmc/v1/servers/${serverId}/network-configuration/public-network-configuration/public-networks`;

  it('adds a server to a public network with an address of its block; both read the membership back, and leaving clears it', async () => {
    const { server, action } = await sc.client.servers.create(serverBody());
    await sc.client.waitForAction(action.id);
    const block = await pnap<PnapBlock>('POST', '/ips/v1/ip-blocks', { location: 'sim-1' });
    const net = await pnap<PubNet>('POST', '/networks/v1/public-networks', { name: unique('pub'), location: 'sim-1', ipBlocks: [{ id: block.body.id }] });
    const ip = (await sc.client.ipBlocks.get(sid('ipb', block.body.id))).usable_addresses[1]!;
    const join = await pnap('POST', joinPath(pid(server.id)), { id: net.body.id, ips: [ip] });
    expect(join).toEqual({ status: 202, body: { id: net.body.id, ips: [ip], statusDescription: 'assigning' } });
    await expect
      .poll(
        async () => (await pnap<WithPublic>('GET', `/bmc/v1/servers/${pid(server.id)}`)).body.networkConfiguration.publicNetworkConfiguration.publicNetworks,
      )
      .toEqual([{ id: net.body.id, ips: [ip], statusDescription: 'assigned' }]);
    expect((await pnap<PubNet>('GET', `/networks/v1/public-networks/${net.body.id}`)).body.memberships).toEqual([
      { resourceId: pid(server.id), resourceType: 'server', ips: [ip] },
    ]);
    // The membership pins the network and the block whose address it holds.
    const netDelete = await pnap<{ message: string }>('DELETE', `/networks/v1/public-networks/${net.body.id}`);
    expect([netDelete.status, netDelete.body.message]).toEqual([409, `public network ${net.body.id} still has member servers; remove them first`]);
    const blockRemove = await pnap<{ message: string }>('DELETE', `/networks/v1/public-networks/${net.body.id}/ip-blocks/${block.body.id}`);
    expect(blockRemove.status).toBe(409);
    expect(blockRemove.body.message).toContain(`servers ${pid(server.id)} hold addresses of IP block ${block.body.id}`);
    await expect.poll(async () => (await pnap('DELETE', `${joinPath(pid(server.id))}/${net.body.id}`)).status).toBe(202);
    await expect.poll(async () => (await pnap<PubNet>('GET', `/networks/v1/public-networks/${net.body.id}`)).body.memberships).toEqual([]);
    expect((await pnap<WithPublic>('GET', `/bmc/v1/servers/${pid(server.id)}`)).body.networkConfiguration.publicNetworkConfiguration.publicNetworks).toEqual(
      [],
    );
  });

  it("refuses an address outside the network's blocks, a second join, a private network and a stranger's leave, naming the field", async () => {
    const { server, action } = await sc.client.servers.create(serverBody());
    await sc.client.waitForAction(action.id);
    const net = await pnap<PubNet>('POST', '/networks/v1/public-networks', { name: unique('pub'), location: 'sim-1' });
    const outside = await pnap<{ validationErrors: string[] }>('POST', joinPath(pid(server.id)), { id: net.body.id, ips: ['127.2.255.250'] });
    expect(outside.status).toBe(400);
    expect(outside.body.validationErrors).toEqual([`ips.0: 127.2.255.250 is not a usable address of an IP block on public network ${net.body.id}`]);
    const priv = await sc.client.networks.create({ name: unique('pn'), ip_range: '10.81.0.0/24' });
    expect(await pnap('POST', joinPath(pid(server.id)), { id: pid(priv.id) })).toEqual({
      status: 404,
      body: { message: `public network ${pid(priv.id)} not found`, validationErrors: [`id: public network ${pid(priv.id)} not found`] },
    });
    expect((await pnap('POST', joinPath(pid(server.id)), { id: '__proto__' })).status).toBe(404);
    const leave = await pnap<{ validationErrors: string[] }>('DELETE', `${joinPath(pid(server.id))}/${net.body.id}`);
    expect(leave.status).toBe(400);
    expect(leave.body.validationErrors).toEqual([`publicNetworkId: server ${pid(server.id)} is not a member of public network ${net.body.id}`]);
    expect((await pnap('POST', joinPath(pid(server.id)), { id: net.body.id, ips: [] })).status).toBe(202);
    await expect.poll(async () => (await pnap('POST', joinPath(pid(server.id)), { id: net.body.id })).status).toBe(409);
  });
});

describe('phoenixNAP persona as the sandbox uses it', () => {
  it('makes a machine through the BMC API on the cluster network, and reads an IP block strategy LB back', async () => {
    const net = await sc.client.networks.create({ name: unique('cl'), ip_range: '10.79.0.0/24' });
    const machines = new PhoenixnapMachines({ endpoint: sc.url, token: sc.token });
    const name = unique('node');
    expect(await machines.createMachine({ name, zone: 'sim-1a', serverType: 'sc-small', image: 'ubuntu-24.04', labels: {}, network: net.name })).toEqual({
      joinedNetwork: true,
      labelled: false,
    });
    const server = (await sc.client.servers.list({})).servers.find((x) => x.name === name)!;
    expect(server).toMatchObject({ status: 'running', private_networks: [{ network_id: net.id }] });
    const publicNets = (await pnap<{ id: string; name: string; memberships: { resourceId: string }[] }[]>('GET', '/networks/v1/public-networks')).body.filter(
      (n) => n.name === `${net.name}-public`,
    );
    expect(publicNets.map((n) => n.memberships)).toEqual([[{ resourceId: pid(server.id), resourceType: 'server', ips: [] }]]);
    const block = await sc.client.ipBlocks.allocate({ location: 'sim-1', size: 29, tags: { usage: 'cloud-provider-phoenixnap-auto' } });
    const { load_balancer: lb } = await sc.client.loadBalancers.create({
      name: unique('lb'),
      ip_block_id: block.id,
      services: [tcpService(80, 30080)],
      targets: [{ kind: 'server', server_id: server.id }],
    });
    const ctx = { api: buildRequester({ endpoint: sc.url, token: sc.token }), servers: [server], simcloud: { url: sc.url, token: sc.token } };
    expect(await phoenixnapCloud.conformance.readLoadBalancer(ctx, lb.public_ipv4)).toMatchObject({ id: pid(block.id), ports: [80], serverIds: [server.id] });
    expect(await phoenixnapCloud.conformance.checkAnnotated?.(ctx, lb.public_ipv4)).toEqual([]);
    expect(await phoenixnapCloud.conformance.readLoadBalancer(ctx, '127.254.254.254')).toBeUndefined();
  });
});

describe("phoenixNAP persona: the sandbox's machines on the cluster's public network", () => {
  it("puts machines made at once, and the CCM's preparation, on one public network", async () => {
    const net = await sc.client.networks.create({ name: unique('cl'), ip_range: '10.82.0.0/24' });
    const machines = new PhoenixnapMachines({ endpoint: sc.url, token: sc.token });
    const spec = (name: string): MachineCreateSpec => ({ name, zone: 'sim-1a', serverType: 'sc-small', image: 'ubuntu-24.04', labels: {}, network: net.name });
    const names = [unique('node'), unique('node')];
    const ccmDir = mkdtempSync(join(tmpdir(), 'pnap-ccm-'));
    try {
      const [prepared] = await Promise.all([
        preparePhoenixnapCcm({ endpoint: sc.url, token: sc.token, network: net.name, zone: 'sim-1a', ccmDir }),
        ...names.map((n) => machines.createMachine(spec(n))),
      ]);
      const publicNets = (await pnap<{ id: string; name: string; memberships: { resourceId: string }[] }[]>('GET', '/networks/v1/public-networks')).body.filter(
        (n) => n.name === `${net.name}-public`,
      );
      expect(publicNets.map((n) => n.id)).toEqual([prepared]);
      const ids = (await sc.client.servers.list({})).servers.filter((x) => names.includes(x.name)).map((x) => pid(x.id));
      expect(publicNets[0]!.memberships.map((m) => m.resourceId).sort()).toEqual(ids.sort());
    } finally {
      rmSync(ccmDir, { recursive: true, force: true });
    }
  });
});

describe('phoenixNAP persona: tags', () => {
  interface PnapTag {
    id: string;
    name: string;
    description?: string;
    values?: string[];
    resourceAssignments?: { resourceName: string; value?: string }[];
  }

  const tagName = (): string => unique('tg').replaceAll('.', '-');

  it('keeps a tag as a record of the project, listed with the resources carrying its name, whose tags show its id', async () => {
    const name = tagName();
    const { server, action } = await sc.client.servers.create({ ...serverBody(), labels: { [name]: 'v1' } });
    await sc.client.waitForAction(action.id);
    expect((await pnap<PnapTag[]>('GET', `/tag-manager/v1/tags?name=${name}`)).body).toEqual([]);
    const made = await pnap<PnapTag>('POST', '/tag-manager/v1/tags', { name, description: 'made here', isBillingTag: true });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      id: expect.stringMatching(/^a1\d{22}$/) as unknown,
      name,
      description: 'made here',
      isBillingTag: true,
      createdBy: 'USER',
    });
    const block = await pnap<PnapBlock & { tags: { id: string; name: string }[] }>('POST', '/ips/v1/ip-blocks', {
      location: 'sim-1',
      tags: [{ name, value: 'v2' }],
    });
    const expected = {
      id: made.body.id,
      name,
      values: ['v1', 'v2'],
      resourceAssignments: [
        { resourceName: `/bmc/servers/${pid(server.id)}`, value: 'v1' },
        { resourceName: `/ips/ip-blocks/${block.body.id}`, value: 'v2' },
      ],
    };
    expect((await pnap<PnapTag[]>('GET', `/tag-manager/v1/tags?name=${name}`)).body).toEqual([expect.objectContaining(expected)]);
    expect((await pnap<PnapTag>('GET', `/tag-manager/v1/tags/${made.body.id}`)).body).toEqual(expect.objectContaining(expected));
    const onServer = (await pnap<PnapServer & { tags: { id: string; name: string }[] }>('GET', `/bmc/v1/servers/${pid(server.id)}`)).body.tags;
    expect(onServer).toEqual([{ id: made.body.id, name, value: 'v1', isBillingTag: false, createdBy: 'USER' }]);
    expect(block.body.tags.map((t) => t.id)).toEqual([made.body.id]);
    const twice = await pnap<{ message: string; validationErrors: string[] }>('POST', '/tag-manager/v1/tags', { name, isBillingTag: false });
    expect(twice).toEqual({ status: 409, body: { message: `a tag named ${name} exists`, validationErrors: [`name: a tag named ${name} exists`] } });
  });

  it('renames a tag on the resources carrying it and takes it off them when deleted, whichever API reads them', async () => {
    const [name, renamed] = [tagName(), tagName()];
    const { server, action } = await sc.client.servers.create({ ...serverBody(), labels: { [name]: 'a', keep: 'k' } });
    await sc.client.waitForAction(action.id);
    const tag = (await pnap<PnapTag>('POST', '/tag-manager/v1/tags', { name, isBillingTag: false })).body;
    const patched = await pnap<PnapTag>('PATCH', `/tag-manager/v1/tags/${tag.id}`, { name: renamed, description: 'now', isBillingTag: false });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: tag.id, name: renamed, description: 'now', values: ['a'] });
    expect((await sc.client.servers.get(server.id)).labels).toEqual({ keep: 'k', [renamed]: 'a' });
    const clash = await pnap('PATCH', `/tag-manager/v1/tags/${tag.id}`, { name: 'keep', isBillingTag: false });
    expect(clash.status).toBe(409);
    const del = await pnap<{ result: string; tagId: string }>('DELETE', `/tag-manager/v1/tags/${tag.id}`);
    expect(del).toEqual({ status: 200, body: { result: `Tag ${renamed} deleted.`, tagId: tag.id } });
    expect((await sc.client.servers.get(server.id)).labels).toEqual({ keep: 'k' });
    expect((await pnap('GET', `/tag-manager/v1/tags/${tag.id}`)).status).toBe(404);
  });

  it("keeps each project's tags apart: another project neither lists nor reaches them, and may use the name", async () => {
    const name = tagName();
    const tag = (await pnap<PnapTag>('POST', '/tag-manager/v1/tags', { name, isBillingTag: false })).body;
    const project = await sc.admin.createProject(unique('other'));
    const other = String((await tokenFor((await sc.admin.createToken(project.id, { name: 'other' })).token)).body.access_token);
    const as = (method: string, path: string, body?: unknown): Promise<Response> =>
      fetch(`${sc.url}/pnap${path}`, {
        method,
        headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    expect(await (await as('GET', `/tag-manager/v1/tags?name=${name}`)).json()).toEqual([]);
    for (const [method, body] of [['GET'], ['PATCH', { name: tagName(), isBillingTag: false }], ['DELETE']] as const)
      expect((await as(method, `/tag-manager/v1/tags/${tag.id}`, body)).status, method).toBe(404);
    expect((await as('POST', '/tag-manager/v1/tags', { name, isBillingTag: false })).status).toBe(201);
    expect((await pnap<PnapTag>('GET', `/tag-manager/v1/tags/${tag.id}`)).body.name).toBe(name);
  });

  it("refuses a bad tag name, __proto__ among them, naming the field in phoenixNAP's body", async () => {
    for (const name of ['__proto__', 'has space', '']) {
      const r = await pnap<{ message: string; validationErrors: string[] }>('POST', '/tag-manager/v1/tags', { name, isBillingTag: false });
      expect(r.status, name).toBe(400);
      expect(
        r.body.validationErrors.some((e) => e.startsWith('name: ')),
        name,
      ).toBe(true);
    }
    const missing = await pnap<{ validationErrors: string[] }>('POST', '/tag-manager/v1/tags', { name: 'ok-name' });
    expect(missing.status).toBe(400);
    expect(missing.body.validationErrors.some((e) => e.startsWith('isBillingTag: '))).toBe(true);
    expect((await pnap<PnapTag[]>('GET', '/tag-manager/v1/tags?name=__proto__')).body).toEqual([]);
  });
});

describe('phoenixNAP persona: bodies as go-sdk-bmc sends them', () => {
  it('reads a JSON null (an unset optional body) as none, and still refuses a body that is not JSON', async () => {
    const { server, action } = await sc.client.servers.create(serverBody());
    await sc.client.waitForAction(action.id);
    const r = await fetch(`${sc.url}/pnap/bmc/v1/servers/${pid(server.id)}/actions/deprovision`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: 'null',
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toBe('Server has been deprovisioned.');
    const bad = await fetch(`${sc.url}/pnap/bmc/v1/servers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: '{"hostname":',
    });
    expect(bad.status).toBe(400);
  });
});

describe('phoenixNAP persona: ids inside bodies', () => {
  it('answers 404 naming an unknown private network or IP block as it was given, and the field', async () => {
    const unknown = 'a10000000000000000777777';
    const made = await pnap<{ message: string }>('POST', '/bmc/v1/servers', {
      hostname: unique('bmc'),
      os: 'ubuntu-24.04',
      type: 'sc-small',
      location: 'sim-1',
      networkConfiguration: { privateNetworkConfiguration: { configurationType: 'USER_DEFINED', privateNetworks: [{ id: unknown }] } },
    });
    const field = 'networkConfiguration.privateNetworkConfiguration.privateNetworks.0.id';
    expect(made).toEqual({
      status: 404,
      body: { message: `private network ${unknown} not found`, validationErrors: [`${field}: private network ${unknown} not found`] },
    });
    const { server, action } = await sc.client.servers.create(serverBody());
    await sc.client.waitForAction(action.id);
    const add = await pnap<{ message: string }>('POST', `/bmc/v1/servers/${pid(server.id)}/network-configuration/ip-block-configurations/ip-blocks`, {
      id: 'nonsense',
    });
    expect(add).toEqual({ status: 404, body: { message: 'IP block nonsense not found', validationErrors: ['id: IP block nonsense not found'] } });
  });
});
