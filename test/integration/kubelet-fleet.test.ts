// The kubelet fleet against the real control plane: the shared heartbeat (the benchmarks' scale option)
// renews each running kubelet's Lease once per interval, spread over it; a server renamed through the cloud
// keeps its Node (a machine's hostname does not follow the cloud's label).
import { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeletFleet } from '../../sandbox/kubelet/fleet.ts';
import { NODE_LEASE_NAMESPACE } from '../../sandbox/kubelet/node-object.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { sharedControlPlane, uniqueName, type TestCluster } from '../helpers/control-plane.ts';

describe('a kubelet fleet', () => {
  let cluster: TestCluster;
  const fleets: KubeletFleet[] = [];
  const nodes: string[] = [];

  beforeAll(async () => {
    cluster = await sharedControlPlane();
  });

  afterAll(async () => {
    for (const f of fleets) void f.close();
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const leases = cluster.kubeConfig.makeApiClient(CoordinationV1Api);
    await Promise.all(
      nodes.flatMap((name) => [
        core.deleteNode({ name }).catch(() => undefined),
        leases.deleteNamespacedLease({ name, namespace: NODE_LEASE_NAMESPACE }).catch(() => undefined),
      ]),
    );
  });

  it('renews every Lease once per interval, spread over the interval rather than in one burst', async () => {
    const intervalMs = 2000;
    const prefix = uniqueName('hb');
    const fleet = new KubeletFleet({
      kubeConfig: cluster.kubeConfig,
      clusterLabel: { key: 'fleet', value: prefix },
      sharedHeartbeat: { intervalMs },
      runPods: false,
    });
    fleets.push(fleet);
    const names = Array.from({ length: 20 }, (_, i) => `${prefix}-${i}`);
    nodes.push(...names);
    await Promise.all(
      names.map((name, i) =>
        fleet.upsert({ id: `${prefix}-srv-${i}`, name, status: 'running', public_ipv4: null, private_ipv4: null, labels: { fleet: prefix } }),
      ),
    );

    const leases = cluster.kubeConfig.makeApiClient(CoordinationV1Api);
    const renewTimes = async (): Promise<Map<string, number>> => {
      const list = await Promise.all(names.map((name) => leases.readNamespacedLease({ name, namespace: NODE_LEASE_NAMESPACE })));
      return new Map(list.map((l) => [l.metadata?.name ?? '', new Date(l.spec?.renewTime ?? 0).getTime()]));
    };
    const registered = await renewTimes();
    // Each kubelet's first renewal by the fleet after its registration.
    const renewed = new Map<string, number>();
    await waitFor(
      async () => {
        for (const [name, at] of await renewTimes()) if (!renewed.has(name) && at > (registered.get(name) ?? 0)) renewed.set(name, at);
        return renewed.size === names.length;
      },
      { timeoutMs: 4 * intervalMs, intervalMs: 50, description: 'every Lease renewed by the fleet' },
    );

    const times = [...renewed.values()];
    // One burst would put the 20 renewals within a few milliseconds of each other.
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(intervalMs / 2);
    expect(Math.max(...times) - Math.min(...registered.values())).toBeLessThan(2 * intervalMs + 1000);
  });

  it("keeps a renamed server's Node under its first name, running, and registers no Node for the new name", async () => {
    const prefix = uniqueName('rn');
    const fleet = new KubeletFleet({ kubeConfig: cluster.kubeConfig, clusterLabel: { key: 'fleet', value: prefix }, renewIntervalMs: 200, runPods: false });
    fleets.push(fleet);
    const name = `${prefix}-0`;
    nodes.push(name, `${name}-test`);
    const server = { id: `${prefix}-srv`, name, status: 'running', public_ipv4: null, private_ipv4: '127.0.0.9', labels: { fleet: prefix } };
    await fleet.upsert(server);
    await fleet.upsert({ ...server, name: `${name}-test` });
    await fleet.sync([{ ...server, name: `${name}-test` }]);

    expect(fleet.size).toBe(1);
    expect(fleet.isRunning(name)).toBe(true);
    expect(fleet.runningNodes()).toEqual([{ name, ips: ['127.0.0.9'] }]);
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const leases = cluster.kubeConfig.makeApiClient(CoordinationV1Api);
    const renewed = async (): Promise<number> =>
      new Date((await leases.readNamespacedLease({ name, namespace: NODE_LEASE_NAMESPACE })).spec?.renewTime ?? 0).getTime();
    const first = await renewed();
    await waitFor(async () => (await renewed()) > first, { timeoutMs: 5000, intervalMs: 50, description: `the Lease of ${name} renewed after the rename` });
    await expect(core.readNode({ name: `${name}-test` })).rejects.toMatchObject({ code: 404 });
  });
});
