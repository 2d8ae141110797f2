// Robustness of the simcloud CCM: convergence with 30 % of cloud calls failing, no duplicates after a kill -9
// mid-reconcile, and leader election with two replicas (only the leader acts; takeover within 20 s).
import type { V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CcmHarness, eventually, isNotFound, uniqueName } from './ccm-harness.ts';

const NS = 'default';
const UNINITIALIZED = 'node.cloudprovider.kubernetes.io/uninitialized';

const lbService = (name: string): V1Service => ({
  metadata: { name },
  spec: { type: 'LoadBalancer', selector: { app: name }, ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] },
});

async function ownedCounts(h: CcmHarness, uid: string): Promise<{ lbs: number; groups: number; policies: number }> {
  const sel = { label_selector: `simcloud.dev/service-uid=${uid}` };
  const c = h.sim.client;
  return {
    lbs: (await c.loadBalancers.listAll(sel)).length,
    groups: (await c.serverGroups.listAll(sel)).length,
    policies: (await c.firewallPolicies.listAll(sel)).length,
  };
}

async function initialisedNode(h: CcmHarness, timeoutMs = 90_000): Promise<string> {
  const name = uniqueName('rb');
  await h.createServer(name);
  await h.startKubelet(name);
  await eventually('node initialised', async () => !((await h.node(name)).spec?.taints ?? []).some((t) => t.key === UNINITIALIZED), timeoutMs);
  return name;
}

