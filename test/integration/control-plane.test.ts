// The control plane is real: etcd + kube-apiserver + kube-controller-manager + kube-scheduler built from Go
// modules, with node-ipam, node-lifecycle, namespace, service-account and workload controllers and the
// scheduler doing their jobs.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiException, AppsV1Api, type V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinnedVersions } from '../../sandbox/control-plane/binaries.ts';
import { ControlPlane, ControlPlaneStartError } from '../../sandbox/control-plane/control-plane.ts';
import { createExec } from '../../sandbox/exec.ts';
import { UNINITIALIZED_TAINT } from '../../sandbox/kubelet/node-object.ts';
import { readyStatus, VirtualKubelet } from '../../sandbox/kubelet/virtual-kubelet.ts';
import { launchProcess } from '../../sandbox/processes.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { sharedControlPlane, uniqueName, type TestCluster } from '../helpers/control-plane.ts';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const notFound = (err: unknown): boolean => err instanceof ApiException && err.code === 404;

describe('control plane', () => {
  let cluster: TestCluster;
  const kubelets: VirtualKubelet[] = [];

  beforeAll(async () => {
    cluster = await sharedControlPlane();
  });

  afterAll(() => {
    for (const k of kubelets) k.close();
  });

  it('serves the pinned Kubernetes version', async () => {
    const res = await cluster.kubeConfig.makeApiClient((await import('@kubernetes/client-node')).VersionApi).getCode();
    expect(res.gitVersion).toBe(pinnedVersions().kubernetes);
  });

  it('keeps a Node registered like an external-cloud kubelet and gives it a podCIDR from node-ipam', async () => {
    const kubelet = new VirtualKubelet({ kubeConfig: cluster.kubeConfig, nodeName: uniqueName('ipam'), renewIntervalMs: 1000 });
    kubelets.push(kubelet);
    await kubelet.start();
    const node = await waitFor(
      async () => {
        const n = await cluster.core.readNode({ name: kubelet.nodeName });
        return n.spec?.podCIDR ? n : undefined;
      },
      { timeoutMs: 30_000, description: 'a podCIDR' },
    );
    expect(node.spec?.podCIDR).toMatch(/^10\.244\.\d+\.0\/24$/);
    expect(node.spec?.podCIDRs).toEqual([node.spec?.podCIDR]);
    expect(node.spec?.taints).toContainEqual({ key: UNINITIALIZED_TAINT, value: 'true', effect: 'NoSchedule' });
    expect(node.status?.addresses).toEqual([{ type: 'Hostname', address: kubelet.nodeName }]);
    expect(node.spec?.providerID ?? '').toBe('');
  });

  it('marks a Node whose Lease is no longer renewed Ready=Unknown with the unreachable taint', async () => {
    const kubelet = new VirtualKubelet({ kubeConfig: cluster.kubeConfig, nodeName: uniqueName('silent'), renewIntervalMs: 1000 });
    kubelets.push(kubelet);
    await kubelet.start();
    await waitFor(async () => readyStatus(await cluster.core.readNode({ name: kubelet.nodeName })) === 'True', {
      timeoutMs: 10_000,
      description: 'Ready=True',
    });
    kubelet.stop();
    const node = await waitFor(
      async () => {
        const n: V1Node = await cluster.core.readNode({ name: kubelet.nodeName });
        const tainted = n.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/unreachable');
        return readyStatus(n) === 'Unknown' && tainted ? n : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, description: 'Ready=Unknown and the unreachable taint' },
    );
    expect(node.spec?.taints?.map((t) => t.key)).toContain('node.kubernetes.io/unreachable');
    await kubelet.resume();
    await waitFor(async () => readyStatus(await cluster.core.readNode({ name: kubelet.nodeName })) === 'True', {
      timeoutMs: 30_000,
      description: 'Ready=True after resume',
    });
  });

  it('allocates a NodePort for a Service of type LoadBalancer', async () => {
    const name = uniqueName('lb');
    const svc = await cluster.core.createNamespacedService({
      namespace: 'default',
      body: { metadata: { name }, spec: { type: 'LoadBalancer', selector: { app: name }, ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] } },
    });
    const nodePort = svc.spec?.ports?.[0]?.nodePort ?? 0;
    expect(nodePort).toBeGreaterThanOrEqual(30000);
    expect(nodePort).toBeLessThanOrEqual(32767);
    expect(svc.spec?.clusterIP).toMatch(/^10\.96\./);
    await cluster.core.deleteNamespacedService({ name, namespace: 'default' });
  });

  it('turns a Deployment into pods and binds them only to a node without the uninitialized taint', async () => {
    const group = uniqueName('sched');
    const labels = { 'ccm-sandbox.test/group': group };
    const [tainted, ready] = [uniqueName('tainted'), uniqueName('ready')].map(
      (nodeName) => new VirtualKubelet({ kubeConfig: cluster.kubeConfig, nodeName, labels, renewIntervalMs: 1000 }),
    );
    kubelets.push(tainted!, ready!);
    await Promise.all([tainted!.start(), ready!.start()]);
    // What the CCM does when it initialises a node; the other node stays uninitialised.
    await cluster.core.patchNode({ name: ready!.nodeName, body: [{ op: 'replace', path: '/spec/taints', value: [] }] });
    const apps = cluster.kubeConfig.makeApiClient(AppsV1Api);
    const podLabels = { app: group };
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: group },
        spec: {
          replicas: 3,
          selector: { matchLabels: podLabels },
          template: { metadata: { labels: podLabels }, spec: { nodeSelector: labels, containers: [{ name: 'web', image: 'nginx' }] } },
        },
      },
    });
    const pods = await waitFor(
      async () => {
        const list = await cluster.core.listNamespacedPod({ namespace: 'default', labelSelector: `app=${group}` });
        return list.items.length === 3 && list.items.every((p) => p.spec?.nodeName) ? list.items : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, description: 'three pods bound by kube-scheduler' },
    );
    expect(new Set(pods.map((p) => p.spec?.nodeName))).toEqual(new Set([ready!.nodeName]));
    expect(pods[0]?.metadata?.ownerReferences?.[0]?.kind).toBe('ReplicaSet');
    await apps.deleteNamespacedDeployment({ name: group, namespace: 'default' });
  });

  it('completes a namespace deletion', async () => {
    const name = uniqueName('ns');
    await cluster.core.createNamespace({ body: { metadata: { name } } });
    await cluster.core.createNamespacedConfigMap({ namespace: name, body: { metadata: { name: 'c' }, data: { a: 'b' } } });
    await waitFor(async () => (await cluster.core.readNamespacedServiceAccount({ name: 'default', namespace: name })).metadata?.name, {
      timeoutMs: 15_000,
      description: 'the default ServiceAccount',
    });
    await cluster.core.deleteNamespace({ name });
    await waitFor(
      async () => {
        try {
          await cluster.core.readNamespace({ name });
          return false;
        } catch (err) {
          return notFound(err);
        }
      },
      { timeoutMs: 60_000, intervalMs: 250, description: `namespace ${name} to be gone` },
    );
  });
});

