import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  clusterDeployment,
  deletionOrder,
  deploymentStatus,
  Machine,
  MachineDeployment,
  machinePhase,
  machineStatus,
  newMachine,
  nodeOf,
  planScale,
  SERVER_ID_ANNOTATION,
  serverOf,
  type MachineServer,
  type MachineView,
} from './machines.ts';

const md = (replicas: number, deletePolicy?: 'Newest' | 'Oldest'): MachineDeployment => {
  const raw = clusterDeployment('demo', 'default', replicas) as { spec: Record<string, unknown> };
  const spec = deletePolicy ? { ...raw.spec, strategy: { rollingUpdate: { deletePolicy } } } : raw.spec;
  return MachineDeployment.parse({ ...raw, metadata: { name: 'demo', namespace: 'default', uid: 'u1', generation: 3 }, spec });
};

function machine(name: string, created: string, o: { serverId?: string; deleting?: boolean } = {}): Machine {
  const base = newMachine(md(1), name, o.serverId) as { metadata: Record<string, unknown> };
  return Machine.parse({ ...base, metadata: { ...base.metadata, creationTimestamp: created, ...(o.deleting ? { deletionTimestamp: created } : {}) } });
}

const server = (id: string, name: string, status = 'running'): MachineServer => ({ id, name, status, public_ipv4: '127.0.64.2', private_ipv4: '127.10.0.2' });
const node = (name: string, ready: boolean, providerID?: string): V1Node => ({
  metadata: { name, uid: `uid-${name}` },
  spec: providerID ? { providerID } : {},
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const view = (m: Machine, s?: MachineServer, n?: V1Node): MachineView => ({ machine: m, server: s, node: n });

describe('Cluster API machines', () => {
  it('makes the cluster deployment with a selector its template labels match, and Machines owned by it with the finalizer', () => {
    const d = md(2);
    expect(d.spec.selector.matchLabels).toEqual(d.spec.template.metadata.labels);
    const m = newMachine(d, 'demo-worker-3') as { metadata: { labels: Record<string, string>; finalizers: string[]; ownerReferences: { uid: string }[] } };
    expect(m.metadata.labels).toMatchObject(d.spec.selector.matchLabels);
    expect(m.metadata.finalizers).toEqual(['machine.cluster.x-k8s.io']);
    expect(m.metadata.ownerReferences[0]?.uid).toBe('u1');
  });

  it("finds a Machine's server by the id it recorded, even after a rename, and by name before that", () => {
    const servers = [server('7', 'demo-worker-1-renamed'), server('8', 'demo-worker-2')];
    expect(serverOf(machine('demo-worker-1', 't', { serverId: '7' }), servers)?.id).toBe('7');
    expect(serverOf(machine('demo-worker-2', 't'), servers)?.id).toBe('8');
    expect(serverOf(machine('demo-worker-9', 't', { serverId: '9' }), servers)).toBeUndefined();
  });

  it('finds the Node by providerID first, then by name', () => {
    const m = Machine.parse({ ...machine('demo-worker-1', 't'), spec: { clusterName: 'demo', providerID: 'linode://7' } });
    expect(nodeOf(m, [node('other', true, 'linode://7'), node('demo-worker-1', true)])?.metadata?.name).toBe('other');
    expect(nodeOf(machine('demo-worker-1', 't'), [node('demo-worker-1', true)])?.metadata?.name).toBe('demo-worker-1');
  });

  it.each([
    ['no server yet', view(machine('a', 't')), 'Provisioning'],
    ['server booting', view(machine('a', 't'), server('1', 'a', 'starting')), 'Provisioning'],
    ['server running, no Node', view(machine('a', 't'), server('1', 'a')), 'Provisioned'],
    ['Node registered', view(machine('a', 't'), server('1', 'a'), node('a', false)), 'Running'],
    ['being deleted', view(machine('a', 't', { deleting: true }), server('1', 'a'), node('a', true)), 'Deleting'],
    ['server gone under it', view(machine('a', 't', { serverId: '1' }), undefined, node('a', false)), 'Failed'],
  ])('reports the phase of a Machine with %s', (_, v, phase) => {
    expect(machinePhase(v)).toBe(phase);
  });

  it("reports a running Machine's nodeRef and addresses, and why a failed one failed", () => {
    expect(machineStatus(view(machine('a', 't'), server('1', 'a'), node('a', true)))).toEqual({
      phase: 'Running',
      bootstrapReady: true,
      infrastructureReady: true,
      addresses: [
        { type: 'InternalIP', address: '127.10.0.2' },
        { type: 'ExternalIP', address: '127.0.64.2' },
      ],
      nodeRef: { apiVersion: 'v1', kind: 'Node', name: 'a', uid: 'uid-a' },
    });
    expect(machineStatus(view(machine('a', 't', { serverId: '1' })))).toMatchObject({ phase: 'Failed', failureMessage: 'server 1 is gone from the cloud' });
  });

  it('plans the missing Machines on a scale-up and nothing when the count is right', () => {
    const views = [view(machine('a', '1'), server('1', 'a'))];
    expect(planScale(md(3), views)).toEqual({ create: 2, remove: [] });
    expect(planScale(md(1), views)).toEqual({ create: 0, remove: [] });
    // A Machine being deleted does not count: its replacement is made at once.
    expect(planScale(md(1), [view(machine('a', '1', { deleting: true }))])).toEqual({ create: 1, remove: [] });
  });

  it('removes the newest Machines on a scale-down by default, the oldest with deletePolicy Oldest', () => {
    const views = ['2026-01-01T00:00:01Z', '2026-01-01T00:00:03Z', '2026-01-01T00:00:02Z'].map((t, i) =>
      view(machine(`demo-worker-${i + 1}`, t), server(`${i}`, `demo-worker-${i + 1}`), node(`demo-worker-${i + 1}`, true)),
    );
    const names = (d: MachineDeployment): string[] => planScale(d, views).remove.map((m) => m.metadata.name);
    expect(names(md(1))).toEqual(['demo-worker-2', 'demo-worker-3']);
    expect(names(md(2, 'Oldest'))).toEqual(['demo-worker-1']);
  });

  it('removes a failed Machine, then one without a Node, before any healthy one', () => {
    const healthy = view(machine('demo-worker-3', '3'), server('3', 'demo-worker-3'), node('demo-worker-3', true));
    const noNode = view(machine('demo-worker-1', '1'), server('1', 'demo-worker-1'));
    const failed = view(machine('demo-worker-2', '2', { serverId: '2' }));
    expect(deletionOrder([healthy, noNode, failed], 'Newest').map((m) => m.metadata.name)).toEqual(['demo-worker-2', 'demo-worker-1', 'demo-worker-3']);
  });

  it('orders Machines made in the same second by the number in their name', () => {
    const views = ['demo-worker-9', 'demo-worker-10'].map((n) => view(machine(n, 'same'), undefined, node(n, true)));
    expect(deletionOrder(views, 'Newest').map((m) => m.metadata.name)).toEqual(['demo-worker-10', 'demo-worker-9']);
  });

  it('reports ScalingUp until every wanted replica is ready, ScalingDown while surplus Machines exist, then Running', () => {
    const ready = (n: string): MachineView => view(machine(n, n), server(n, n), node(n, true));
    const d3 = md(3);
    expect(deploymentStatus(d3, [ready('a'), ready('b'), view(machine('c', 'c'))])).toEqual({
      selector: 'cluster.x-k8s.io/cluster-name=demo,cluster.x-k8s.io/deployment-name=demo',
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 2,
      availableReplicas: 2,
      unavailableReplicas: 1,
      observedGeneration: 3,
      phase: 'ScalingUp',
    });
    expect(deploymentStatus(md(2), [ready('a'), ready('b'), view(machine('c', 'c', { deleting: true }), server('c', 'c'))])).toMatchObject({
      replicas: 3,
      readyReplicas: 2,
      phase: 'ScalingDown',
    });
    expect(deploymentStatus(md(2), [ready('a'), ready('b')])).toMatchObject({ replicas: 2, readyReplicas: 2, unavailableReplicas: 0, phase: 'Running' });
  });

  it("keeps the server id annotation on an adopted worker's Machine", () => {
    const m = newMachine(md(1), 'demo-worker-1', '42') as { metadata: { annotations: Record<string, string> } };
    expect(m.metadata.annotations[SERVER_ID_ANNOTATION]).toBe('42');
  });
});