describe('simcloud CCM: 30 % faults', () => {
  const h = new CcmHarness({ prefix: 'ccm-faults', args: ['--controllers=cloud-node,cloud-node-lifecycle,service'] });

  beforeAll(async () => {
    await h.setUp();
    const [project] = await h.sim.admin.listProjects();
    const token = await h.sim.admin.createToken(project!.id, { name: 'ccm-faulty' });
    const match = { token: token.id, path: '/v1/**' };
    await h.sim.admin.addFault({ kind: 'error', status: 500, code: 'server_error', probability: 0.1, match });
    await h.sim.admin.addFault({ kind: 'error', status: 429, code: 'rate_limit_exceeded', retry_after_seconds: 1, probability: 0.1, match });
    await h.sim.admin.addFault({ kind: 'latency', latency_ms: 2000, probability: 0.1, match });
    await h.startCcm([], { SIMCLOUD_TOKEN: token.token });
  });
  afterAll(() => h.cleanup());

  it('still initialises nodes, serves and deletes LBs, and leaks nothing', async () => {
    const t0 = Date.now();
    await Promise.all([initialisedNode(h, 180_000), initialisedNode(h, 180_000)]);
    console.log(`[figures] faults: two nodes initialised after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const names = [uniqueName('faulty'), uniqueName('faulty'), uniqueName('faulty')];
    const uids = await Promise.all(names.map(async (n) => (await h.createService(NS, lbService(n))).metadata!.uid!));
    const read = (n: string) => h.cluster.core.readNamespacedService({ name: n, namespace: NS });
    await Promise.all(names.map((n) => eventually('ingress under faults', async () => (await read(n)).status?.loadBalancer?.ingress?.[0], 300_000)));
    console.log(`[figures] faults: 3 LBs with ingress after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    for (const uid of uids) expect(await ownedCounts(h, uid)).toEqual({ lbs: 1, groups: 1, policies: 1 });
    await Promise.all(names.map((n) => h.cluster.core.deleteNamespacedService({ name: n, namespace: NS })));
    await Promise.all(names.map((n) => eventually('service deleted under faults', async () => read(n).then(() => false, isNotFound), 300_000)));
    console.log(`[figures] faults: all deleted after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    for (const uid of uids) expect(await ownedCounts(h, uid)).toEqual({ lbs: 0, groups: 0, policies: 0 });
    // The control plane is shared with the worker's other files, whose LoadBalancer Services this CCM serves too:
    // what this test made is what its namespace's Services named.
    const leftovers = await h.sim.client.loadBalancers.listAll({ label_selector: `simcloud.dev/cluster=${h.clusterName}` });
    expect(leftovers.filter((lb) => lb.labels['simcloud.dev/service']?.startsWith(`${NS}.`))).toEqual([]);
    const ccmCalls = h.calls.calls.filter((c) => /controller/.test(c.caller ?? '')).length;
    console.log(`[figures] faults: CCM cloud calls ${ccmCalls}`);
    const faults = await h.sim.admin.listFaults();
    console.log(`[figures] faults fired: ${faults.map((f) => `${f.kind}${'status' in f ? ` ${f.status}` : ''}=${f.fired}`).join(', ')}`);
    expect(faults.reduce((n, f) => n + f.fired, 0)).toBeGreaterThan(0);
  }, 600_000);
});

describe('simcloud CCM: restart and leader election', () => {
  const h = new CcmHarness({ prefix: 'ccm-restart', args: ['--controllers=cloud-node,service'] });

  beforeAll(() => h.setUp());
  afterAll(() => h.cleanup());

  it('creates no duplicate after a kill -9 mid-reconcile and a restart', async () => {
    await h.sim.admin.addFault({ kind: 'latency', latency_ms: 1500, match: { method: 'POST', path: '/v1/load_balancers' } });
    const first = await h.spawnCcm();
    await initialisedNode(h);
    const name = uniqueName('crash');
    const uid = (await h.createService(NS, lbService(name))).metadata!.uid!;
    await eventually('LB create in flight', () => h.calls.byCaller(`${NS}/${name}`).some((c) => c.method === 'POST' && c.path.includes('firewall_policies')));
    await first.kill9();
    await h.sim.admin.clearFaults();
    await h.spawnCcm();
    await eventually(
      'ingress after restart',
      async () => (await h.cluster.core.readNamespacedService({ name, namespace: NS })).status?.loadBalancer?.ingress?.[0],
      90_000,
    );
    // A create the killed CCM had in flight is still served (after the injected latency): once simcloud
    // serves nothing but this metrics read, every call the killed process started has ended.
    await eventually('simcloud to finish the calls in flight', async () => {
      const text = await (await fetch(`${h.sim.url}/metrics`)).text();
      return Number(/^simcloud_http_requests_in_flight (\d+)/m.exec(text)?.[1]) <= 1;
    });
    expect(await ownedCounts(h, uid)).toEqual({ lbs: 1, groups: 1, policies: 1 });
  });

  it('lets only the leader act and fails over within 20 s when it is killed', async () => {
    const lease = `${h.leaseName}-ha`;
    // Worst case for a takeover after kill -9 is lease + 2 x (retry period x 2.2 jitter): 15 s + 8.8 s with the
    // upstream defaults (measured 16-19 s), so the bound of 20 s is asserted with a 10 s lease (worst 18.8 s).
    const ha = [`--leader-elect-resource-name=${lease}`, '--leader-elect-lease-duration=10s', '--leader-elect-renew-deadline=7s'];
    const a = await h.spawnCcm(ha);
    const b = await h.spawnCcm(ha);
    const holder = await eventually('a leader', async () => {
      const l = await h.cluster.coordination.readNamespacedLease({ name: lease, namespace: 'kube-system' }).catch(() => undefined);
      return l?.spec?.holderIdentity;
    });
    await initialisedNode(h);
    const leading = (r: typeof a): boolean => r.output().includes('started leading');
    await eventually('one leader logged', () => leading(a) || leading(b));
    const [leader, follower] = leading(a) ? [a, b] : [b, a];
    expect(leading(follower)).toBe(false);
    expect(follower.output()).not.toContain('Starting cloud-node-controller');
    const killedAt = Date.now();
    await leader.kill9();
    await eventually(
      'follower takes over',
      async () => {
        const l = await h.cluster.coordination.readNamespacedLease({ name: lease, namespace: 'kube-system' });
        return l.spec?.holderIdentity !== holder && leading(follower);
      },
      30_000,
    );
    const takeoverMs = Date.now() - killedAt;
    console.log(`[figures] leader takeover after kill -9: ${(takeoverMs / 1000).toFixed(1)} s`);
    expect(takeoverMs).toBeLessThan(20_000);
    await initialisedNode(h, 30_000);
  });
});
