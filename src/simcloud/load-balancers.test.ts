// The LoadBalancer adapter in both strategies against an in-process simcloud: what exists in the cloud after
// Ensure, Update and EnsureDeleted (never which calls were made), what each annotation changes in it, and the
// upstream method sent with every call.
import { randomUUID } from 'node:crypto';
import type { V1Node, V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadBalancer, Server } from '../../simulator/api/schema/index.ts';
import { runningServersAsNodes, startSimcloudInProcess, type InProcessSimcloud } from '../../test/helpers/simcloud.ts';
import { HurriedClock } from '../kube/clock.ts';
import { ANNOTATION_PREFIX } from './annotations.ts';
import { createClient } from './client.ts';
import { SimcloudLoadBalancers, type LoadBalancerStrategy } from './load-balancers.ts';
import { LABELS } from './ops/naming.ts';

const CLUSTER = 'adapters';
let sc: InProcessSimcloud;
let servers: Server[];
let nodes: V1Node[];
const methods: { path: string; method: string | null }[] = [];

beforeAll(async () => {
  sc = await startSimcloudInProcess();
  ({ servers, nodes } = await runningServersAsNodes(sc.client, ['lb-node-1', 'lb-node-2']));
});
afterAll(async () => {
  await sc?.stop();
});

/** The CCM's client, recording the X-Simcloud-Method header of every request it sends. */
function balancer(strategy: LoadBalancerStrategy): SimcloudLoadBalancers {
  const recording: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    methods.push({ path: new URL(input instanceof Request ? input.url : input).pathname, method: headers.get('x-simcloud-method') });
    return fetch(input, init);
  };
  return new SimcloudLoadBalancers({
    client: createClient({ endpoint: sc.url, token: sc.token, requestTimeoutMs: 5000, fetch: recording, clock: new HurriedClock() }),
    strategy,
  });
}

function service(annotations: Record<string, string> = {}, spec: Partial<V1Service['spec']> = {}): V1Service {
  return {
    metadata: { name: `web-${randomUUID().slice(0, 8)}`, namespace: 'default', uid: randomUUID(), annotations },
    spec: { type: 'LoadBalancer', ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 }], ...spec },
  };
}

const a = (name: string): string => ANNOTATION_PREFIX + name;
const ownedBy =
  (svc: V1Service) =>
  (r: { labels: Record<string, string> }): boolean =>
    r.labels[LABELS.serviceUid] === svc.metadata?.uid;

/** Everything in the cloud labelled as the Service's. */
async function cloudOf(svc: V1Service) {
  const [lbs, groups, policies, blocks] = await Promise.all([
    sc.client.loadBalancers.listAll(),
    sc.client.serverGroups.listAll(),
    sc.client.firewallPolicies.listAll(),
    sc.client.ipBlocks.listAll(),
  ]);
  return {
    lbs: lbs.filter(ownedBy(svc)),
    groups: groups.filter(ownedBy(svc)),
    policies: policies.filter(ownedBy(svc)),
    blocks: blocks.filter((b) => b.tags['service-uid'] === svc.metadata?.uid),
  };
}

async function onlyLb(svc: V1Service): Promise<LoadBalancer> {
  const { lbs } = await cloudOf(svc);
  expect(lbs).toHaveLength(1);
  return lbs[0]!;
}

