// The local runtime's workers as Cluster API machines, against the real control plane and simcloud: the
// sandbox's MachineDeployment (named after the cluster) has a Machine per worker; raising its replicas makes
// a server whose kubelet registers a Node the CCM initialises; lowering them deletes the newest Machine, its
// server and its Node, and nothing else is left behind. Bad input is refused by the CRD's schema. A new
// machine's kubelet serves its API on its Node's ExternalIP, so `kubectl logs` of a pod there answers.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { CoreV1Api } from '@kubernetes/client-node';
import { ApiException, CustomObjectsApi, PatchStrategy, setHeaderOptions, type V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPI_GROUP, CAPI_VERSION, PLURALS } from '../../sandbox/capi/crds.ts';
import { Machine, MachineDeployment, SERVER_ID_ANNOTATION } from '../../sandbox/capi/machines.ts';
import { SANDBOX_LABELS } from '../../sandbox/cloud/sandbox-cloud.ts';
import { UNINITIALIZED_TAINT } from '../../sandbox/kubelet/node-object.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { readyOf, startE2eSandbox, type E2eSandbox } from '../helpers/sandbox.ts';

const NAME = 'capi';
const NAMESPACE = 'default';
const execFileAsync = promisify(execFile);
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

// The sandbox's cloud (SANDBOX_CLOUD, simcloud by default), and Linode, whose machines are made and deleted
// through its persona's API (/v4), as for Linode's own e2e suite.
const CLOUD_RUNS = [
  { label: 'the sandbox cloud' },
  ...(process.env.SANDBOX_CLOUD === undefined ? [{ label: 'linode', cloud: 'linode', ccm: { kind: 'upstream' } } as const] : []),
];

