// Runnable images on the real control plane: a pod whose image the table maps to a local binary runs as a real
// process (our own small program, test/integration/fixtures/in-cluster-probe.ts), with the pod spec's command
// line, environment (values, Secret and ConfigMap keys, the downward API, envFrom) and volumes at their absolute
// paths in a mount namespace of its own; its service-account token works against the apiserver with exactly
// the RBAC the test grants; its readiness probe makes it Ready; a crashing one is in CrashLoopBackOff with its
// exit code; deleting the pod stops the process. The kubelet serves its API on 127.0.0.1, and the apiserver's
// egress proxy maps the Node's addresses (set as a CCM would, RFC 1918 and public ones too) to it, so the real
// `kubectl logs` reads what the process printed through the real apiserver (--tail, --timestamps, -f,
// --previous), `kubectl exec` fails at once with one line, and a pod IP is refused before it is dialled. Needs
// root and unshare (a mount namespace); skipped without.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'node:https';
import { PatchStrategy, RbacAuthorizationV1Api, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { KUBELET_CLIENT_CN, type PemPair } from '../../sandbox/control-plane/pki.ts';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { createExec } from '../../sandbox/exec.ts';
import { ContainerRuntime, mountNamespaceAvailable } from '../../sandbox/kubelet/containers/runtime.ts';
import { runnableEntries } from '../../sandbox/kubelet/images/runnable.ts';
import { kubeletApiFactory, type KubeletApi } from '../../sandbox/kubelet/kubelet-api.ts';
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
  let api: KubeletApi;
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
    const nodeName = uniqueName('run-image');
    api = kubeletApiFactory({
      ca: cluster.controlPlane.pki.ca,
      core: cluster.core,
      apiServerUser: KUBELET_CLIENT_CN,
      containers: runtime,
      directory: cluster.controlPlane.egress.kubelets,
    })(nodeName, '127.0.0.1');
    kubelet = new VirtualKubelet({ kubeConfig: cluster.kubeConfig, nodeName, nodeIP: '192.0.2.77', renewIntervalMs: 1000, api });
    runner = new PodRunner({ kubeConfig: cluster.kubeConfig, kubeletRunning: (name) => name === kubelet.nodeName, containers: runtime });
    runner.start();
    await kubelet.start();
    // The CCM's part: the Node's addresses; the apiserver dials the InternalIP first, which its egress proxy maps to the kubelet.
    await cluster.core.patchNodeStatus(
      {
        name: nodeName,
        body: {
          status: {
            addresses: [
              { type: 'InternalIP', address: '192.0.2.77' },
              { type: 'ExternalIP', address: '127.0.0.1' },
            ],
          },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
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

  /** The real kubectl (on PATH) as the admin; a hang fails the test through the timeout. */
  const kubectl = (args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile('kubectl', ['--kubeconfig', cluster.kubeconfigPath, '-n', namespace, ...args], { timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) || 1 : 0, stdout, stderr }),
      );
    });

  /** A GET to the kubelet API directly, with `client`'s certificate (or none). */
  const kubeletGet = (path: string, client?: PemPair): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: api.port, path, ca: cluster.controlPlane.pki.ca.cert, ...(client ? { cert: client.cert, key: client.key } : {}) },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });

  // A pod of one container, `talk`, of the runnable image with these arguments.
  const runningPod = (name: string, args: string[]): Promise<V1Pod> =>
    cluster.core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name },
        spec: {
          nodeName: kubelet.nodeName,
          serviceAccountName: 'probe',
          terminationGracePeriodSeconds: 5,
          containers: [{ name: 'talk', image: `${IMAGE}:v1.0`, args }],
        },
      },
    });
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
    await runningPod(name, ['--say=crashing', '--exit=3']);
    const backingOff = (p: V1Pod): V1Pod | undefined => (p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff' ? p : undefined);
    const pod = await waitFor(async () => backingOff(await readPod(name)), {
      timeoutMs: 60_000,
      intervalMs: 250,
      description: 'the crashing pod in CrashLoopBackOff',
    });
    expect(pod.status).toMatchObject({ phase: 'Running', containerStatuses: [{ ready: false, lastState: { terminated: { exitCode: 3, reason: 'Error' } } }] });
    expect(ready(pod)).toBe(false);
    // Backing off, its log is the run that crashed.
    expect(await kubectl(['logs', name])).toMatchObject({ code: 0, stdout: 'crashing\n' });
    // Started again after the back-off: the file holds both runs, --previous the one before the last alone.
    await waitFor(async () => ((await readPod(name)).status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1 || undefined, {
      timeoutMs: 60_000,
      intervalMs: 250,
      description: 'the crashing container restarted',
    });
    await waitFor(() => readFileSync(join(dir, 'logs', `${namespace}_${name}_talk.log`), 'utf8') === 'crashing\ncrashing\n' || undefined, {
      timeoutMs: 30_000,
      description: 'the second run in the log file',
    });
    expect(await kubectl(['logs', name, '--previous'])).toMatchObject({ code: 0, stdout: 'crashing\n' });
  });

  it('serves the log through the apiserver: kubectl logs, --tail, --timestamps, and -f until the pod is deleted', async () => {
    showLogs();
    const port = await freePort();
    const name = uniqueName('talk');
    const created = Date.now();
    await runningPod(name, ['--say=one,two,three', `--port=${port}`]);
    await waitFor(async () => ready(await readPod(name)) || undefined, { timeoutMs: 60_000, intervalMs: 250, description: 'the talking pod Ready' });
    expect(await kubectl(['logs', name])).toMatchObject({ code: 0, stdout: 'one\ntwo\nthree\n' });
    expect(await kubectl(['logs', name, '--tail=1'])).toMatchObject({ code: 0, stdout: 'three\n' });
    expect(await kubectl(['logs', name, '--limit-bytes=6'])).toMatchObject({ code: 0, stdout: 'one\ntw' });
    const stamped = (await kubectl(['logs', name, '--timestamps'])).stdout.split('\n').filter(Boolean);
    expect(stamped.map((l) => l.replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z /, ''))).toEqual(['one', 'two', 'three']);
    // The times the lines were written: during this test (the clock's second, as RFC 3339 may drop the fraction).
    const written = Date.parse(stamped[0]!.split(' ')[0]!);
    expect(written).toBeGreaterThanOrEqual(created - 1000);
    expect(written).toBeLessThanOrEqual(Date.now());
    const previous = await kubectl(['logs', name, '--previous']);
    expect(previous.code).toBe(1);
    expect(previous.stderr).toContain('previous terminated container "talk" in pod');

    const follow = spawn('kubectl', ['--kubeconfig', cluster.kubeconfigPath, '-n', namespace, 'logs', '-f', name]);
    let followed = '';
    follow.stdout.on('data', (c: Buffer) => (followed += c.toString()));
    const exited = new Promise<number | null>((resolve) => follow.on('exit', resolve));
    onTestFailed(() => void follow.kill());
    await waitFor(() => followed.endsWith('three\n') || undefined, { timeoutMs: 30_000, description: 'kubectl logs -f printing the log' });
    await fetch(`http://127.0.0.1:${port}/say?text=four`);
    await waitFor(() => followed.endsWith('four\n') || undefined, { timeoutMs: 30_000, description: 'a new line followed' });
    await cluster.core.deleteNamespacedPod({ name, namespace });
    expect(await exited).toBe(0);
    expect(followed).toBe('one\ntwo\nthree\nfour\n');
  });

  it('refuses kubectl exec with one clear line, and every client but the apiserver', async () => {
    const name = uniqueName('exec');
    await runningPod(name, ['--say=hi', `--port=${await freePort()}`]);
    await waitFor(async () => ready(await readPod(name)) || undefined, { timeoutMs: 60_000, intervalMs: 250, description: 'the pod Ready' });
    const exec = await kubectl(['exec', name, '--', 'true']);
    expect(exec.code).not.toBe(0);
    // kubectl prints "error: Internal error occurred: unable to upgrade connection: exec is not supported by ...".
    expect(exec.stderr.trim().split('\n')).toEqual([expect.stringContaining('exec is not supported by the virtual kubelet')]);
    const path = `/containerLogs/${namespace}/${name}/talk`;
    expect(await kubeletGet(path)).toEqual({ status: 401, body: 'Unauthorized' });
    expect(await kubeletGet(path, cluster.controlPlane.pki.admin)).toEqual({
      status: 403,
      body: 'Forbidden (user=ccm-sandbox-admin, verb=get, resource=nodes, subresource=proxy)',
    });
    expect(await kubeletGet(path, cluster.controlPlane.pki.kubeletClient)).toEqual({ status: 200, body: 'hi\n' });
    expect((await kubeletGet(`/exec/${namespace}/${name}/talk?command=true`, cluster.controlPlane.pki.kubeletClient)).status).toBe(501);
    await cluster.core.deleteNamespacedPod({ name, namespace });
  });

  it('maps any address a CCM gives the Node to its kubelet on loopback, and refuses a pod IP before dialling it', async () => {
    showLogs();
    const name = uniqueName('egress');
    await runningPod(name, ['--say=mapped', `--port=${await freePort()}`]);
    await waitFor(async () => ready(await readPod(name)) || undefined, { timeoutMs: 60_000, intervalMs: 250, description: 'the pod Ready' });
    const setAddresses = (addresses: { type: string; address: string }[]): Promise<unknown> =>
      cluster.core.patchNodeStatus({ name: kubelet.nodeName, body: { status: { addresses } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    // A CCM's view of the machine: an RFC 1918 InternalIP and a public ExternalIP, neither of which may be dialled.
    await setAddresses([
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'ExternalIP', address: '203.0.113.7' },
    ]);
    try {
      const refusedBefore = cluster.controlPlane.egress.counts.refused;
      expect(await kubectl(['logs', name])).toMatchObject({ code: 0, stdout: 'mapped\n' });
      const podIP = (await readPod(name)).status?.podIP ?? '';
      expect(podIP).toMatch(/^10\.244\./);
      const proxied = await kubectl(['get', '--raw', `/api/v1/namespaces/${namespace}/pods/${name}:80/proxy/`]);
      expect(proxied.code).not.toBe(0);
      expect(proxied.stderr).toContain(`ccm-sandbox dials loopback only (127.0.0.0/8, ::1): ${podIP}:80 is not a loopback address`);
      expect(cluster.controlPlane.egress.counts.refused).toBeGreaterThan(refusedBefore);
      // The proxy's record: the kubelet's RFC 1918 address dialled as its loopback one; the pod IP refused, never dialled.
      const records = readFileSync(join(cluster.controlPlane.dir, 'logs', 'egress-proxy.log'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { msg: string; target: string; dial?: string; node?: string });
      expect(records).toContainEqual(
        expect.objectContaining({ msg: 'egress dial', target: `10.0.0.5:${api.port}`, node: kubelet.nodeName, dial: `127.0.0.1:${api.port}` }),
      );
      const podDials = records.filter((r) => r.target === `${podIP}:80` || r.dial?.startsWith(`${podIP}:`));
      expect(podDials.length).toBeGreaterThan(0);
      expect(podDials.every((r) => r.msg === 'egress refused')).toBe(true);
      expect(records.some((r) => [r.target, r.dial].some((a) => a?.startsWith('203.0.113.7:')) && r.msg === 'egress dial')).toBe(false);
    } finally {
      await setAddresses([
        { type: 'InternalIP', address: '192.0.2.77' },
        { type: 'ExternalIP', address: '127.0.0.1' },
      ]);
      await cluster.core.deleteNamespacedPod({ name, namespace });
    }
  });

  it('serves the log again after its kubelet restarts, and not while it is down', async () => {
    const name = uniqueName('restart');
    await runningPod(name, ['--say=still here', `--port=${await freePort()}`]);
    await waitFor(async () => ready(await readPod(name)) || undefined, { timeoutMs: 60_000, intervalMs: 250, description: 'the pod Ready' });
    kubelet.stop();
    await waitFor(async () => (await kubectl(['logs', name])).code !== 0 || undefined, { timeoutMs: 30_000, description: 'the kubelet API down' });
    await kubelet.resume();
    expect(await kubectl(['logs', name])).toMatchObject({ code: 0, stdout: 'still here\n' });
    const node = await cluster.core.readNode({ name: kubelet.nodeName });
    expect(node.status?.daemonEndpoints?.kubeletEndpoint?.Port).toBe(api.port);
    await cluster.core.deleteNamespacedPod({ name, namespace });
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
    // No process, so nothing written: an empty log, as a kubelet gives for a container that printed nothing.
    expect(await kubectl(['logs', name])).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});