describe('SimcloudLoadBalancers, strategy lb', () => {
  let lb: SimcloudLoadBalancers;
  beforeAll(() => {
    lb = balancer('lb');
  });

  it('creates one load balancer, server group and firewall policy for the Service; ensuring again changes nothing', async () => {
    const svc = service();
    const status = await lb.ensureLoadBalancer(CLUSTER, svc, nodes);
    const again = await lb.ensureLoadBalancer(CLUSTER, svc, nodes);
    const cloud = await cloudOf(svc);
    expect(cloud.lbs).toHaveLength(1);
    expect(cloud.groups).toHaveLength(1);
    expect(cloud.policies).toHaveLength(1);
    const [made, group, policy] = [cloud.lbs[0]!, cloud.groups[0]!, cloud.policies[0]!];
    expect(made.targets).toEqual([{ kind: 'server_group', server_group_id: group.id }]);
    expect([...group.servers].sort()).toEqual(servers.map((s) => s.id).sort());
    expect(policy.rules.map((r) => ({ ports: r.ports, sources: r.source_cidrs }))).toEqual([{ ports: '30080', sources: ['0.0.0.0/0'] }]);
    expect(made.services).toMatchObject([
      {
        protocol: 'tcp',
        listen_port: 80,
        destination_port: 30080,
        proxy_protocol: 'none',
        health_check: { protocol: 'tcp', port: 30080, interval_seconds: 10, timeout_seconds: 5, retries: 3 },
      },
    ]);
    expect(made.algorithm).toBe('round_robin');
    expect(made.session_affinity).toBe('none');
    expect(status).toEqual({ ingress: [{ ip: made.public_ipv4, ipMode: 'VIP' }] });
    expect(again).toEqual(status);
    expect(await lb.getLoadBalancer(CLUSTER, svc)).toEqual({ exists: true, status });
  });

  it('moves the server group to the nodes it is given', async () => {
    const svc = service();
    await lb.ensureLoadBalancer(CLUSTER, svc, nodes);
    await lb.updateLoadBalancer(CLUSTER, svc, nodes.slice(1));
    expect((await cloudOf(svc)).groups[0]!.servers).toEqual([servers[1]!.id]);
  });

  it('deletes the load balancer, server group and firewall policy, and says none exists', async () => {
    const svc = service({ [a('preserve')]: 'false' });
    await lb.ensureLoadBalancer(CLUSTER, svc, nodes);
    await lb.ensureLoadBalancerDeleted(CLUSTER, svc);
    expect(await cloudOf(svc)).toEqual({ lbs: [], groups: [], policies: [], blocks: [] });
    expect(await lb.getLoadBalancer(CLUSTER, svc)).toEqual({ exists: false, status: undefined });
  });

  it('keeps every resource of a Service annotated preserve=true', async () => {
    const svc = service({ [a('preserve')]: 'true' });
    await lb.ensureLoadBalancer(CLUSTER, svc, nodes);
    await lb.ensureLoadBalancerDeleted(CLUSTER, svc);
    const cloud = await cloudOf(svc);
    expect([cloud.lbs.length, cloud.groups.length, cloud.policies.length]).toEqual([1, 1, 1]);
  });

  it('puts the source ranges on the firewall policy', async () => {
    const svc = service({}, { loadBalancerSourceRanges: ['203.0.113.0/24'] });
    await lb.ensureLoadBalancer(CLUSTER, svc, nodes);
    const cloud = await cloudOf(svc);
    expect(cloud.policies[0]!.rules.map((r) => r.source_cidrs)).toEqual([['203.0.113.0/24']]);
    expect(cloud.lbs[0]!.source_ranges).toEqual([]);
  });

  it('adopts the load balancer named by load-balancer-id instead of creating one', async () => {
    const { load_balancer: existing, action } = await sc.client.loadBalancers.create({ name: `adopt-${randomUUID().slice(0, 8)}`, services: [] });
    await sc.client.waitForAction(action.id);
    const svc = service({ [a('load-balancer-id')]: existing.id });
    const status = await lb.ensureLoadBalancer(CLUSTER, svc, nodes);
    const adopted = await onlyLb(svc);
    expect(adopted.id).toBe(existing.id);
    expect(adopted.services.map((s) => s.listen_port)).toEqual([80]);
    expect(status.ingress?.[0]?.ip).toBe(existing.public_ipv4);
  });

  it('sends the upstream method with every call it makes', async () => {
    const svc = service();
    methods.length = 0;
    await lb.ensureLoadBalancer(CLUSTER, svc, nodes);
    expect(methods.length).toBeGreaterThan(0);
    expect(new Set(methods.map((m) => m.method))).toEqual(new Set(['EnsureLoadBalancer']));
    methods.length = 0;
    await lb.ensureLoadBalancerDeleted(CLUSTER, svc);
    expect(new Set(methods.map((m) => m.method))).toEqual(new Set(['EnsureLoadBalancerDeleted']));
  });
});