describe.each(CLOUD_RUNS)('Cluster API machines on the local runtime, $label', ({ label: _, ...run }) => {
  let sbx: E2eSandbox;
  let custom: CustomObjectsApi;
  let core: CoreV1Api;
  const md = { group: CAPI_GROUP, version: CAPI_VERSION, plural: PLURALS.machineDeployment, namespace: NAMESPACE, name: NAME };
  const machinesApi = { group: CAPI_GROUP, version: CAPI_VERSION, plural: PLURALS.machine, namespace: NAMESPACE };

  const deployment = async (): Promise<MachineDeployment & { status?: Record<string, unknown> }> =>
    MachineDeployment.parse(await custom.getNamespacedCustomObject(md));
  const machines = async (): Promise<Machine[]> =>
    ((await custom.listNamespacedCustomObject(machinesApi)) as { items: unknown[] }).items.map((m) => Machine.parse(m));
  const scale = (replicas: number): Promise<unknown> => custom.patchNamespacedCustomObject({ ...md, body: { spec: { replicas } } }, merge);
  const servers = async (): Promise<{ id: string; name: string }[]> =>
    sbx.sandbox.client.servers.listAll({ label_selector: `${SANDBOX_LABELS.cluster}=${NAME}` });
  const initialised = (n: V1Node | undefined): boolean => readyOf(n) === 'True' && !(n?.spec?.taints ?? []).some((t) => t.key === UNINITIALIZED_TAINT);

  /** Waits until the deployment reports `replicas` ready Machines, each Running with a Ready, initialised Node. */
  async function settled(replicas: number): Promise<{ machines: Machine[]; nodes: V1Node[] }> {
    return waitFor(
      async () => {
        const [d, ms, nodes] = await Promise.all([deployment(), machines(), core.listNode().then((l) => l.items)]);
        const byName = new Map(nodes.map((n) => [n.metadata?.name ?? '', n]));
        const running = ms.filter((m) => {
          const ref = (m.status?.nodeRef as { name?: string } | undefined)?.name;
          return m.status?.phase === 'Running' && ref !== undefined && initialised(byName.get(ref)) && m.spec.providerID === byName.get(ref)?.spec?.providerID;
        });
        const s = d.status ?? {};
        const done = ms.length === replicas && running.length === replicas && s.readyReplicas === replicas && s.replicas === replicas && s.phase === 'Running';
        return done && s.observedGeneration === d.metadata.generation ? { machines: ms, nodes } : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500, description: `MachineDeployment ${NAME} at ${replicas} ready machines with initialised Nodes` },
    );
  }

  beforeAll(async () => {
    sbx = await startE2eSandbox({ name: NAME, workers: 2, ...run });
    custom = sbx.kubeConfig.makeApiClient(CustomObjectsApi);
    core = sbx.core;
  });
  afterAll(async () => sbx?.stop());

  it('makes a MachineDeployment named after the cluster with a Machine, providerID and nodeRef for each worker', async () => {
    const { machines: ms } = await settled(2);
    expect(ms.map((m) => m.metadata.name).sort()).toEqual([`${NAME}-worker-1`, `${NAME}-worker-2`]);
    const d = await deployment();
    expect(d.spec).toMatchObject({ clusterName: NAME, replicas: 2 });
    expect(d.status).toMatchObject({ availableReplicas: 2, updatedReplicas: 2, unavailableReplicas: 0 });
  });

  it.each([
    [{ replicas: -1 }, 'spec.replicas'],
    [{ replicas: 'three' }, 'spec.replicas'],
    [{ clusterName: 'other' }, 'clusterName is immutable'],
    [{ strategy: { rollingUpdate: { deletePolicy: 'Random' } } }, 'spec.strategy.rollingUpdate.deletePolicy'],
  ])('refuses the spec change %j with a message naming %s', async (spec, field) => {
    const err: unknown = await custom.patchNamespacedCustomObject({ ...md, body: { spec } }, merge).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiException);
    expect((err as ApiException<unknown>).code).toBe(422);
    expect(String((err as ApiException<unknown>).body)).toContain(field);
  });

  it('makes a new worker on a replicas increase: its server in the cloud, its Node Ready and initialised by the CCM', async () => {
    await scale(3);
    const { machines: ms } = await settled(3);
    const added = ms.find((m) => m.metadata.name === `${NAME}-worker-3`);
    expect(added?.metadata.annotations[SERVER_ID_ANNOTATION]).toBeDefined();
    expect((await servers()).map((s) => s.id)).toContain(added?.metadata.annotations[SERVER_ID_ANNOTATION]);
    const events = await core.listNamespacedEvent({ namespace: NAMESPACE, fieldSelector: `involvedObject.name=${NAME}` });
    expect(events.items.map((e) => `${e.reason ?? ''} ${e.message ?? ''}`)).toContain(`SuccessfulCreate Created machine "${NAME}-worker-3"`);

    // Its kubelet's API, at the ExternalIP the CCM set and the port the kubelet posted: the apiserver reaches it
    // (its certificate verified), and a simulated container's log is empty.
    const node = await core.readNode({ name: `${NAME}-worker-3` });
    expect(node.status?.daemonEndpoints?.kubeletEndpoint?.Port).not.toBe(10250);
    expect(node.status?.addresses?.find((a) => a.type === 'ExternalIP')?.address).toMatch(/^127\./);
    const pod = `logs-${Date.now().toString(36)}`;
    await core.createNamespacedPod({
      namespace: NAMESPACE,
      body: { metadata: { name: pod }, spec: { nodeName: `${NAME}-worker-3`, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } },
    });
    const logs = (): Promise<{ stdout: string; stderr: string }> =>
      execFileAsync('kubectl', ['--kubeconfig', sbx.sandbox.cluster?.kubeconfigPath ?? '', '-n', NAMESPACE, 'logs', pod], { timeout: 60_000 });
    const out = await waitFor(() => logs().catch(() => undefined), { timeoutMs: 60_000, intervalMs: 500, description: `kubectl logs ${pod}` });
    expect(out).toMatchObject({ stdout: '', stderr: '' });
    await core.deleteNamespacedPod({ name: pod, namespace: NAMESPACE, gracePeriodSeconds: 0 });
  });

  it('deletes the newest machine on a decrease: its server, its Node and its Machine are gone, nothing else', async () => {
    const before = await machines();
    const newest = before.find((m) => m.metadata.name === `${NAME}-worker-3`);
    const serverId = newest?.metadata.annotations[SERVER_ID_ANNOTATION];
    await scale(2);
    const { machines: ms, nodes } = await settled(2);
    expect(ms.map((m) => m.metadata.name).sort()).toEqual([`${NAME}-worker-1`, `${NAME}-worker-2`]);
    await waitFor(async () => !(await servers()).some((s) => s.id === serverId), { timeoutMs: 30_000, description: `server ${serverId ?? ''} deleted` });
    expect(nodes.map((n) => n.metadata?.name)).not.toContain(`${NAME}-worker-3`);
    // The control plane and the two workers: no server or Node left over.
    expect((await servers()).map((s) => s.name).sort()).toEqual([`${NAME}-control-plane`, `${NAME}-worker-1`, `${NAME}-worker-2`]);
    expect((await core.listNode()).items).toHaveLength(3);
    const events = await core.listNamespacedEvent({ namespace: NAMESPACE, fieldSelector: `involvedObject.name=${NAME}` });
    expect(events.items.map((e) => `${e.reason ?? ''} ${e.message ?? ''}`)).toContain(`SuccessfulDelete Deleted machine "${NAME}-worker-3"`);
  });
});
