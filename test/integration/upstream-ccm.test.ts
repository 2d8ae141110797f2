// The upstream Go CCM (go/cmd/upstream-ccm: k8s.io/cloud-provider's controllers over go/provider/simcloud),
// built by sandbox/ccm/upstream.ts and started with upstreamCcmArgs, against the worker's real control plane
// and a real simcloud process: node initialisation, the shutdown taint and deletion of a Node whose server is
// gone, a LoadBalancer Service carrying TCP through its VIP, a pod route, the caller and method headers on
// every call, and a wrong token failing at start in one line.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PatchStrategy, setHeaderOptions, type V1Node, type V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallExplainer } from '../../sandbox/console/explain.ts';
import { ensureUpstreamCcmBinary, getUpstreamCcm, upstreamCcmArgs, upstreamCcmEnv } from '../../sandbox/ccm/upstream.ts';
import { createExec, type ManagedProcess } from '../../sandbox/exec.ts';
import { readyStatus } from '../../sandbox/kubelet/virtual-kubelet.ts';
import { freePort } from '../../sandbox/ports.ts';
import { launchProcess, SPAWNED } from '../../sandbox/processes.ts';
import { CcmHarness, eventually, isNotFound, readLine, uniqueName } from './ccm-harness.ts';

const UNINITIALIZED = 'node.cloudprovider.kubernetes.io/uninitialized';
const SHUTDOWN = 'node.cloudprovider.kubernetes.io/shutdown';
const NS = 'default';
const taintKeys = (n: V1Node): string[] => (n.spec?.taints ?? []).map((t) => t.key);