describe('each annotation changes the load balancer it describes', () => {
  let lb: SimcloudLoadBalancers;
  beforeAll(() => {
    lb = balancer('lb');
  });
  type Case = [
    name: string,
    svc: { annotations?: Record<string, string>; spec?: Partial<V1Service['spec']> },
    read: (made: LoadBalancer) => unknown,
    want: unknown,
  ];
  const cases: Case[] = [
    ['protocol', { annotations: { [a('protocol')]: 'http' } }, (m) => m.services[0]?.protocol, 'http'],
    ['proxy-protocol', { annotations: { [a('proxy-protocol')]: 'v2' } }, (m) => m.services[0]?.proxy_protocol, 'v2'],
    ['algorithm', { annotations: { [a('algorithm')]: 'least_connections' } }, (m) => m.algorithm, 'least_connections'],
    ['health-check-protocol', { annotations: { [a('health-check-protocol')]: 'http' } }, (m) => m.services[0]?.health_check.protocol, 'http'],
    ['health-check-port', { annotations: { [a('health-check-port')]: '31999' } }, (m) => m.services[0]?.health_check.port, 31999],
    [
      'health-check-path',
      { annotations: { [a('health-check-protocol')]: 'http', [a('health-check-path')]: '/ready' } },
      (m) => m.services[0]?.health_check.path,
      '/ready',
    ],
    ['health-check-interval', { annotations: { [a('health-check-interval')]: '7' } }, (m) => m.services[0]?.health_check.interval_seconds, 7],
    ['health-check-timeout', { annotations: { [a('health-check-timeout')]: '3' } }, (m) => m.services[0]?.health_check.timeout_seconds, 3],
    ['health-check-retries', { annotations: { [a('health-check-retries')]: '2' } }, (m) => m.services[0]?.health_check.retries, 2],
    [
      'port-<n>',
      { annotations: { [a('port-80')]: '{"protocol":"https","health-check-path":"/live","health-check-protocol":"http"}' } },
      (m) => [m.services[0]?.protocol, m.services[0]?.health_check.path],
      ['https', '/live'],
    ],
    ['sessionAffinity', { spec: { sessionAffinity: 'ClientIP' } }, (m) => m.session_affinity, 'source_ip'],
  ];

  it.each(cases)('%s', async (_name, { annotations, spec }, read, want) => {
    const svc = service(annotations, spec);
    await lb.ensureLoadBalancer(CLUSTER, svc, nodes);
    expect(read(await onlyLb(svc))).toEqual(want);
  });

  it('proxy-protocol reports the VIP with ipMode Proxy', async () => {
    const svc = service({ [a('proxy-protocol')]: 'v1' });
    const status = await lb.ensureLoadBalancer(CLUSTER, svc, nodes);
    expect(status).toEqual({ ingress: [{ ip: (await onlyLb(svc)).public_ipv4, ipMode: 'Proxy' }] });
  });

  it('hostname-only-ingress reports a hostname and no IP; false reports the IP', async () => {
    const only = service({ [a('hostname-only-ingress')]: 'true' });
    const status = await lb.ensureLoadBalancer(CLUSTER, only, nodes);
    expect(status.ingress).toHaveLength(1);
    expect(status.ingress?.[0]?.ip).toBeUndefined();
    expect(status.ingress?.[0]?.hostname).toContain((await onlyLb(only)).public_ipv4.replaceAll('.', '-'));
    const withIp = service({ [a('hostname-only-ingress')]: 'false' });
    expect((await lb.ensureLoadBalancer(CLUSTER, withIp, nodes)).ingress?.[0]?.ip).toBe((await onlyLb(withIp)).public_ipv4);
  });

  it('an invalid annotation is refused before anything is created', async () => {
    const svc = service({ [a('algorithm')]: 'fastest' });
    await expect(lb.ensureLoadBalancer(CLUSTER, svc, nodes)).rejects.toThrow(/algorithm/);
    expect(await cloudOf(svc)).toEqual({ lbs: [], groups: [], policies: [], blocks: [] });
  });
});

describe('SimcloudLoadBalancers, strategy ip-block', () => {
  let lb: SimcloudLoadBalancers;
  beforeAll(() => {
    lb = balancer('ip-block');
  });

  it('allocates one IP block for the Service and serves its third address from a load balancer on the nodes', async () => {
    const svc = service({}, { loadBalancerSourceRanges: ['198.51.100.0/24'] });
    const status = await lb.ensureLoadBalancer(CLUSTER, svc, nodes);
    await lb.ensureLoadBalancer(CLUSTER, svc, nodes);
    const cloud = await cloudOf(svc);
    expect(cloud.blocks).toHaveLength(1);
    expect(cloud.lbs).toHaveLength(1);
    expect(cloud.groups).toEqual([]);
    const [block, made] = [cloud.blocks[0]!, cloud.lbs[0]!];
    expect(block.assigned_to).toEqual({ kind: 'load_balancer', id: made.id });
    expect(made.public_ipv4).toBe(block.usable_addresses[0]);
    expect(made.targets.map((t) => (t.kind === 'server' ? t.server_id : '')).sort()).toEqual(servers.map((s) => s.id).sort());
    expect(made.source_ranges).toEqual(['198.51.100.0/24']);
    expect(status.ingress?.[0]?.ip).toBe(made.public_ipv4);
  });

  it('moves the targets to the nodes it is given', async () => {
    const svc = service();
    await lb.ensureLoadBalancer(CLUSTER, svc, nodes);
    await lb.updateLoadBalancer(CLUSTER, svc, nodes.slice(0, 1));
    expect((await onlyLb(svc)).targets).toEqual([{ kind: 'server', server_id: servers[0]!.id }]);
  });

  it('releases the block and deletes the load balancer; preserve=true keeps both', async () => {
    const gone = service();
    await lb.ensureLoadBalancer(CLUSTER, gone, nodes);
    await lb.ensureLoadBalancerDeleted(CLUSTER, gone);
    expect(await cloudOf(gone)).toEqual({ lbs: [], groups: [], policies: [], blocks: [] });
    const kept = service({ [a('preserve')]: 'true' });
    await lb.ensureLoadBalancer(CLUSTER, kept, nodes);
    await lb.ensureLoadBalancerDeleted(CLUSTER, kept);
    const cloud = await cloudOf(kept);
    expect([cloud.lbs.length, cloud.blocks.length]).toEqual([1, 1]);
  });
});
