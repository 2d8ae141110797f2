// Workloads on a whole sandbox whose CCM slot starts empty (`--ccm none`): a Deployment's pods wait
// for the CCM exactly as on a real cluster (FailedScheduling on the uninitialized taint), run once a CCM
// started by hand initialises the nodes, move to the other nodes when a server is powered off, and are
// removed by pod garbage collection once that server is deleted and the CCM deletes its Node.
import { AppsV1Api, type CoreV1Event, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBuiltinCcm } from '../../sandbox/ccm/launch.ts';
import type { LaunchedCcm } from '../../sandbox/ccm/supervisor.ts';
import { UNINITIALIZED_TAINT } from '../../sandbox/kubelet/node-object.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { CCM_E2E_ARGS, hasTaint, startE2eSandbox, type E2eSandbox } from '../helpers/sandbox.ts';

const NS = 'default';
const APP = 'web';

describe('workloads', () => {
  let e: E2eSandbox;
  let apps: AppsV1Api;
  let ccm: LaunchedCcm | undefined;
  /** The server the power-off flow turned off, and its node. */
  let victimServer: { id: string; node: string } | undefined;

  beforeAll(async () => {
    e = await startE2eSandbox({ name: 'workloads', workers: 3, ccm: { kind: 'none' } });
    apps = e.kubeConfig.makeApiClient(AppsV1Api);
  });

  afterAll(async () => {
    await ccm?.process.stop();
    await e?.stop();
  });

  const pods = async (): Promise<V1Pod[]> => (await e.core.listNamespacedPod({ namespace: NS, labelSelector: `app=${APP}` })).items;
  const isRunning = (p: V1Pod): boolean => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp;

  /** Our CCM, started by hand in the empty slot with the identity the sandbox prepared for it. */
  async function startCcmByHand(): Promise<LaunchedCcm> {
    const { state, options } = e.sandbox;
    if (!state.simcloud || !state.clusterCidr || !state.ccm?.kubeconfig)
      throw new Error('the sandbox state lacks simcloud, the cluster CIDR or the CCM identity');
    const ctx = {
      exec: e.sandbox.exec,
      stateDir: options.stateDir,
      clusterName: options.name,
      clusterCidr: state.clusterCidr,
      simcloud: { url: state.simcloud.url, token: state.simcloud.token },
      network: options.name,
      lbStrategy: options.lbStrategy,
      extraArgs: CCM_E2E_ARGS,
    };
    return launchBuiltinCcm(ctx, state.ccm.kubeconfig, []);
  }

  it('keeps the pods Pending with FailedScheduling on the uninitialized taint until a CCM runs, then runs them on initialised nodes', async () => {
    const started = Date.now();
    const labels = { app: APP };
    await apps.createNamespacedDeployment({
      namespace: NS,
      body: {
        metadata: { name: APP },
        spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
      },
    });
    const pending = await waitFor(
      async () => {
        const list = await pods();
        const unschedulable = list.filter((p) =>
          p.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable'),
        );
        return list.length === 2 && unschedulable.length === 2 ? list : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, description: 'two Pending pods the scheduler could not place' },
    );
    expect(pending.every((p) => p.status?.phase === 'Pending' && !p.spec?.nodeName)).toBe(true);
    const events = await waitFor(
      async () => {
        const list = await e.core.listNamespacedEvent({ namespace: NS, fieldSelector: 'reason=FailedScheduling' });
        const mine = list.items.filter((ev: CoreV1Event) => pending.some((p) => p.metadata?.name === ev.involvedObject.name));
        return mine.length > 0 ? mine : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, description: 'a FailedScheduling event' },
    );
    // Kubernetes 1.37's scheduler no longer names the taint in the message (it logs it at -v=4); the one
    // untolerated taint every node carries is the uninitialized one.
    const nodes = (await e.core.listNode()).items;
    expect(events[0]?.message).toContain(`0/${nodes.length} nodes are available: ${nodes.length} node(s) had untolerated taint(s)`);
    expect(nodes.every((n) => hasTaint(n, UNINITIALIZED_TAINT))).toBe(true);
    const pendingAt = Date.now();

    ccm = await startCcmByHand();
    const running = await waitFor(
      async () => {
        const list = (await pods()).filter(isRunning);
        return list.length === 2 ? list : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 250, description: 'both pods Running once the CCM initialised the nodes' },
    );
    for (const pod of running) {
      const node = await e.core.readNode({ name: pod.spec?.nodeName ?? '' });
      expect(hasTaint(node, UNINITIALIZED_TAINT)).toBe(false);
      expect(pod.status?.hostIP).toBe(node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address);
      expect(pod.status?.podIP).toBeDefined();
    }
    console.log(
      `[workloads] Pending with FailedScheduling after ${((pendingAt - started) / 1000).toFixed(1)} s; Running ${((Date.now() - pendingAt) / 1000).toFixed(1)} s after the CCM started`,
    );
  });

  it('evicts the pods of a powered-off node and reschedules them on the others', async () => {
    const before = (await pods()).filter(isRunning);
    const victimNode = before[0]?.spec?.nodeName ?? '';
    const servers = await e.sandbox.client.servers.listAll({});
    const victim = servers.find((s) => s.name === victimNode);
    if (!victim) throw new Error(`no server for node ${victimNode}`);
    const started = Date.now();
    await e.sandbox.client.waitForAction((await e.sandbox.client.servers.poweroff(victim.id)).id);
    const after = await waitFor(
      async () => {
        const list = await pods();
        const evicted = list.filter((p) => p.spec?.nodeName === victimNode && p.metadata?.deletionTimestamp);
        const elsewhere = list.filter((p) => p.spec?.nodeName !== victimNode && isRunning(p));
        const onVictim = before.filter((p) => p.spec?.nodeName === victimNode);
        return evicted.length === onVictim.length && elsewhere.length === 2 ? list : undefined;
      },
      { timeoutMs: 150_000, intervalMs: 500, description: `the pods of ${victimNode} evicted and two replicas Running on other nodes` },
    );
    // The powered-off kubelet cannot confirm the deletion: its pods stay Terminating, as on a real cluster.
    expect(after.filter((p) => p.spec?.nodeName === victimNode).every((p) => p.metadata?.deletionTimestamp)).toBe(true);
    console.log(`[workloads] rescheduled ${((Date.now() - started) / 1000).toFixed(1)} s after the power-off`);
    victimServer = { id: victim.id, node: victimNode };
  });

  it('deleting that server: the CCM deletes its Node and pod garbage collection removes the pods it left Terminating', async () => {
    if (!victimServer) throw new Error('the power-off flow did not run');
    const { id, node } = victimServer;
    const started = Date.now();
    await e.sandbox.client.servers.delete(id);
    await waitFor(async () => !(await pods()).some((p) => p.spec?.nodeName === node), {
      timeoutMs: 150_000,
      intervalMs: 500,
      description: `the pods of the deleted Node ${node} removed`,
    });
    expect((await e.core.listNode()).items.map((n) => n.metadata?.name)).not.toContain(node);
    expect((await pods()).filter(isRunning)).toHaveLength(2);
    console.log(`[workloads] orphaned pods removed ${((Date.now() - started) / 1000).toFixed(1)} s after the server was deleted`);
  });
});
