// Generated invalid bodies and parameters across endpoints: only 4xx with field details, never a 5xx,
// and the store (in memory and on disk) is byte-for-byte unchanged afterwards.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import * as S from '../../simulator/api/schema/index.ts';
import type { SimcloudProcess } from '../helpers/simcloud.ts';
import { invalidBodies, NON_OBJECT_BODIES, queryVariants } from './invalid-input.gen.ts';
import { lbBody, serverBody, tcpService, unique } from './support.ts';
import { startSimcloudProcess } from '../helpers/simcloud.ts';

let sc: SimcloudProcess;
let dir: string;
const ids = { net: '', server: '', lb: '', group: '', policy: '', block: '', route: '' };

async function fileState(): Promise<string> {
  const names = (await readdir(dir)).sort();
  const parts = await Promise.all(names.map(async (n) => `${n}:${(await readFile(join(dir, n))).toString('base64')}`));
  return parts.join('\n');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'simcloud-invalid-'));
  sc = await startSimcloudProcess({
    dataPath: join(dir, 'state.json'),
    args: ['--delay-ms', '5', '--no-dataplane'],
    clientOptions: { retry: { maxRetries: 0 } },
  });
  const net = await sc.client.networks.create({ name: unique('net'), ip_range: '10.9.0.0/16' });
  const { server, action } = await sc.client.servers.create(serverBody({ networks: [net.id] }));
  await sc.client.waitForAction(action.id);
  const lb = await sc.client.loadBalancers.create(lbBody({ targets: [{ kind: 'server', server_id: server.id }] }));
  await sc.client.waitForAction(lb.action.id);
  const group = await sc.client.serverGroups.create({ name: unique('g'), servers: [server.id] });
  const policy = await sc.client.firewallPolicies.create({ name: unique('fw') });
  const block = await sc.client.ipBlocks.allocate({ location: 'sim-1' });
  const route = await sc.client.networks.createRoute(net.id, { destination: '10.250.0.0/24', gateway: '10.9.0.9' });
  await sc.client.waitForAction(route.action.id);
  Object.assign(ids, { net: net.id, server: server.id, lb: lb.load_balancer.id, group: group.id, policy: policy.id, block: block.id, route: route.route.id });
  await new Promise((r) => setTimeout(r, 100));
}, 60_000);

afterAll(async () => {
  await sc?.stop();
  await rm(dir, { recursive: true, force: true });
});

interface BodyCase {
  method: string;
  path: string;
  schema: z.ZodType;
  valid: unknown;
  admin?: boolean;
}

