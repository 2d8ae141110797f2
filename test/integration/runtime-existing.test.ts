// The `existing` runtime against the real local control plane: Nodes registered by virtual kubelets are
// adopted as servers (by name, with their InternalIP and role), the cluster CIDR comes from the Nodes'
// podCIDRs, logs are node summaries from the API, and down() leaves the cluster alone.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExec } from '../../sandbox/exec.ts';
import { VirtualKubelet } from '../../sandbox/kubelet/virtual-kubelet.ts';
import { DryRunCloud } from '../../sandbox/runtimes/dry-run-fakes.ts';
import { createExistingRuntime } from '../../sandbox/runtimes/existing.ts';
import type { RuntimeContext } from '../../sandbox/runtimes/runtime.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { sharedControlPlane, uniqueName, type TestCluster } from '../helpers/control-plane.ts';

describe('existing runtime', () => {
  let cluster: TestCluster;
  let dir: string;
  const kubelets: VirtualKubelet[] = [];
  const cp = uniqueName('exist-cp');
  const worker = uniqueName('exist-w');
  const progress: string[] = [];
  const cloud = new DryRunCloud();
  const ctx = (): RuntimeContext => ({
    exec: createExec(),
    cloud,
    stateDir: dir,
    name: 'existing-test',
    workers: 0,
    cloudEndpoint: 'http://127.0.0.1:1',
    progress: (m) => progress.push(m),
    kubeconfig: cluster.kubeconfigPath,
  });

  beforeAll(async () => {
    cluster = await sharedControlPlane();
    dir = mkdtempSync(join(tmpdir(), 'ccm-existing-'));
    kubelets.push(
      new VirtualKubelet({ kubeConfig: cluster.kubeConfig, nodeName: cp, nodeIP: '127.10.7.10', labels: { 'node-role.kubernetes.io/control-plane': '' } }),
      new VirtualKubelet({ kubeConfig: cluster.kubeConfig, nodeName: worker, nodeIP: '127.10.7.11' }),
    );
    for (const k of kubelets) await k.start();
    // kube-controller-manager's node-ipam controller gives each new Node a podCIDR.
    await waitFor(
      async () => {
        const nodes = await Promise.all([cp, worker].map((name) => cluster.core.readNode({ name })));
        return nodes.every((n) => (n.spec?.podCIDRs ?? []).length > 0);
      },
      { timeoutMs: 30_000, description: 'podCIDRs on the test nodes' },
    );
  });

  afterAll(async () => {
    for (const k of kubelets) k.close();
    for (const name of [cp, worker]) await cluster.core.deleteNode({ name }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('is available with a kubeconfig whose API answers, and says why not otherwise', async () => {
    const runtime = createExistingRuntime();
    expect(await runtime.available({ exec: createExec(), kubeconfig: cluster.kubeconfigPath })).toEqual({ ok: true });
    const missing = await runtime.available({ exec: createExec(), kubeconfig: join(dir, 'nope') });
    expect(missing.ok).toBe(false);
    expect(missing.reason).toContain('does not exist');
    const dead = join(dir, 'dead-kubeconfig');
    writeFileSync(dead, readFileSync(cluster.kubeconfigPath, 'utf8').replace(/server: https:\/\/[^\s]+/, 'server: https://127.0.0.1:1'));
    const unreachable = await createExistingRuntime({ probeTimeoutMs: 5000 }).available({ exec: createExec(), kubeconfig: dead });
    expect(unreachable.ok).toBe(false);
    expect(unreachable.reason).toContain('/version');
  });

  it('up() adopts one server per Node with its InternalIP and role; the cluster CIDR holds every podCIDR', async () => {
    const info = await createExistingRuntime().up(ctx());
    expect(info.kubeconfigPath).toBe(cluster.kubeconfigPath);
    expect(cloud.registered.find((m) => m.name === cp)).toEqual({ name: cp, role: 'control-plane', privateIPv4: '127.10.7.10' });
    expect(cloud.registered.find((m) => m.name === worker)).toEqual({ name: worker, role: 'worker', privateIPv4: '127.10.7.11' });
    expect(info.machines.map((m) => m.name)).toEqual(expect.arrayContaining([cp, worker]));
    const supernet = ipaddr.parseCIDR(info.clusterCidr);
    for (const name of [cp, worker]) {
      for (const cidr of (await cluster.core.readNode({ name })).spec?.podCIDRs ?? [])
        expect(ipaddr.parse(cidr.split('/')[0] ?? '').match(supernet)).toBe(true);
    }
  });

  it('up() twice registers the same servers (adoption by name is idempotent)', async () => {
    const before = (await createExistingRuntime().up(ctx())).machines.find((m) => m.name === worker);
    const after = (await createExistingRuntime().up(ctx())).machines.find((m) => m.name === worker);
    expect(after?.id).toBe(before?.id);
  });

  it('an explicit cluster CIDR wins', async () => {
    expect((await createExistingRuntime({ clusterCidr: '10.123.0.0/16' }).up(ctx())).clusterCidr).toBe('10.123.0.0/16');
  });

  it('collectLogs writes a describe-like summary per node; down() leaves the cluster as it is', async () => {
    const runtime = createExistingRuntime();
    const logs = join(dir, 'logs');
    await runtime.collectLogs(ctx(), logs);
    const text = readFileSync(join(logs, 'nodes', `${worker}.txt`), 'utf8');
    expect(text).toContain(`Name:         ${worker}`);
    expect(text).toContain('node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule');
    await runtime.down(ctx());
    expect(progress.at(-1)).toContain('left as it is');
    expect((await cluster.core.readNode({ name: worker })).metadata?.name).toBe(worker);
  });
});