describe('upstream Go CCM (k8s.io/cloud-provider) on simcloud', () => {
  const network = uniqueName('net').slice(0, 50);
  const h = new CcmHarness({ prefix: 'upstream-ccm', env: { SIMCLOUD_NETWORK: network } });
  const exec = createExec();
  const dir = mkdtempSync(join(tmpdir(), 'upstream-ccm-test-'));
  let binary = '';
  let ccm: ManagedProcess | undefined;
  let networkId = '';

  let port = 0;
  const certDir = join(dir, 'certs');
  const args = (securePort: number): string[] =>
    upstreamCcmArgs({
      kubeconfig: h.cluster.kubeconfigPath,
      clusterName: h.clusterName,
      clusterCidr: '10.244.0.0/16',
      configureCloudRoutes: true,
      securePort,
      certDir,
      leaseName: h.leaseName,
      nodeMonitorPeriod: '1s',
      routeReconciliationPeriod: '2s',
    });
  const log = (): string => {
    try {
      return readFileSync(join(dir, 'upstream-ccm.log'), 'utf8');
    } catch {
      return '';
    }
  };

  beforeAll(async () => {
    binary = await ensureUpstreamCcmBinary({ exec });
    await h.setUp();
    networkId = (await h.sim.client.networks.create({ name: network })).id;
    const env = { ...process.env, ...upstreamCcmEnv({ endpoint: h.sim.url, token: h.sim.token, network }) } as Record<string, string>;
    port = await freePort();
    const healthy = async (): Promise<boolean> => (await getUpstreamCcm(port, certDir).catch(() => undefined))?.status === 200;
    ccm = (
      await launchProcess({
        exec,
        name: 'upstream-ccm',
        command: binary,
        args: args(port),
        env,
        logFile: join(dir, 'upstream-ccm.log'),
        ready: healthy,
        readyDescription: 'the upstream CCM /healthz',
        timeoutMs: 60_000,
      })
    ).process;
  });
  afterAll(async () => {
    await ccm?.stop();
    await h.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves /healthz and /metrics over HTTPS on loopback with the certificate it wrote into --cert-dir', async () => {
    const health = await getUpstreamCcm(port, certDir);
    expect(health).toEqual({ status: 200, body: 'ok' });
    const metrics = await getUpstreamCcm(port, certDir, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/^ccm_cloud_api_calls_total\{code="200",operation="servers\.list"\} [1-9]/m);
    expect(metrics.body).toContain('cloudprovider_simcloud_api_request_duration_seconds_bucket');
  });

  it('initialises a node: providerID, type/zone/region labels, addresses, taint removed; its calls name the controller and node', async () => {
    const name = uniqueName('up-init');
    const server = await h.createServer(name, { networks: [networkId] });
    await h.startKubelet(name);
    const expected = [
      ...(server.private_ipv4 ? [{ type: 'InternalIP', address: server.private_ipv4 }] : []),
      ...(server.public_ipv4 ? [{ type: 'ExternalIP', address: server.public_ipv4 }] : []),
      { type: 'Hostname', address: name },
    ];
    const node = await eventually(`node initialised by the upstream CCM (log:\n${log().slice(-2000)})`, async () => {
      const n = await h.node(name);
      return taintKeys(n).includes(UNINITIALIZED) || n.status?.addresses?.length !== expected.length ? undefined : n;
    });
    expect(node.spec?.providerID).toBe(`simcloud://${server.id}`);
    expect(node.metadata?.labels).toMatchObject({
      'node.kubernetes.io/instance-type': server.server_type,
      'topology.kubernetes.io/region': server.region,
      'topology.kubernetes.io/zone': server.zone,
    });
    expect(node.status?.addresses).toEqual(expected);
    const calls = h.calls.byCaller(`cloud-node-controller ${name}`);
    expect(calls.length).toBeGreaterThan(0);
    // The console explains the upstream CCM's calls as ours: from the method it sent, never a guess.
    const explainer = new CallExplainer();
    expect(new Set(calls.map((c) => explainer.explain(c)).map((x) => `${x.method} ${x.methodSource}`))).toEqual(new Set(['InstanceMetadata header']));
  });

  it('gives a LoadBalancer Service an ingress IP, our labelled resources and TCP through the VIP, and removes them on delete', async () => {
    const nodeName = uniqueName('up-lbn');
    const server = await h.createServer(nodeName, { networks: [networkId] });
    await h.startKubelet(nodeName);
    await eventually('node initialised', async () => (await h.node(nodeName)).spec?.providerID === `simcloud://${server.id}`);
    const name = uniqueName('up-web');
    const body: V1Service = {
      metadata: { name, annotations: { 'loadbalancer.simcloud.dev/algorithm': 'least_connections' } },
      spec: {
        type: 'LoadBalancer',
        selector: { app: name },
        ports: [{ name: 'tcp', port: 80, targetPort: 8080, protocol: 'TCP' }],
        loadBalancerSourceRanges: ['127.0.0.0/8'],
      },
    };
    const created = await h.createService(NS, body);
    const uid = created.metadata!.uid!;
    const nodePort = created.spec!.ports![0]!.nodePort!;
    const svc = await eventually(`ingress IP (log:\n${log().slice(-2000)})`, async () => {
      const s = await h.cluster.core.readNamespacedService({ name, namespace: NS });
      return s.status?.loadBalancer?.ingress?.[0]?.ip ? s : undefined;
    });
    const vip = svc.status!.loadBalancer!.ingress![0]!.ip!;
    const selector = `simcloud.dev/service-uid=${uid}`;
    const [lb] = (await h.sim.client.loadBalancers.list({ label_selector: selector })).load_balancers;
    const [group] = (await h.sim.client.serverGroups.list({ label_selector: selector })).server_groups;
    const [policy] = (await h.sim.client.firewallPolicies.list({ label_selector: selector })).firewall_policies;
    expect(lb).toMatchObject({ public_ipv4: vip, algorithm: 'least_connections', targets: [{ kind: 'server_group', server_group_id: group!.id }] });
    expect(lb!.labels).toMatchObject({
      'simcloud.dev/managed-by': 'simcloud-ccm',
      'simcloud.dev/cluster': h.clusterName,
      'simcloud.dev/service': `${NS}.${name}`,
    });
    expect(group!.servers).toContain(server.id);
    expect(policy).toMatchObject({ server_group_id: group!.id, rules: [expect.objectContaining({ ports: String(nodePort), source_cidrs: ['127.0.0.0/8'] })] });
    for (const ip of [server.private_ipv4, server.public_ipv4]) if (ip?.startsWith('127.')) await h.tcp(ip, nodePort, nodeName);
    expect(await eventually('TCP through the VIP', () => readLine(vip, 80).catch(() => undefined))).toBe(nodeName);
    const lbCalls = h.calls.byCaller(`service-lb-controller ${NS}/${name}`);
    expect(lbCalls.length).toBeGreaterThan(0);
    const explainer = new CallExplainer();
    const explained = lbCalls.map((c) => explainer.explain(c));
    expect(explained.every((x) => x.methodSource === 'header')).toBe(true);
    expect(explained.map((x) => x.method)).toContain('EnsureLoadBalancer');

    await h.cluster.core.deleteNamespacedService({ name, namespace: NS });
    await eventually('Service gone after the cloud cleanup', async () => {
      try {
        await h.cluster.core.readNamespacedService({ name, namespace: NS });
        return false;
      } catch (err) {
        return isNotFound(err);
      }
    });
    const left = [
      ...(await h.sim.client.loadBalancers.list({ label_selector: selector })).load_balancers,
      ...(await h.sim.client.serverGroups.list({ label_selector: selector })).server_groups,
      ...(await h.sim.client.firewallPolicies.list({ label_selector: selector })).firewall_policies,
    ];
    expect(left).toEqual([]);
  });

  it('follows a new node and an annotation change; an invalid annotation is a Warning event with no cloud write', async () => {
    const name = uniqueName('up-upd');
    const created = await h.createService(NS, {
      metadata: { name },
      spec: { type: 'LoadBalancer', selector: { app: name }, ports: [{ port: 8080, protocol: 'TCP' }] },
    });
    const selector = `simcloud.dev/service-uid=${created.metadata!.uid!}`;
    await eventually('ingress', async () => (await h.cluster.core.readNamespacedService({ name, namespace: NS })).status?.loadBalancer?.ingress?.[0]);
    const members = async (): Promise<string[]> => (await h.sim.client.serverGroups.list({ label_selector: selector })).server_groups[0]?.servers ?? [];
    const nodeName = uniqueName('up-new');
    const server = await h.createServer(nodeName, { networks: [networkId] });
    await h.startKubelet(nodeName);
    await eventually(`new node ${server.id} in the server group`, async () => (await members()).includes(server.id));

    const patch = (annotations: Record<string, string | null>): Promise<V1Service> =>
      h.cluster.core.patchNamespacedService(
        { name, namespace: NS, body: { metadata: { annotations } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    await patch({ 'loadbalancer.simcloud.dev/health-check-interval': '3', 'loadbalancer.simcloud.dev/proxy-protocol': 'v2' });
    await eventually('LB updated', async () => {
      const lb = (await h.sim.client.loadBalancers.list({ label_selector: selector })).load_balancers[0];
      return lb?.services[0]?.health_check.interval_seconds === 3 && lb.services[0].proxy_protocol === 'v2';
    });
    // The status patch follows the cloud write: the CCM writes it once EnsureLoadBalancer has returned.
    await eventually(
      'ingress ipMode Proxy',
      async () => (await h.cluster.core.readNamespacedService({ name, namespace: NS })).status?.loadBalancer?.ingress?.[0]?.ipMode === 'Proxy',
    );

    const mark = h.calls.calls.length;
    await patch({ 'loadbalancer.simcloud.dev/algorithm': 'fastest' });
    const warning = await eventually('Warning event', async () =>
      (await h.events(NS, name)).find((e) => e.type === 'Warning' && (e.message ?? '').includes('loadbalancer.simcloud.dev/algorithm')),
    );
    expect(warning.reason).toBe('SyncLoadBalancerFailed');
    expect(warning.message).toContain('must be one of: round_robin, least_connections');
    const writes = h.calls.calls.slice(mark).filter((c) => c.method !== 'GET' && (c.caller ?? '').includes(`${NS}/${name}`));
    expect(writes).toEqual([]);
  });

  it('creates a route per podCIDR to the node private IP, named after the node UID', async () => {
    const name = uniqueName('up-rt');
    const server = await h.createServer(name, { networks: [networkId] });
    await h.startKubelet(name);
    const node = await eventually('podCIDR', async () => {
      const n = await h.node(name);
      return n.spec?.podCIDR ? n : undefined;
    });
    const gateway = server.private_networks.find((p) => p.network_id === networkId)!.ip;
    const route = await eventually(`route (log:\n${log().slice(-2000)})`, async () =>
      (await h.sim.client.networks.listRoutes(networkId)).find((r) => r.destination === node.spec!.podCIDR && r.gateway === gateway),
    );
    expect(route.name).toBe(node.metadata!.uid);
    const cond = await eventually('NetworkUnavailable=False', async () =>
      (await h.node(name)).status?.conditions?.find((c) => c.type === 'NetworkUnavailable' && c.status === 'False'),
    );
    expect(cond.reason).toBe('RouteCreated');
  });

  it('taints a shut-down NotReady node and deletes a NotReady node whose server is gone', async () => {
    const name = uniqueName('up-life');
    const server = await h.createServer(name, { networks: [networkId] });
    const kubelet = await h.startKubelet(name);
    await eventually('initialised', async () => !taintKeys(await h.node(name)).includes(UNINITIALIZED));
    await h.sim.client.waitForAction((await h.sim.client.servers.poweroff(server.id)).id);
    kubelet.stop();
    await eventually(
      'shutdown taint',
      async () => {
        const n = await h.node(name);
        return readyStatus(n) !== 'True' && taintKeys(n).includes(SHUTDOWN);
      },
      90_000,
    );
    await h.sim.client.waitForAction((await h.sim.client.servers.delete(server.id)).id);
    await eventually(
      'node of the deleted server deleted',
      async () => {
        try {
          await h.node(name);
          return false;
        } catch (err) {
          return isNotFound(err);
        }
      },
      60_000,
    );
  });

  it('exits 1 at start with one line naming the endpoint when the token is wrong', async () => {
    const logFile = join(dir, 'bad-token.log');
    const env = { ...process.env, ...h.env({ SIMCLOUD_TOKEN: 'not-the-token-0123456789' }) } as Record<string, string>;
    const { process: bad } = await launchProcess({
      exec,
      name: 'upstream-ccm-bad-token',
      command: binary,
      args: args(await freePort()),
      env,
      logFile,
      ...SPAWNED,
    });
    const exit = await bad.exited;
    expect(exit.code).toBe(1);
    const lines = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('upstream-ccm:'));
    expect(lines).toEqual([
      `upstream-ccm: cloud provider could not be initialized: could not init cloud provider "simcloud": cannot use simcloud at ${h.sim.url}: servers.list: unauthorized (HTTP 401): missing or invalid token`,
    ]);
  });
});