function bodyCases(): BodyCase[] {
  const rule = { direction: 'inbound', protocol: 'tcp', ports: '80-90', source_cidrs: ['10.0.0.0/8'], destination_cidrs: [], description: 'd' };
  return [
    {
      method: 'POST',
      path: '/v1/servers',
      schema: S.CreateServerRequest,
      valid: {
        ...serverBody(),
        labels: { a: 'b' },
        networks: [ids.net],
        public_ipv4: '127.0.99.1',
        private_ipv4: '10.9.0.99',
        public_net: true,
        start_after_create: true,
      },
    },
    { method: 'PATCH', path: `/v1/servers/${ids.server}`, schema: S.UpdateServerRequest, valid: { name: 'x', labels: { 'k8s.io/role': 'v' } } },
    {
      method: 'POST',
      path: `/v1/servers/${ids.server}/actions/attach_to_network`,
      schema: S.AttachServerToNetworkRequest,
      valid: { network_id: ids.net, ip: '10.9.0.5' },
    },
    { method: 'POST', path: `/v1/servers/${ids.server}/actions/poweroff`, schema: S.ServerResponse.pick({}).strict(), valid: {} },
    {
      method: 'POST',
      path: '/v1/networks',
      schema: S.CreateNetworkRequest,
      valid: { name: 'n', ip_range: '10.0.0.0/16', subnets: [{ zone: 'sim-1a', ip_range: '10.0.1.0/24' }], labels: { a: 'b' } },
    },
    { method: 'POST', path: `/v1/networks/${ids.net}/routes`, schema: S.CreateRouteRequest, valid: { destination: '10.1.0.0/24', gateway: '10.9.0.1' } },
    {
      method: 'POST',
      path: '/v1/load_balancers',
      schema: S.CreateLoadBalancerRequest,
      valid: {
        ...lbBody({
          targets: [
            { kind: 'server', server_id: ids.server },
            { kind: 'ip', ip: '127.0.0.5' },
          ],
        }),
        services: [tcpService(80, 8080)],
        algorithm: 'round_robin',
        session_affinity: 'none',
        source_ranges: ['10.0.0.0/8'],
      },
    },
    {
      method: 'PATCH',
      path: `/v1/load_balancers/${ids.lb}`,
      schema: S.UpdateLoadBalancerRequest,
      valid: { services: [tcpService(81, 8081)], targets: [{ kind: 'label_selector', label_selector: 'a=b' }] },
    },
    {
      method: 'POST',
      path: '/v1/server_groups',
      schema: S.CreateServerGroupRequest,
      valid: { name: 'g', description: 'd', labels: {}, servers: [ids.server] },
    },
    { method: 'PUT', path: `/v1/server_groups/${ids.group}/servers`, schema: S.SetServerGroupServersRequest, valid: { servers: [ids.server] } },
    { method: 'POST', path: `/v1/server_groups/${ids.group}/actions/add_servers`, schema: S.ServerGroupMembersRequest, valid: { servers: [ids.server] } },
    { method: 'POST', path: `/v1/server_groups/${ids.group}/actions/remove_servers`, schema: S.ServerGroupMembersRequest, valid: { servers: [ids.server] } },
    { method: 'POST', path: '/v1/firewall_policies', schema: S.CreateFirewallPolicyRequest, valid: { name: 'f', rules: [rule], server_group_id: ids.group } },
    { method: 'PUT', path: `/v1/firewall_policies/${ids.policy}/rules`, schema: S.SetFirewallRulesRequest, valid: { rules: [rule] } },
    { method: 'POST', path: `/v1/firewall_policies/${ids.policy}/actions/apply`, schema: S.ApplyFirewallPolicyRequest, valid: { server_group_id: ids.group } },
    { method: 'POST', path: '/v1/ip_blocks', schema: S.AllocateIpBlockRequest, valid: { location: 'sim-1', size: 29, description: 'd', tags: { k: 'v' } } },
    { method: 'PATCH', path: `/v1/ip_blocks/${ids.block}`, schema: S.UpdateIpBlockRequest, valid: { tags: { k: 'v' }, description: 'x' } },
    { method: 'POST', path: `/v1/ip_blocks/${ids.block}/actions/assign`, schema: S.AssignIpBlockRequest, valid: { kind: 'load_balancer', id: ids.lb } },
    {
      method: 'POST',
      path: '/v1/certificates',
      schema: S.CreateCertificateRequest,
      valid: { name: 'c', labels: {}, certificate: '-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n', private_key: 'k' },
    },
    {
      method: 'POST',
      path: '/_sim/faults',
      schema: S.FaultRuleInput,
      valid: { kind: 'error', status: 503, code: 'service_unavailable', probability: 0.5, count: 3, match: { method: 'GET', path: '/v1/*', label: 'a=b' } },
      admin: true,
    },
    { method: 'POST', path: '/_sim/seed', schema: S.SeedRequest, valid: { name: 'demo' }, admin: true },
    { method: 'PUT', path: '/_sim/time', schema: S.SetTimeRequest, valid: { speed: 2, delays: { server: { delay_ms: 5, jitter_ms: 0 } } }, admin: true },
    { method: 'POST', path: '/_sim/projects', schema: S.CreateProjectRequest, valid: { name: 'p' }, admin: true },
  ];
}