describe('control plane lifecycle', () => {
  it('runs next to another control plane, announces its API before the controller-manager and scheduler start, and leaves no process or directory after stop()', async () => {
    await sharedControlPlane();
    let announced: string[] = [];
    const phases: string[] = [];
    const cp = await ControlPlane.start({
      onApiReady: (early) => (announced = early.components().map((c) => `${c.name} ${c.running}`)),
      onPhase: (r) => phases.push(r.name),
    });
    expect(announced).toEqual(['etcd true', 'kube-apiserver true']);
    expect(phases.sort()).toEqual(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']);
    const pids = cp.components().map((c) => c.pid);
    expect(cp.components().map((c) => c.name)).toEqual(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']);
    expect(pids.every(alive)).toBe(true);
    await cp.stop();
    expect(pids.some(alive)).toBe(false);
    expect(existsSync(cp.dir)).toBe(false);
    await cp.stop();
  });

  it('reports the failing component and its log when start-up fails', async () => {
    const ok = (await sharedControlPlane()).controlPlane;
    const binaries = Object.fromEntries(ok.components().map((c) => [c.name, readFileSync(`/proc/${c.pid}/cmdline`, 'utf8').split('\0')[0]]));
    const start = ControlPlane.start({
      binaries: {
        etcd: binaries.etcd!,
        'kube-apiserver': binaries['kube-apiserver']!,
        'kube-controller-manager': '/bin/false',
        'kube-scheduler': binaries['kube-scheduler']!,
      },
    });
    const err: unknown = await start.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ControlPlaneStartError);
    expect((err as Error).message).toMatch(/kube-controller-manager failed to start: .*exited during start-up/);
    expect((err as Error).message).toMatch(/last lines of \S+kube-controller-manager\.log:\n/);
  });

  it('leaves nothing behind when the process that started it is killed with SIGKILL', async () => {
    const fixture = fileURLToPath(new URL('./fixtures/start-control-plane.ts', import.meta.url));
    const logDir = mkdtempSync(join(tmpdir(), 'cp-fixture-'));
    const logFile = join(logDir, 'fixture.log');
    const printed = (): { dir: string; pids: number[] } | undefined => {
      const line = /^\{"dir".*\}$/m.exec(readFileSync(logFile, 'utf8'))?.[0];
      return line ? (JSON.parse(line) as { dir: string; pids: number[] }) : undefined;
    };
    const started = await launchProcess({
      exec: createExec(),
      name: 'start-control-plane',
      command: process.execPath,
      args: [fixture],
      logFile,
      ready: printed,
      readyDescription: 'the fixture to print its control plane',
      timeoutMs: 300_000,
    });
    const { dir, pids } = started.ready;
    expect(pids.every(alive)).toBe(true);
    started.process.kill('SIGKILL');
    await waitFor(() => !pids.some(alive) && !existsSync(dir), {
      timeoutMs: 20_000,
      description: 'the reaper to stop the components and remove the directory',
    });
    rmSync(logDir, { recursive: true, force: true });
  });
});
