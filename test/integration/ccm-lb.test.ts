// service-lb-controller with the simcloud provider, both strategies, against a real control plane and simcloud:
// finalizer, cloud resources, status, real TCP through the VIP, node-set updates, annotation updates, invalid
// annotations, deletion, preserve, and Services of another class.
import { PatchStrategy, setHeaderOptions, type V1Service } from '@kubernetes/client-node';
import type { LoadBalancer } from '../../simulator/api/schema/index.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CcmHarness, eventually, isNotFound, readLine, uniqueName } from './ccm-harness.ts';

const FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';
const A = 'loadbalancer.simcloud.dev/';
const NS = 'default';

function lbService(name: string, extra: Partial<V1Service['spec']> = {}, annotations: Record<string, string> = {}): V1Service {
  return {
    metadata: { name, annotations },
    spec: { type: 'LoadBalancer', selector: { app: name }, ports: [{ name: 'tcp', port: 80, targetPort: 8080, protocol: 'TCP' }], ...extra },
  };
}

describe.each(['lb', 'ip-block'] as const)('simcloud CCM: load balancers, strategy %s', (strategy) => {
  const h = new CcmHarness({ prefix: `ccm-lb-${strategy}`, args: ['--controllers=cloud-node,service'], env: { SIMCLOUD_LOAD_BALANCER_STRATEGY: strategy } });
  const nodes: string[] = [];
  const serverIds = new Map<string, string>();

  const selector = (uid: string): string => `simcloud.dev/service-uid=${uid}`;
  const svc = (name: string): Promise<V1Service> => h.cluster.core.readNamespacedService({ name, namespace: NS });
  const lbsOf = async (uid: string) => (await h.sim.client.loadBalancers.list({ label_selector: selector(uid) })).load_balancers;
  const groupsOf = async (uid: string) => (await h.sim.client.serverGroups.list({ label_selector: selector(uid) })).server_groups;
  const policiesOf = async (uid: string) => (await h.sim.client.firewallPolicies.list({ label_selector: selector(uid) })).firewall_policies;
  const blocksOf = async (uid: string) => h.sim.client.ipBlocks.listAll({ tags: { 'service-uid': uid } });
  const resourcesOf = async (uid: string): Promise<number> =>
    (await lbsOf(uid)).length + (strategy === 'lb' ? (await groupsOf(uid)).length + (await policiesOf(uid)).length : (await blocksOf(uid)).length);
  /** The server ids the LB sends traffic to (group members or direct targets). */
  const targetIds = async (uid: string): Promise<string[]> => {
    if (strategy === 'lb') return [...((await groupsOf(uid))[0]?.servers ?? [])].sort();
    const lb = (await lbsOf(uid))[0];
    return (lb?.targets ?? []).flatMap((t) => (t.kind === 'server' ? [t.server_id] : [])).sort();
  };

  async function addNode(): Promise<string> {
    const name = uniqueName(`lbn-${strategy}`);
    const server = await h.createServer(name);
    serverIds.set(name, server.id);
    await h.startKubelet(name);
    await eventually('node initialised', async () => (await h.node(name)).spec?.providerID === `simcloud://${server.id}`);
    nodes.push(name);
    return name;
  }

  async function expectStrategyResources({
    name,
    uid,
    lb,
    vip,
    nodePort,
  }: {
    name: string;
    uid: string;
    lb: LoadBalancer;
    vip: string;
    nodePort: number;
  }): Promise<void> {
    if (strategy === 'lb') {
      const [group] = await groupsOf(uid);
      const [policy] = await policiesOf(uid);
      expect(lb.targets).toEqual([{ kind: 'server_group', server_group_id: group!.id }]);
      expect(policy?.server_group_id).toBe(group!.id);
      expect(policy?.rules).toEqual([
        expect.objectContaining({ direction: 'inbound', protocol: 'tcp', ports: String(nodePort), source_cidrs: ['127.0.0.0/8'] }),
      ]);
      return;
    }
    const [block] = await blocksOf(uid);
    expect(block?.tags).toMatchObject({ usage: 'simcloud-ccm-auto', cluster: h.clusterName, service: `${NS}.${name}` });
    expect(lb.ip_block_id).toBe(block!.id);
    expect(lb.source_ranges).toEqual(['127.0.0.0/8']);
    const parts = block!.cidr.split('/')[0]!.split('.').map(Number);
    expect(vip).toBe([parts[0], parts[1], parts[2], parts[3]! + 2].join('.'));
  }

  beforeAll(async () => {
    await h.setUp();
    await h.startCcm();
    await addNode();
    await addNode();
  });
  afterAll(() => h.cleanup());

  it('creates the cloud resources, sets the status and carries TCP through the VIP', async () => {
    const name = uniqueName('web');
    const created = await h.createService(NS, lbService(name, { sessionAffinity: 'ClientIP', loadBalancerSourceRanges: ['127.0.0.0/8'] }));
    const uid = created.metadata!.uid!;
    const nodePort = created.spec!.ports![0]!.nodePort!;
    const ready = await eventually('ingress IP', async () => {
      const s = await svc(name);
      return s.status?.loadBalancer?.ingress?.[0]?.ip ? s : undefined;
    });
    const calls = h.calls.byCaller(`service-lb-controller ${NS}/${name}`);
    console.log(
      `[figures] ${strategy}: cloud calls until the LB status was set: ${calls.length} (${calls.map((c) => `${c.method} ${c.path.replace(/\/[a-z]+-[A-Za-z0-9]+/g, '/{id}')} ${c.status}`).join(', ')})`,
    );
    expect(ready.metadata?.finalizers).toContain(FINALIZER);
    const vip = ready.status!.loadBalancer!.ingress![0]!.ip!;
    const [lb] = await lbsOf(uid);
    expect(lb?.public_ipv4).toBe(vip);
    expect(lb?.session_affinity).toBe('source_ip');
    expect(lb?.services).toEqual([
      {
        protocol: 'tcp',
        listen_port: 80,
        destination_port: nodePort,
        proxy_protocol: 'none',
        health_check: { protocol: 'tcp', port: nodePort, path: '/', interval_seconds: 10, timeout_seconds: 5, retries: 3 },
      },
    ]);
    expect(await targetIds(uid)).toEqual(nodes.map((n) => serverIds.get(n)!).sort());
    await expectStrategyResources({ name, uid, lb: lb!, vip, nodePort });
    for (const n of nodes) {
      const server = await h.sim.client.servers.get(serverIds.get(n)!);
      for (const ip of [server.private_ipv4, server.public_ipv4]) if (ip?.startsWith('127.')) await h.tcp(ip, nodePort, n);
    }
    const answer = await eventually('TCP through the VIP', () => readLine(vip, 80).catch(() => undefined), 60_000);
    expect(nodes).toContain(answer);
  });

  it('follows node additions, the exclude label and node deletions via UpdateLoadBalancer', async () => {
    const name = uniqueName('nodes');
    const uid = (await h.createService(NS, lbService(name))).metadata!.uid!;
    await eventually('ingress', async () => (await svc(name)).status?.loadBalancer?.ingress?.[0]);
    const extra = await addNode();
    const extraId = serverIds.get(extra)!;
    await eventually('new node targeted', async () => (await targetIds(uid)).includes(extraId));
    await h.cluster.core.patchNode(
      { name: extra, body: { metadata: { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': 'true' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await eventually('excluded node untargeted', async () => !(await targetIds(uid)).includes(extraId));
    const removed = nodes[0]!;
    h.kubelet(removed)?.close();
    await h.cluster.core.deleteNode({ name: removed });
    nodes.shift();
    await eventually('deleted node untargeted', async () => !(await targetIds(uid)).includes(serverIds.get(removed)!));
  });

  it('updates the LB on an annotation change; an invalid annotation gives a Warning and no cloud change', async () => {
    const name = uniqueName('annot');
    const uid = (await h.createService(NS, lbService(name))).metadata!.uid!;
    await eventually('ingress', async () => (await svc(name)).status?.loadBalancer?.ingress?.[0]);
    const patch = async (annotations: Record<string, string | null>): Promise<void> => {
      await h.cluster.core.patchNamespacedService(
        { name, namespace: NS, body: { metadata: { annotations } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    };
    await patch({ [`${A}algorithm`]: 'least_connections', [`${A}health-check-interval`]: '3' });
    await eventually('LB updated', async () => {
      const lb = (await lbsOf(uid))[0];
      return lb?.algorithm === 'least_connections' && lb.services[0]?.health_check.interval_seconds === 3;
    });
    const before = JSON.stringify(await lbsOf(uid));
    const mark = h.calls.calls.length;
    await patch({ [`${A}protocol`]: 'udp' });
    const warning = await eventually('Warning event', async () =>
      (await h.events(NS, name)).find((e) => e.type === 'Warning' && (e.message ?? '').includes(`${A}protocol`)),
    );
    expect(warning.reason).toBe('SyncLoadBalancerFailed');
    expect(warning.message).toContain('must be one of: tcp, http, https');
    const writes = h.calls.calls.slice(mark).filter((c) => c.method !== 'GET' && (c.caller ?? '').includes(`${NS}/${name}`));
    expect(writes).toEqual([]);
    expect(JSON.stringify(await lbsOf(uid))).toBe(before);
    await patch({ [`${A}protocol`]: null });
  });

  it('removes every cloud resource and then the finalizer when the Service is deleted', async () => {
    const name = uniqueName('del');
    const uid = (await h.createService(NS, lbService(name))).metadata!.uid!;
    await eventually('ingress', async () => (await svc(name)).status?.loadBalancer?.ingress?.[0]);
    expect(await resourcesOf(uid)).toBe(strategy === 'lb' ? 3 : 2);
    await h.cluster.core.deleteNamespacedService({ name, namespace: NS });
    await eventually('service gone', async () => svc(name).then(() => false, isNotFound));
    expect(await resourcesOf(uid)).toBe(0);
  });

  it('keeps the cloud resources with preserve=true', async () => {
    const name = uniqueName('keep');
    const uid = (await h.createService(NS, lbService(name, {}, { [`${A}preserve`]: 'true' }))).metadata!.uid!;
    await eventually('ingress', async () => (await svc(name)).status?.loadBalancer?.ingress?.[0]);
    await h.cluster.core.deleteNamespacedService({ name, namespace: NS });
    await eventually('service gone', async () => svc(name).then(() => false, isNotFound));
    expect(await resourcesOf(uid)).toBe(strategy === 'lb' ? 3 : 2);
  });

  it('takes the VIP from spec.loadBalancerIP (the third address of an existing block)', async () => {
    const [region] = await h.sim.client.catalogue.regions();
    const block = await h.sim.client.ipBlocks.allocate({ location: region!.id, size: 29 });
    const parts = block.cidr.split('/')[0]!.split('.').map(Number);
    const ip = [parts[0], parts[1], parts[2], parts[3]! + 2].join('.');
    const name = uniqueName('fixed');
    const uid = (await h.createService(NS, lbService(name, { loadBalancerIP: ip }))).metadata!.uid!;
    const ingress = await eventually('ingress', async () => (await svc(name)).status?.loadBalancer?.ingress?.[0]);
    expect(ingress.ip).toBe(ip);
    expect((await lbsOf(uid))[0]?.ip_block_id).toBe(block.id);
  });

  it('adopts an existing cloud resource named by load-balancer-id instead of creating one', async () => {
    const [region] = await h.sim.client.catalogue.regions();
    const existingId =
      strategy === 'lb'
        ? (await h.sim.client.loadBalancers.create({ name: uniqueName('pre').slice(0, 60) })).load_balancer.id
        : (await h.sim.client.ipBlocks.allocate({ location: region!.id, size: 29 })).id;
    const name = uniqueName('adopt');
    const uid = (await h.createService(NS, lbService(name, {}, { [`${A}load-balancer-id`]: existingId }))).metadata!.uid!;
    await eventually('ingress', async () => (await svc(name)).status?.loadBalancer?.ingress?.[0]);
    if (strategy === 'lb') {
      expect((await lbsOf(uid)).map((lb) => lb.id)).toEqual([existingId]);
    } else {
      expect((await blocksOf(uid)).map((b) => b.id)).toEqual([existingId]);
      expect((await lbsOf(uid))[0]?.ip_block_id).toBe(existingId);
    }
  });

  it('leaves Services of another load-balancer class alone', async () => {
    const name = uniqueName('other');
    const uid = (await h.createService(NS, lbService(name, { loadBalancerClass: 'example.com/other' }))).metadata!.uid!;
    // A Service of our class created afterwards reaches the controller through the same watch, in order:
    // once it has its ingress, the controller has seen (and skipped) the other one.
    const witness = uniqueName('witness');
    await h.createService(NS, lbService(witness));
    await eventually('the later Service of our class to get its ingress', async () => (await svc(witness)).status?.loadBalancer?.ingress?.[0]);
    const s = await svc(name);
    expect(s.metadata?.finalizers ?? []).not.toContain(FINALIZER);
    expect(s.status?.loadBalancer?.ingress ?? []).toEqual([]);
    expect(await resourcesOf(uid)).toBe(0);
  });
});
