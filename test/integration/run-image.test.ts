// Runnable images on the real control plane: a pod whose image the table maps to a local binary runs as a real
// process (our own small program, test/integration/fixtures/in-cluster-probe.ts), with the pod spec's command
// line, environment (values, Secret and ConfigMap keys, the downward API, envFrom) and volumes at their absolute
// paths in a mount namespace of its own; its service-account token works against the apiserver with exactly
// the RBAC the test grants; its readiness probe makes it Ready; a crashing one is in CrashLoopBackOff with its
// exit code; deleting the pod stops the process. Needs root and unshare (a mount namespace); skipped without.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RbacAuthorizationV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { createExec } from '../../sandbox/exec.ts';
import { ContainerRuntime, mountNamespaceAvailable } from '../../sandbox/kubelet/containers/runtime.ts';
import { runnableEntries } from '../../sandbox/kubelet/images/runnable.ts';
import { PodRunner } from '../../sandbox/kubelet/pod-runner.ts';
import { VirtualKubelet } from '../../sandbox/kubelet/virtual-kubelet.ts';
import { freePort } from '../../sandbox/ports.ts';
import { processAlive } from '../../sandbox/state.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { sharedControlPlane, uniqueName, type TestCluster } from '../helpers/control-plane.ts';

const PROBE = fileURLToPath(new URL('./fixtures/in-cluster-probe.ts', import.meta.url));
const IMAGE = 'example.test/in-cluster-probe';
const exec = createExec();
const isolated = await mountNamespaceAvailable(exec);

interface Report {
  pid: number;
  argv: string[];
  env: Record<string, string>;
  files: Record<string, { content?: string; mode?: string; error?: string }>;
  namespace: string;
  api: { configmaps: number; nodes: number };
}