const LISTS: [string, string[]][] = [
  ['/v1/servers', ['page', 'per_page', 'sort', 'label_selector', 'name', 'status']],
  ['/v1/networks', ['page', 'per_page', 'sort', 'label_selector', 'name']],
  ['/v1/load_balancers', ['page', 'per_page', 'sort', 'label_selector', 'name']],
  ['/v1/server_groups', ['page', 'per_page', 'sort', 'label_selector']],
  ['/v1/firewall_policies', ['page', 'per_page', 'sort', 'label_selector']],
  ['/v1/ip_blocks', ['page', 'per_page', 'sort', 'location', 'tags']],
  ['/v1/certificates', ['page', 'per_page', 'sort', 'label_selector', 'name']],
];

const BAD_IDS = ['x', '..', '%2e%2e', 'srv-', 'srv-' + 'a'.repeat(300), '%00', 'ünï', 'srv-00000000', 'lb-zz', '0'];
const ITEM_PATHS = [
  '/v1/servers/',
  '/v1/networks/',
  '/v1/load_balancers/',
  '/v1/server_groups/',
  '/v1/firewall_policies/',
  '/v1/ip_blocks/',
  '/v1/certificates/',
  '/v1/actions/',
];

type Reply = { status: number; json: { error?: { code: string; details?: { fields: unknown[] } } } | null };

async function send(method: string, path: string, body: string | undefined, admin = false): Promise<Reply> {
  const res = await fetch(sc.url + path, {
    method,
    body,
    headers: { authorization: `Bearer ${admin ? sc.adminToken : sc.token}`, 'content-type': 'application/json' },
  });
  return { status: res.status, json: (await res.json().catch(() => null)) as Reply['json'] };
}

const hasFields = (r: Reply): boolean => (r.json?.error?.details?.fields ?? []).length > 0;

/** Schema-invalid bodies must get 400 invalid_input with field details. */
async function checkBodies(failures: string[]): Promise<number> {
  let count = 0;
  for (const c of bodyCases()) {
    for (const body of [...invalidBodies(c.schema, c.valid as never), ...NON_OBJECT_BODIES]) {
      count++;
      const r = await send(c.method, c.path, body, c.admin);
      if (r.status !== 400 || r.json?.error?.code !== 'invalid_input' || !hasFields(r))
        failures.push(`${c.method} ${c.path} ${body} → ${r.status} ${JSON.stringify(r.json)}`);
    }
  }
  return count;
}

/** Odd query parameters: never a 5xx; a 400 always names the fields. */
async function checkQueries(failures: string[]): Promise<number> {
  const queries = LISTS.flatMap(([path, params]) => queryVariants(params).map((q) => `${path}?${q}`));
  for (const q of queries) {
    const r = await send('GET', q, undefined);
    if (r.status >= 500 || (r.status === 400 && !hasFields(r))) failures.push(`GET ${q} → ${r.status}`);
  }
  return queries.length;
}

/** Malformed or unknown ids in paths: 4xx only. */
async function checkIds(failures: string[]): Promise<number> {
  const calls = ITEM_PATHS.flatMap((base) => BAD_IDS.flatMap((id) => ['GET', 'PATCH', 'DELETE'].map((method) => ({ method, path: base + id }))));
  for (const { method, path } of calls) {
    const r = await send(method, path, method === 'PATCH' ? '{}' : undefined);
    if (r.status < 400 || r.status >= 500) failures.push(`${method} ${path} → ${r.status}`);
  }
  return calls.length;
}

const snapshotText = async (): Promise<string> => (await fetch(`${sc.url}/_sim/snapshot`, { headers: { authorization: `Bearer ${sc.adminToken}` } })).text();

describe('generated invalid input', () => {
  it('answers thousands of invalid requests with 4xx and field details, leaving the store unchanged', async () => {
    const snapshotBefore = await snapshotText();
    const filesBefore = await fileState();
    const failures: string[] = [];
    const count = (await checkBodies(failures)) + (await checkQueries(failures)) + (await checkIds(failures));
    expect(failures.slice(0, 10)).toEqual([]);
    console.log(`invalid requests sent: ${count}`);
    expect(count).toBeGreaterThan(2000);
    expect(await snapshotText()).toBe(snapshotBefore);
    expect(await fileState()).toBe(filesBefore);
  }, 120_000);
});
