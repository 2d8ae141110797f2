// End-to-end flows through a whole sandbox (simcloud + cluster + CCM), on the runtime in SANDBOX_RUNTIME
// (local by default) and the CCM in SANDBOX_CCM (builtin by default; `npm test` runs them on upstream's too,
// project e2e-upstream) on the cloud in SANDBOX_CLOUD (simcloud by default; project e2e-hcloud runs them on the
// Hetzner persona with the upstream CCM's hcloud provider, where providerIDs, labels and annotations are
// Hetzner's and load balancers have no source ranges; project e2e-linode on the Linode persona with its
// linode provider: NodeBalancers, regions without zones, no routes; project e2e-digitalocean on the
// DigitalOcean persona with its digitalocean provider: droplets, regions without zones, no routes): node initialisation, load balancers with real traffic and annotations, node
// lifecycle, routes, scale-up, and a final leak check. The flows run in order on one sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V1Node } from '@kubernetes/client-node';
import { SANDBOX_LABELS } from '../../sandbox/cloud/sandbox-cloud.ts';
import { numericIdOf } from '../../simulator/personas/numeric-ids.ts';
import { UNINITIALIZED_TAINT } from '../../sandbox/kubelet/node-object.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { handEndpoints } from '../helpers/endpoint-slices.ts';
import { e2eCcm, e2eCloud, hasTaint, httpGet, readyOf, sharedSandbox, waitForIngress, type E2eSandbox } from '../helpers/sandbox.ts';

const SHUTDOWN_TAINT = 'node.cloudprovider.kubernetes.io/shutdown';
const NS = 'default';
const CLOUD = e2eCloud();

/** The providerID each cloud's CCM gives the Node of a server (the dialects' ids are the store's numbers). */
const providerIdOf = (serverId: string): string => (CLOUD === 'simcloud' ? `simcloud://${serverId}` : `${CLOUD}://${numericIdOf(serverId)}`);
/** Labels a cloud's CCM adds besides the well-known ones. */
const CLOUD_LABELS: Readonly<Record<string, string>> = CLOUD === 'hcloud' ? { 'instance.hetzner.cloud/provided-by': 'cloud' } : {};
/** Linode and DigitalOcean have regions only: their CCMs set no zone labels. */
const REGIONS_ONLY = CLOUD === 'linode' || CLOUD === 'digitalocean';
const zoneLabels = (zone: string): Record<string, string> =>
  (REGIONS_ONLY ? {} : { 'topology.kubernetes.io/zone': zone, 'failure-domain.beta.kubernetes.io/zone': zone });
/**
 * The linode provider has no Routes, as Linode's own CCM without --enable-route-controller: its route
 * controller programs VPC routes, which this provider does not implement. The digitalocean provider has none, as
 * DigitalOcean's CCM has no route controller. The sandbox runs both with --configure-cloud-routes=false,
 * so no route flow there.
 */
const ROUTES = !REGIONS_ONLY;

/** The annotated flow's annotations per cloud: PROXY protocol v1 and an HTTP check on a path, failing fast. */
const ANNOTATED = {
  simcloud: {
    prefix: 'loadbalancer.simcloud.dev/',
    annotations: { 'proxy-protocol': 'v1', 'health-check-protocol': 'http', 'health-check-path': '/unhealthy', 'health-check-interval': '1', 'health-check-retries': '1' },
    pathKey: 'health-check-path',
  },
  hcloud: {
    prefix: 'load-balancer.hetzner.cloud/',
    annotations: {
      'uses-proxyprotocol': 'true', 'health-check-protocol': 'http', 'health-check-http-path': '/unhealthy', 'health-check-interval': '1s', 'health-check-timeout': '1s',
      'health-check-retries': '1', type: 'lb21', 'algorithm-type': 'least_connections',
    },
    pathKey: 'health-check-http-path',
  },
  // Linode's minimum check interval is 2 s; the timeout must stay below it.
  linode: {
    prefix: 'service.beta.kubernetes.io/linode-loadbalancer-',
    annotations: {
      'default-proxy-protocol': 'v1', 'check-type': 'http', 'check-path': '/unhealthy', 'check-interval': '2', 'check-timeout': '1', 'check-attempts': '1',
      'default-algorithm': 'leastconn', throttle: '0', tags: 'e2e',
    },
    pathKey: 'check-path',
  },
  // DigitalOcean's shortest check interval is 3 s and its thresholds start at 2.
  digitalocean: {
    prefix: 'service.beta.kubernetes.io/do-loadbalancer-',
    annotations: {
      'enable-proxy-protocol': 'true', 'healthcheck-protocol': 'http', 'healthcheck-path': '/unhealthy', 'healthcheck-check-interval-seconds': '3',
      'healthcheck-response-timeout-seconds': '3', 'healthcheck-unhealthy-threshold': '2', 'healthcheck-healthy-threshold': '2',
      algorithm: 'least_connections', 'size-unit': '2',
    },
    pathKey: 'healthcheck-path',
  },
}[CLOUD];
const annotated = Object.fromEntries(Object.entries(ANNOTATED.annotations).map(([k, v]) => [`${ANNOTATED.prefix}${k}`, v]));

