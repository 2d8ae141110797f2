// Pods on the real control plane: kube-controller-manager's workload controllers create them,
// kube-scheduler binds them, and the virtual kubelets' pod runner runs them (Running, Ready, an IP from the
// node's podCIDR), finishes their deletion, completes Jobs, and leaves them alone while a kubelet is silent,
// so taint-eviction evicts them and the ReplicaSet replaces them elsewhere, as on a real cluster.
import { AppsV1Api, BatchV1Api, DiscoveryV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contains, parseCidr } from '../../lib/ip.ts';
import { PodRunner } from '../../sandbox/kubelet/pod-runner.ts';
import { VirtualKubelet } from '../../sandbox/kubelet/virtual-kubelet.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { sharedControlPlane, uniqueName, type TestCluster } from '../helpers/control-plane.ts';

describe('pods on virtual kubelets', () => {
  let cluster: TestCluster;
  let apps: AppsV1Api;
  let runner: PodRunner;
  const group = uniqueName('pods');
  const nodeLabels = { 'ccm-sandbox.test/group': group };
  const kubelets = new Map<string, VirtualKubelet>();

  /**
   * A kubelet of this test's group (with a --node-ip: a documentation address, data only, never dialled);
   * `initialise` removes the uninitialized taint as a CCM would.
   */
  async function node(prefix: string, initialise: boolean): Promise<VirtualKubelet> {
    const nodeIP = `192.0.2.${kubelets.size + 1}`;
    const kubelet = new VirtualKubelet({ kubeConfig: cluster.kubeConfig, nodeName: uniqueName(prefix), nodeIP, labels: nodeLabels, renewIntervalMs: 1000 });
    kubelets.set(kubelet.nodeName, kubelet);
    await kubelet.start();
    if (initialise) await cluster.core.patchNode({ name: kubelet.nodeName, body: [{ op: 'replace', path: '/spec/taints', value: [] }] });
    return kubelet;
  }

  const listPods = async (selector: string): Promise<V1Pod[]> =>
    (await cluster.core.listNamespacedPod({ namespace: 'default', labelSelector: selector })).items;
  const running = (p: V1Pod): boolean =>
    p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp && p.status.conditions?.find((c) => c.type === 'Ready')?.status === 'True';

  async function deployment(name: string, replicas: number): Promise<void> {
    const labels = { app: name };
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name },
        spec: {
          replicas,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { nodeSelector: nodeLabels, containers: [{ name: 'web', image: 'nginx' }] } },
        },
      },
    });
  }

  async function runningPods(selector: string, count: number, description: string): Promise<V1Pod[]> {
    return waitFor(
      async () => {
        const pods = (await listPods(selector)).filter(running);
        return pods.length === count ? pods : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, description },
    );
  }

  beforeAll(async () => {
    cluster = await sharedControlPlane();
    apps = cluster.kubeConfig.makeApiClient(AppsV1Api);
    // Only this file's kubelets count as up: pods on other tests' nodes are not ours to run.
    runner = new PodRunner({ kubeConfig: cluster.kubeConfig, kubeletRunning: (name) => kubelets.get(name)?.running ?? false });
    runner.start();
  });

  afterAll(() => {
    runner.close();
    for (const k of kubelets.values()) k.close();
  });

  it('runs a Deployment: Running and Ready pods with distinct IPs from their node podCIDR, listed as ready endpoints', async () => {
    const kubelet = await node('run', true);
    const name = uniqueName('web');
    await cluster.core.createNamespacedService({
      namespace: 'default',
      body: { metadata: { name }, spec: { selector: { app: name }, ports: [{ port: 80 }] } },
    });
    await deployment(name, 3);
    const pods = await runningPods(`app=${name}`, 3, 'three Running pods');
    const podCIDR = (await cluster.core.readNode({ name: kubelet.nodeName })).spec?.podCIDR ?? '';
    const ips = pods.map((p) => p.status?.podIP ?? '');
    expect(new Set(ips).size).toBe(3);
    expect(ips.every((ip) => contains(parseCidr(podCIDR), ip))).toBe(true);
    expect(pods.every((p) => p.spec?.nodeName === kubelet.nodeName && p.status?.containerStatuses?.[0]?.ready === true)).toBe(true);
    expect(new Set(pods.map((p) => p.status?.hostIP))).toEqual(
      new Set([(await cluster.core.readNode({ name: kubelet.nodeName })).status?.addresses?.[0]?.address]),
    );
    const discovery = cluster.kubeConfig.makeApiClient(DiscoveryV1Api);
    const endpoints = await waitFor(
      async () => {
        const slices = await discovery.listNamespacedEndpointSlice({ namespace: 'default', labelSelector: `kubernetes.io/service-name=${name}` });
        const ready = slices.items.flatMap((s) => s.endpoints ?? []).filter((e) => e.conditions?.ready === true);
        return ready.length === 3 ? ready : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, description: 'three ready endpoints' },
    );
    expect(new Set(endpoints.flatMap((e) => e.addresses))).toEqual(new Set(ips));
    expect(endpoints.every((e) => e.nodeName === kubelet.nodeName)).toBe(true);
  });

  it('finishes a pod deletion at once, and the ReplicaSet replaces the pod', async () => {
    await node('delete', true);
    const name = uniqueName('del');
    await deployment(name, 1);
    const [first] = await runningPods(`app=${name}`, 1, 'one Running pod');
    await cluster.core.deleteNamespacedPod({ name: first!.metadata!.name!, namespace: 'default' });
    const [replacement] = await waitFor(
      async () => {
        const pods = await listPods(`app=${name}`);
        return pods.length === 1 && pods[0]!.metadata?.uid !== first!.metadata?.uid && running(pods[0]!) ? pods : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, description: 'the old pod gone and its replacement Running' },
    );
    expect(replacement!.metadata?.name).not.toBe(first!.metadata?.name);
  });

  it('completes a Job', async () => {
    await node('job', true);
    const batch = cluster.kubeConfig.makeApiClient(BatchV1Api);
    const name = uniqueName('job');
    await batch.createNamespacedJob({
      namespace: 'default',
      body: {
        metadata: { name },
        spec: { template: { spec: { restartPolicy: 'Never', nodeSelector: nodeLabels, containers: [{ name: 'pi', image: 'perl' }] } } },
      },
    });
    const job = await waitFor(
      async () => {
        const j = await batch.readNamespacedJob({ name, namespace: 'default' });
        return j.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ? j : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, description: 'the Job Complete' },
    );
    expect(job.status?.succeeded).toBe(1);
  });

  it('puts a DaemonSet pod on every initialised node of the group and none on an uninitialised one', async () => {
    const uninitialised = await node('uninit', false);
    const name = uniqueName('ds');
    const labels = { app: name };
    await apps.createNamespacedDaemonSet({
      namespace: 'default',
      body: {
        metadata: { name },
        spec: {
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { nodeSelector: nodeLabels, containers: [{ name: 'agent', image: 'busybox' }] } },
        },
      },
    });
    const initialised = [...kubelets.values()].filter((k) => k.nodeName !== uninitialised.nodeName).map((k) => k.nodeName);
    const pods = await runningPods(`app=${name}`, initialised.length, `a Running DaemonSet pod on each of ${initialised.length} nodes`);
    expect(new Set(pods.map((p) => p.spec?.nodeName))).toEqual(new Set(initialised));
    const ds = await apps.readNamespacedDaemonSet({ name, namespace: 'default' });
    expect(ds.status?.desiredNumberScheduled).toBe(initialised.length);
    await apps.deleteNamespacedDaemonSet({ name, namespace: 'default' });
  });

  it('evicts the pods of a silent kubelet and reschedules them; they stay Terminating until the kubelet returns', async () => {
    const [a, b] = [await node('evict-a', true), await node('evict-b', true)];
    const name = uniqueName('evict');
    const labels = { app: name };
    // Pinned to the two nodes so the replacements have exactly one place to go.
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name },
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              affinity: {
                nodeAffinity: {
                  requiredDuringSchedulingIgnoredDuringExecution: {
                    nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [a.nodeName, b.nodeName] }] }],
                  },
                },
              },
              topologySpreadConstraints: [
                { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: labels } },
              ],
              containers: [{ name: 'web', image: 'nginx' }],
            },
          },
        },
      },
    });
    await runningPods(`app=${name}`, 2, 'two Running pods');
    const onA = (await listPods(`app=${name}`)).filter((p) => p.spec?.nodeName === a.nodeName);
    expect(onA.length).toBeGreaterThan(0);
    a.stop();
    // node-lifecycle taints the node unreachable after its grace period; taint-eviction deletes the pods
    // once their toleration runs out; the ReplicaSet replaces them and the scheduler picks node b.
    const after = await waitFor(
      async () => {
        const pods = await listPods(`app=${name}`);
        const evicted = pods.filter((p) => p.spec?.nodeName === a.nodeName && p.metadata?.deletionTimestamp);
        const onB = pods.filter((p) => p.spec?.nodeName === b.nodeName && running(p));
        return evicted.length === onA.length && onB.length === 2 ? pods : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500, description: 'pods on the silent node evicted and both replicas Running on the other' },
    );
    expect(after.filter((p) => p.spec?.nodeName === a.nodeName).every((p) => p.metadata?.deletionTimestamp)).toBe(true);
    await a.resume();
    runner.nodeChanged(a.nodeName);
    await waitFor(async () => (await listPods(`app=${name}`)).every((p) => p.spec?.nodeName === b.nodeName), {
      timeoutMs: 30_000,
      intervalMs: 250,
      description: 'the returning kubelet to finish the deletions',
    });
  });
});
