import type { V1Node } from '@kubernetes/client-node';
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeCloud } from '../../cloud/fake-cloud.ts';
import { FakeClock } from '../../kube/clock.ts';
import { apiError } from '../../kube/errors.ts';
import { MemoryEventRecorder } from '../../kube/events.ts';
import { MemoryKube } from '../../kube/memory-kube.ts';
import { noopControllerMetrics } from '../../kube/metrics.ts';
import { TaintKey } from '../../kube/taints.ts';
import { syncNode, updateNodeStatusFor, type NodeSyncDeps } from './sync.ts';

const logger = pino({ level: 'silent' });

/** A logger at -v=2 (debug) whose lines the test reads. */
function captureLogs(): { logger: pino.Logger; lines: () => Array<{ level: number; msg: string }> } {
  const out: string[] = [];
  const captured = pino({ level: 'debug' }, { write: (line: string) => void out.push(line) });
  return { logger: captured, lines: () => out.map((l) => JSON.parse(l) as { level: number; msg: string }) };
}

function node(
  name: string,
  extra: { providerID?: string; annotations?: Record<string, string>; labels?: Record<string, string>; tainted?: boolean } = {},
): V1Node {
  return {
    metadata: {
      name,
      uid: `uid-${name}`,
      annotations: extra.annotations,
      labels: extra.labels ?? { 'kubernetes.io/hostname': name },
      creationTimestamp: new Date(1_700_000_000_000),
    },
    spec: {
      providerID: extra.providerID,
      taints:
        extra.tainted === false
          ? []
          : [
              { key: TaintKey.Uninitialized, value: 'true', effect: 'NoSchedule' },
              { key: 'other', effect: 'NoSchedule' },
            ],
    },
    status: { addresses: [{ type: 'Hostname', address: name }] },
  };
}