describe(`sandbox flows on the ${e2eCcm().kind} CCM and the ${CLOUD} cloud`, () => {
  let e: E2eSandbox;

  beforeAll(async () => {
    e = await sharedSandbox();
  });

  afterAll(async () => {
    await e?.stop();
  });

  const nodes = async (): Promise<V1Node[]> => (await e.core.listNode()).items;
  /** A GET through the Linode dialect, as linodego sends it. */
  const linodeGet = async (path: string): Promise<Record<string, unknown>> => dialectGet(`/v4${path}`);
  /** A GET through a dialect, with the bearer token every SDK sends. */
  const dialectGet = async (path: string): Promise<Record<string, unknown>> => {
    const sim = e.sandbox.state.simcloud!;
    const res = await fetch(`${sim.url}${path}`, { headers: { authorization: `Bearer ${sim.token}` } });
    expect(res.status, path).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  };
  const node = async (name: string): Promise<V1Node> => e.core.readNode({ name });

  it('initialises every node: providerID, type/zone/region labels, addresses, no uninitialized taint', async () => {
    const servers = await e.sandbox.client.servers.listAll({ label_selector: `${SANDBOX_LABELS.cluster}=e2e` });
    const all = await nodes();
    expect(all).toHaveLength(servers.length);
    for (const server of servers) {
      const n = all.find((x) => x.metadata?.name === server.name);
      expect(n, server.name).toBeDefined();
      expect(hasTaint(n!, UNINITIALIZED_TAINT)).toBe(false);
      expect(n!.spec?.providerID).toBe(providerIdOf(server.id));
      expect(n!.metadata?.labels).toMatchObject({
        ...CLOUD_LABELS,
        'node.kubernetes.io/instance-type': server.server_type,
        'beta.kubernetes.io/instance-type': server.server_type,
        'topology.kubernetes.io/region': server.region,
        ...zoneLabels(server.zone),
      });
      if (REGIONS_ONLY) expect(n!.metadata?.labels?.['topology.kubernetes.io/zone']).toBeUndefined();
      expect(n!.status?.addresses).toEqual(
        expect.arrayContaining([
          { type: 'InternalIP', address: server.private_ipv4 },
          { type: 'ExternalIP', address: server.public_ipv4 },
          { type: 'Hostname', address: server.name },
        ]),
      );
    }
  });

  // The Services below get endpoints written by hand (one per worker), so the nodes' kube-proxy stand-in
  // has somewhere to send the traffic without depending on pods.
  const workers = async (): Promise<string[]> =>
    (await nodes()).filter((n) => n.metadata?.labels?.['node-role.kubernetes.io/control-plane'] === undefined).map((n) => n.metadata?.name ?? '');

  it('gives a LoadBalancer Service an IP and carries TCP traffic through the VIP to the nodes', async () => {
    const svc = await e.core.createNamespacedService({
      namespace: NS,
      body: { metadata: { name: 'echo' }, spec: { type: 'LoadBalancer', selector: { app: 'echo' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } },
    });
    await handEndpoints(e.kubeConfig, svc, await workers());
    const vip = await waitForIngress(e.core, NS, 'echo');
    const served = new Set<string>();
    await waitFor(
      async () => {
        const res = await httpGet(vip, 80, '/');
        if (res.status === 200) served.add((JSON.parse(res.body) as { node: string }).node);
        return served.size >= 2;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: 'responses from at least two nodes through the VIP' },
    );
    const res = await httpGet(vip, 80, '/hello');
    expect(JSON.parse(res.body)).toMatchObject({ service: 'default/echo', path: '/hello', proxy: null });
  });

  it(`honours annotations: PROXY header received, health-check path used${CLOUD === 'simcloud' ? ', denied source refused' : ''}`, async () => {
    const svc = await e.core.createNamespacedService({
      namespace: NS,
      body: {
        metadata: { name: 'annotated', annotations: annotated },
        spec: {
          type: 'LoadBalancer', selector: { app: 'x' }, ports: [{ port: 8081, targetPort: 8080 }],
          // Hetzner load balancers have no source ranges; Hetzner's CCM ignores them (Linode's takes a firewall ACL annotation instead).
          ...(CLOUD === 'simcloud' ? { loadBalancerSourceRanges: ['127.0.0.1/32'] } : {}),
        },
      },
    });
    await handEndpoints(e.kubeConfig, svc, await workers());
    const vip = await waitForIngress(e.core, NS, 'annotated');
    // Every node fails a check on /unhealthy: the LB has nowhere to send traffic.
    await waitFor(async () => (await httpGet(vip, 8081, '/').catch(() => ({ status: 0 }))).status === 0, {
      timeoutMs: 30_000,
      intervalMs: 250,
      description: 'the VIP to refuse traffic while every node fails its health check',
    });
    await e.core.patchNamespacedService(
      { name: 'annotated', namespace: NS, body: [{ op: 'replace', path: `/metadata/annotations/${ANNOTATED.prefix.replace('/', '~1')}${ANNOTATED.pathKey}`, value: '/healthz' }] },
      (await import('@kubernetes/client-node')).setHeaderOptions('Content-Type', 'application/json-patch+json'),
    );
    const res = await waitFor(async () => {
      const r = await httpGet(vip, 8081, '/', '127.0.0.1').catch(() => undefined);
      return r?.status === 200 ? r : undefined;
    }, { timeoutMs: 30_000, intervalMs: 250, description: 'traffic once the health check path is /healthz' });
    expect(JSON.parse(res.body)).toMatchObject({ proxy: { version: 1, protocol: 'TCP4', srcAddress: '127.0.0.1', dstAddress: vip, dstPort: 8081 } });
    if (CLOUD === 'simcloud') await expect(httpGet(vip, 8081, '/', '127.0.0.2')).rejects.toThrow();
    if (CLOUD === 'linode') {
      // The settings traffic cannot show, as Linode's API shows them on the NodeBalancer and its config.
      const { data } = (await linodeGet('/nodebalancers')) as { data: Array<{ id: number; ipv4: string; client_conn_throttle: number; tags: string[] }> };
      const nb = data.find((x) => x.ipv4 === vip)!;
      expect(nb.client_conn_throttle).toBe(0);
      expect(nb.tags).toEqual(expect.arrayContaining(['kubernetes', 'e2e']));
      const configs = (await linodeGet(`/nodebalancers/${nb.id}/configs`)).data;
      expect(configs).toEqual([expect.objectContaining({
        port: 8081, protocol: 'tcp', proxy_protocol: 'v1', algorithm: 'leastconn', check: 'http', check_path: '/healthz', check_interval: 2, check_timeout: 1, check_attempts: 1,
      })]);
    }
    if (CLOUD === 'digitalocean') {
      // The settings traffic cannot show, as DigitalOcean's API shows them on the load balancer.
      const { load_balancers: lbs } = (await dialectGet('/v2/load_balancers')) as { load_balancers: Array<Record<string, unknown>> };
      const lb = lbs.find((x) => x.ip === vip);
      expect(lb).toMatchObject({
        status: 'active', enable_proxy_protocol: true, algorithm: 'least_connections', size_unit: 2,
        // toMatchObject matches the rule and the check as subsets.
        forwarding_rules: [{ entry_protocol: 'tcp', entry_port: 8081, target_protocol: 'tcp' }],
        health_check: { protocol: 'http', path: '/healthz', check_interval_seconds: 3, response_timeout_seconds: 3, unhealthy_threshold: 2, healthy_threshold: 2 },
      });
    }
  });

  it('taints a powered-off worker, clears the taint when it is back, and deletes the Node of a deleted server', async () => {
    const servers = await e.sandbox.client.servers.listAll({ label_selector: `${SANDBOX_LABELS.role}=worker` });
    const victim = servers[0]!;
    await e.sandbox.client.waitForAction((await e.sandbox.client.servers.poweroff(victim.id)).id);
    await waitFor(async () => { const n = await node(victim.name); return readyOf(n) !== 'True' && hasTaint(n, SHUTDOWN_TAINT); }, {
      timeoutMs: 60_000, intervalMs: 500, description: `${victim.name} NotReady with the shutdown taint`,
    });
    await e.sandbox.client.waitForAction((await e.sandbox.client.servers.poweron(victim.id)).id);
    await waitFor(async () => { const n = await node(victim.name); return readyOf(n) === 'True' && !hasTaint(n, SHUTDOWN_TAINT); }, {
      timeoutMs: 60_000, intervalMs: 500, description: `${victim.name} Ready without the shutdown taint`,
    });
    await e.sandbox.client.servers.delete(victim.id);
    await waitFor(async () => !(await nodes()).some((n) => n.metadata?.name === victim.name), {
      timeoutMs: 90_000, intervalMs: 500, description: `Node ${victim.name} to be deleted`,
    });
  });

  it('joins a new server with the cluster label as an initialized node (scale-up)', async () => {
    const name = await e.sandbox.addWorker();
    const n = await waitFor(async () => { const x = await node(name).catch(() => undefined); return x && !hasTaint(x, UNINITIALIZED_TAINT) ? x : undefined; }, {
      timeoutMs: 60_000, intervalMs: 500, description: `${name} to join initialized`,
    });
    expect(n.spec?.providerID).toMatch(CLOUD === 'simcloud' ? /^simcloud:\/\// : new RegExp(`^${CLOUD}://\\d+$`));
  });

  it.runIf(ROUTES)('programs a route for every podCIDR with the node as gateway, and removes routes of deleted nodes', async () => {
    const network = (await e.sandbox.client.networks.listAll({ name: 'e2e' }))[0]!;
    const expected = async (): Promise<string[]> =>
      (await nodes()).filter((n) => n.spec?.podCIDR).map((n) => `${n.spec!.podCIDR}->${n.status?.addresses?.find((a) => a.type === 'InternalIP')?.address}`).sort();
    const routeCreated = (n: V1Node): boolean =>
      n.status?.conditions?.some((c) => c.type === 'NetworkUnavailable' && c.status === 'False' && c.reason === 'RouteCreated') ?? false;
    await waitFor(async () => {
      const routes = (await e.sandbox.client.networks.listRoutes(network.id)).map((r) => `${r.destination}->${r.gateway}`).sort();
      const want = await expected();
      return want.length > 0 && JSON.stringify(routes) === JSON.stringify(want) && (await nodes()).every(routeCreated);
    }, { timeoutMs: 60_000, intervalMs: 500, description: 'one route per node podCIDR, no stale routes, NetworkUnavailable=False (RouteCreated) on every node' });
    // The route controller's name hint is the node UID (not its name), and simcloud keeps it as the route name;
    // Hetzner routes have no names.
    if (CLOUD === 'hcloud') return;
    const routes = await e.sandbox.client.networks.listRoutes(network.id);
    for (const n of await nodes()) expect(routes.find((r) => r.destination === n.spec?.podCIDR)?.name).toBe(n.metadata?.uid);
  });

  it('leaves no cloud resource that no Service or Node explains once the Services are gone', async () => {
    for (const name of ['echo', 'annotated']) await e.core.deleteNamespacedService({ name, namespace: NS });
    const client = e.sandbox.client;
    await waitFor(async () => {
      const [lbs, groups, policies, blocks] = await Promise.all([
        client.loadBalancers.listAll(), client.serverGroups.listAll(), client.firewallPolicies.listAll(), client.ipBlocks.listAll(),
      ]);
      return lbs.length + groups.length + policies.length + blocks.length === 0;
    }, { timeoutMs: 60_000, intervalMs: 500, description: 'every LB, server group, firewall policy and IP block to be removed' });
    const network = (await client.networks.listAll({ name: 'e2e' }))[0]!;
    const cidrs = new Set((await nodes()).map((n) => n.spec?.podCIDR));
    const stale = (await client.networks.listRoutes(network.id)).filter((r) => !cidrs.has(r.destination));
    expect(stale).toEqual([]);
  });
});