describe.skipIf(!isolated)('runnable images on virtual kubelets', () => {
  let cluster: TestCluster;
  let runner: PodRunner;
  let runtime: ContainerRuntime;
  let kubelet: VirtualKubelet;
  let dir: string;
  const namespace = uniqueName('run-image');

  beforeAll(async () => {
    cluster = await sharedControlPlane();
    dir = mkdtempSync(join(tmpdir(), 'run-image-'));
    // The "image": a wrapper that runs the probe program with this Node (the container has only the image's PATH).
    const binary = join(dir, 'in-cluster-probe');
    writeFileSync(binary, `#!/bin/sh\nexec '${process.execPath}' '${PROBE}' "$@"\n`, { mode: 0o755 });
    const server = new URL(cluster.kubeConfig.getCurrentCluster()?.server ?? '');
    runtime = new ContainerRuntime({
      exec,
      images: runnableEntries([{ repository: IMAGE, tag: 'v1.*', binary }]),
      podsDir: join(dir, 'pods'),
      logsDir: join(dir, 'logs'),
      core: cluster.core,
      apiServer: { host: server.hostname, port: server.port },
      networkEnv: () => ({ HTTPS_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1' }),
      onChange: (key) => runner.podChanged(key),
    });
    kubelet = new VirtualKubelet({ kubeConfig: cluster.kubeConfig, nodeName: uniqueName('run-image'), nodeIP: '192.0.2.77', renewIntervalMs: 1000 });
    runner = new PodRunner({ kubeConfig: cluster.kubeConfig, kubeletRunning: (name) => name === kubelet.nodeName, containers: runtime });
    runner.start();
    await kubelet.start();
    await cluster.core.createNamespace({ body: { metadata: { name: namespace } } });
    await cluster.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'probe' } } });
    // The manifest's own RBAC: list ConfigMaps in its namespace, nothing else.
    const rbac = cluster.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace,
      body: { metadata: { name: 'probe' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] },
    });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: 'probe' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'probe' },
        subjects: [{ kind: 'ServiceAccount', name: 'probe', namespace }],
      },
    });
    await cluster.core.createNamespacedSecret({ namespace, body: { metadata: { name: 'probe' }, stringData: { token: 's3cret' } } });
    await cluster.core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'probe' }, data: { greeting: 'hello', region: 'sim-1' } } });
  });

  afterAll(async () => {
    runner.close();
    kubelet.close();
    await runtime.stopAll(0);
    await cluster.core.deleteNamespace({ name: namespace }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  // A failure shows what the processes printed.
  const showLogs = (): void =>
    onTestFailed(() => {
      for (const f of existsSync(join(dir, 'logs')) ? readdirSync(join(dir, 'logs')) : [])
        console.error(`--- ${f}\n${readFileSync(join(dir, 'logs', f), 'utf8')}`);
    });

  const readPod = (name: string): Promise<V1Pod> => cluster.core.readNamespacedPod({ name, namespace });
  const ready = (p: V1Pod): boolean => p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';

  it('runs the container as the binary with its env, files and token, Ready by its probe, and stops it on deletion', async () => {
    showLogs();
    const port = await freePort();
    const name = uniqueName('probe');
    const files = ['/etc/ccm-sandbox-probe/secret/api-token', '/etc/ccm-sandbox-probe/config/greeting', '/var/run/secrets/kubernetes.io/serviceaccount/token'];
    await cluster.core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name, labels: { app: 'probe' } },
        spec: {
          nodeName: kubelet.nodeName,
          serviceAccountName: 'probe',
          terminationGracePeriodSeconds: 5,
          containers: [
            {
              name: 'probe',
              image: `${IMAGE}:v1.2`,
              args: ['--port=$(PORT)', `--files=${files.join(',')}`],
              env: [
                { name: 'PORT', value: String(port) },
                { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 'probe', key: 'token' } } },
                { name: 'FROM_CONFIG', valueFrom: { configMapKeyRef: { name: 'probe', key: 'greeting' } } },
                { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                { name: 'EXPANDED', value: '$(FROM_CONFIG), world' },
              ],
              envFrom: [{ prefix: 'CM_', configMapRef: { name: 'probe' } }],
              readinessProbe: { httpGet: { path: '/healthz', port }, periodSeconds: 1 },
              volumeMounts: [
                { name: 'token', mountPath: '/etc/ccm-sandbox-probe/secret', readOnly: true },
                { name: 'config', mountPath: '/etc/ccm-sandbox-probe/config' },
              ],
            },
          ],
          volumes: [
            { name: 'token', secret: { secretName: 'probe', items: [{ key: 'token', path: 'api-token' }] } },
            { name: 'config', configMap: { name: 'probe' } },
          ],
        },
      },
    });
    const pod = await waitFor(async () => ((p) => (ready(p) ? p : undefined))(await readPod(name)), {
      timeoutMs: 60_000,
      intervalMs: 250,
      description: 'the probe pod Ready',
    });
    expect(pod.status?.phase).toBe('Running');
    expect(pod.status?.containerStatuses?.[0]?.state?.running).toBeDefined();
    const report = (await (await fetch(`http://127.0.0.1:${port}/report`)).json()) as Report;
    expect(report.argv).toEqual([`--port=${port}`, `--files=${files.join(',')}`]);
    expect(report.env).toMatchObject({
      FROM_SECRET: 's3cret',
      FROM_CONFIG: 'hello',
      POD_NAME: name,
      EXPANDED: 'hello, world',
      CM_greeting: 'hello',
      CM_region: 'sim-1',
      HTTPS_PROXY: 'http://127.0.0.1:9',
      KUBERNETES_SERVICE_HOST: '127.0.0.1',
    });
    // Nothing of the daemon's own environment reaches the container.
    expect(Object.keys(report.env).filter((k) => k.startsWith('VITEST'))).toEqual([]);
    expect(report.files[files[0]!]).toEqual({ content: 's3cret', mode: '600' });
    expect(report.files[files[1]!]).toEqual({ content: 'hello', mode: '644' });
    expect(report.files[files[2]!]?.mode).toBe('600');
    expect(report.namespace).toBe(namespace);
    // The pod's own token, with the Role the test granted: ConfigMaps yes, Nodes no.
    expect(report.api).toEqual({ configmaps: 200, nodes: 403 });
    // The mount paths exist for the process alone.
    expect(existsSync('/etc/ccm-sandbox-probe')).toBe(false);
    expect(existsSync('/var/run/secrets/kubernetes.io')).toBe(false);
    expect(processAlive(report.pid)).toBe(true);

    await cluster.core.deleteNamespacedPod({ name, namespace });
    await waitFor(
      async () => ((await cluster.core.listNamespacedPod({ namespace, fieldSelector: `metadata.name=${name}` })).items.length === 0 ? true : undefined),
      {
        timeoutMs: 30_000,
        intervalMs: 250,
        description: 'the probe pod gone',
      },
    );
    expect(processAlive(report.pid)).toBe(false);
  });

  it('reports a container that exits as CrashLoopBackOff with its exit code, and restarts it', async () => {
    showLogs();
    const name = uniqueName('crash');
    await cluster.core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name },
        spec: { nodeName: kubelet.nodeName, serviceAccountName: 'probe', containers: [{ name: 'crash', image: `${IMAGE}:v1.0`, args: ['--exit=3'] }] },
      },
    });
    const backingOff = (p: V1Pod): V1Pod | undefined => (p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff' ? p : undefined);
    const pod = await waitFor(async () => backingOff(await readPod(name)), {
      timeoutMs: 60_000,
      intervalMs: 250,
      description: 'the crashing pod in CrashLoopBackOff',
    });
    expect(pod.status).toMatchObject({ phase: 'Running', containerStatuses: [{ ready: false, lastState: { terminated: { exitCode: 3, reason: 'Error' } } }] });
    expect(ready(pod)).toBe(false);
  });

  it('simulates a container whose image is not runnable, or whose tag the entry does not cover', async () => {
    const name = uniqueName('other-tag');
    await cluster.core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name },
        spec: { nodeName: kubelet.nodeName, serviceAccountName: 'probe', containers: [{ name: 'x', image: `${IMAGE}:v2.0`, args: ['--exit=3'] }] },
      },
    });
    const pod = await waitFor(async () => ((p) => (ready(p) ? p : undefined))(await readPod(name)), {
      timeoutMs: 30_000,
      intervalMs: 250,
      description: 'the simulated pod Ready',
    });
    expect(pod.status?.containerStatuses?.[0]?.containerID).toMatch(/^virtual:\/\//);
  });
});