describe('cloud-node-controller syncNode', () => {
  let kube: MemoryKube;
  let cloud: FakeCloud;
  let recorder: MemoryEventRecorder;
  let deps: NodeSyncDeps;

  beforeEach(() => {
    kube = new MemoryKube();
    cloud = new FakeCloud();
    recorder = new MemoryEventRecorder();
    deps = { nodes: kube.nodes, kube, instances: cloud, recorder, clock: new FakeClock(), logger, metrics: noopControllerMetrics, random: () => 0 };
  });

  it('initialises a tainted node: providerID, labels, taint removed, then addresses', async () => {
    kube.addNode(node('n1'));
    cloud.setInstance('n1', {
      providerID: 'fake://srv-1',
      instanceType: 'small',
      zone: 'zone-a',
      region: 'region-1',
      addresses: [
        { type: 'InternalIP', address: '10.0.0.5' },
        { type: 'ExternalIP', address: '203.0.113.5' },
      ],
      additionalLabels: { 'example.com/pool': 'blue', 'node.kubernetes.io/evil': 'x' },
    });
    await syncNode(deps, 'n1');
    const n = kube.node('n1')!;
    expect(n.spec?.providerID).toBe('fake://srv-1');
    expect(n.spec?.taints).toEqual([{ key: 'other', effect: 'NoSchedule' }]);
    expect(n.metadata?.labels).toMatchObject({
      'node.kubernetes.io/instance-type': 'small',
      'beta.kubernetes.io/instance-type': 'small',
      'topology.kubernetes.io/zone': 'zone-a',
      'failure-domain.beta.kubernetes.io/zone': 'zone-a',
      'topology.kubernetes.io/region': 'region-1',
      'failure-domain.beta.kubernetes.io/region': 'region-1',
      'example.com/pool': 'blue',
    });
    expect(n.metadata?.labels).not.toHaveProperty('node.kubernetes.io/evil');
    // the kubelet's Hostname is kept because the cloud reported none
    expect(n.status?.addresses).toEqual([
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'ExternalIP', address: '203.0.113.5' },
      { type: 'Hostname', address: 'n1' },
    ]);
    expect(kube.writes).toEqual(['updateNode n1', 'replaceNodeAddresses n1']);
    expect(recorder.lines()).toEqual(['Normal Synced Node synced successfully']);
  });

  it('never overwrites an existing providerID', async () => {
    kube.addNode(node('n1', { providerID: 'fake://mine' }));
    cloud.setInstance('n1', { providerID: 'fake://other' });
    await syncNode(deps, 'n1');
    expect(kube.node('n1')?.spec?.providerID).toBe('fake://mine');
    expect(kube.node('n1')?.spec?.taints?.map((t) => t.key)).toEqual(['other']);
  });

  it('keeps the node tainted when neither cloud nor node has a providerID', async () => {
    kube.addNode(node('n1'));
    cloud.setInstance('n1', { providerID: '' });
    await expect(syncNode(deps, 'n1')).rejects.toThrow('cloud provider does not set node provider ID for node n1');
    expect(kube.node('n1')?.spec?.taints?.map((t) => t.key)).toContain(TaintKey.Uninitialized);
  });

  it('treats nil metadata as silent success without touching the node', async () => {
    kube.addNode(node('n1'));
    cloud.nilMetadata = true;
    await syncNode(deps, 'n1');
    expect(kube.writes).toEqual([]);
  });

  it('keeps the node tainted with an error when the instance is not found', async () => {
    kube.addNode(node('n1'));
    cloud.setInstance('n1', { exists: false });
    await expect(syncNode(deps, 'n1')).rejects.toThrow('failed to get instance metadata for node n1: instance not found');
    expect(kube.writes).toEqual([]);
  });

  it('blocks initialisation when the provided node IP matches no cloud address', async () => {
    kube.addNode(node('n1', { annotations: { 'alpha.kubernetes.io/provided-node-ip': '10.9.9.9' } }));
    cloud.setInstance('n1', { addresses: [{ type: 'InternalIP', address: '10.0.0.5' }] });
    await expect(syncNode(deps, 'n1')).rejects.toThrow(
      'failed to get node modifiers from cloud provider: provided node ip for node "n1" is not valid: failed to get node address from cloud provider that matches ip: 10.9.9.9',
    );
    expect(kube.node('n1')?.spec?.taints?.map((t) => t.key)).toContain(TaintKey.Uninitialized);
    expect(kube.writes).toEqual([]);
    expect(recorder.lines()).toEqual([
      'Warning InvalidProvidedNodeIP provided node ip for node "n1" is not valid: failed to get node address from cloud provider that matches ip: 10.9.9.9',
    ]);
  });

  it('filters addresses by the provided node IP', async () => {
    kube.addNode(node('n1', { annotations: { 'alpha.kubernetes.io/provided-node-ip': '10.0.0.2' } }));
    cloud.setInstance('n1', {
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'InternalIP', address: '10.0.0.2' },
        { type: 'ExternalIP', address: '1.2.3.4' },
        { type: 'Hostname', address: 'h' },
      ],
    });
    await syncNode(deps, 'n1');
    expect(kube.node('n1')?.status?.addresses).toEqual([
      { type: 'InternalIP', address: '10.0.0.2' },
      { type: 'ExternalIP', address: '1.2.3.4' },
      { type: 'Hostname', address: 'h' },
    ]);
  });

  it('retries the PUT on a conflict and still removes the taint', async () => {
    kube.addNode(node('n1'));
    cloud.setInstance('n1', {});
    kube.failures.set('updateNode', apiError(409, 'conflict'));
    const clock = deps.clock as FakeClock;
    const done = syncNode(deps, 'n1');
    await clock.advance(100);
    await done;
    expect(kube.node('n1')?.spec?.taints?.map((t) => t.key)).toEqual(['other']);
  });

  it('does not overwrite an existing label with an additional label', async () => {
    kube.addNode(node('n1', { labels: { pool: 'red' } }));
    cloud.setInstance('n1', { additionalLabels: { pool: 'blue' } });
    await syncNode(deps, 'n1');
    expect(kube.node('n1')?.metadata?.labels?.pool).toBe('red');
  });

  it('reconciles beta labels onto GA labels on initialised nodes only', async () => {
    kube.addNode(node('n1', { tainted: false, labels: { 'failure-domain.beta.kubernetes.io/zone': 'z1', 'topology.kubernetes.io/zone': 'z0' } }));
    await syncNode(deps, 'n1');
    expect(kube.node('n1')?.metadata?.labels?.['topology.kubernetes.io/zone']).toBe('z1');
    expect(cloud.calls).toEqual([]);
  });

  it('periodic status update refreshes addresses of initialised nodes and skips tainted ones', async () => {
    kube.addNode(node('n1', { tainted: false, providerID: 'fake://1' }));
    kube.addNode(node('n2'));
    cloud.setInstance('n1', { addresses: [{ type: 'InternalIP', address: '10.0.0.7' }] });
    cloud.setInstance('n2', { addresses: [{ type: 'InternalIP', address: '10.0.0.8' }] });
    for (const n of kube.nodes.list()) await updateNodeStatusFor(deps, n);
    expect(kube.node('n1')?.status?.addresses).toEqual([
      { type: 'InternalIP', address: '10.0.0.7' },
      { type: 'Hostname', address: 'n1' },
    ]);
    expect(kube.node('n2')?.status?.addresses).toEqual([{ type: 'Hostname', address: 'n2' }]);
  });

  it('logs nothing at -v=2 for an initialised node whose addresses are unchanged, and keeps them', async () => {
    const { logger: debugLogger, lines } = captureLogs();
    const addresses = [
      { type: 'InternalIP', address: '10.0.0.7' },
      { type: 'Hostname', address: 'n1' },
    ];
    kube.addNode({ ...node('n1', { tainted: false, providerID: 'fake://1' }), status: { addresses } });
    cloud.setInstance('n1', { addresses: [{ type: 'InternalIP', address: '10.0.0.7' }] });
    await updateNodeStatusFor({ ...deps, logger: debugLogger }, kube.node('n1')!);
    expect(kube.node('n1')?.status?.addresses).toEqual(addresses);
    expect(lines()).toEqual([]);
  });

  it('logs an error when the provided node IP matches no cloud address on a status pass, and keeps the addresses', async () => {
    const { logger: debugLogger, lines } = captureLogs();
    kube.addNode(node('n1', { tainted: false, providerID: 'fake://1', annotations: { 'alpha.kubernetes.io/provided-node-ip': '10.9.9.9' } }));
    cloud.setInstance('n1', { addresses: [{ type: 'InternalIP', address: '10.0.0.7' }] });
    await updateNodeStatusFor({ ...deps, logger: debugLogger }, kube.node('n1')!);
    expect(kube.node('n1')?.status?.addresses).toEqual([{ type: 'Hostname', address: 'n1' }]);
    const [line, ...others] = lines();
    expect(others).toEqual([]);
    expect(line?.level).toBe(50);
    expect(line?.msg).toMatch(/^Failed to update node addresses for node "n1": .*10\.9\.9\.9/);
  });

  it('sends the controller name and node as caller', async () => {
    kube.addNode(node('n1'));
    cloud.setInstance('n1', {});
    await syncNode(deps, 'n1');
    expect(cloud.callers).toEqual(['cloud-node-controller n1']);
  });
});
