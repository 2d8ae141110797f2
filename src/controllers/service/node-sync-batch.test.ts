// The node-sync batching deviation (benchmark S6, docs/performance.md): nodes joining until a quiet batch window, and until
// they are initialised, cost one UpdateLoadBalancer per LB; nodeSyncBatchMs 0 keeps upstream's
// pass-at-once behaviour.
import type { V1Node, V1Service } from '@kubernetes/client-node';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FakeCloud } from '../../cloud/fake-cloud.ts';
import { FakeClock } from '../../kube/clock.ts';
import { MemoryEventRecorder } from '../../kube/events.ts';
import { MemoryKube } from '../../kube/memory-kube.ts';
import { TaintKey } from '../../kube/taints.ts';
import { ServiceController } from './controller.ts';

const logger = pino({ level: 'silent' });
const lb = (name: string): V1Service => ({
  metadata: { name, namespace: 'default', uid: `u-${name}` },
  spec: { type: 'LoadBalancer', ports: [{ port: 80, nodePort: 30080 }] },
});

interface JoinOptions {
  readonly batchMs: number;
  /** Time between two registrations. */
  readonly spacingMs?: number;
  /** Nodes register with the uninitialized taint; the node controller initialises each this long after. */
  readonly initialiseAfterMs?: number;
}

const registering = (name: string, tainted: boolean): V1Node => ({
  metadata: { name },
  spec: tainted ? { taints: [{ key: TaintKey.Uninitialized, value: 'true', effect: 'NoSchedule' }] } : {},
});

/** What the node controller does: providerID set and taint removed in one write. */
async function initialise(kube: MemoryKube, name: string): Promise<void> {
  const node = kube.node(name);
  if (!node) throw new Error(`no node ${name}`);
  await kube.updateNode({ ...node, spec: { ...node.spec, providerID: `simcloud://${name}`, taints: [] } });
}

/** Three nodes join a cluster with two LB Services; returns the UpdateLoadBalancer calls they caused. */
async function joinThree(o: JoinOptions): Promise<number> {
  const kube = new MemoryKube();
  const cloud = new FakeCloud();
  const clock = new FakeClock();
  const controller = new ServiceController({
    services: kube.services,
    nodes: kube.nodes,
    kube,
    balancer: cloud,
    recorder: new MemoryEventRecorder(),
    logger,
    clusterName: 'k',
    clock,
    nodeSyncBatchMs: o.batchMs,
  });
  const ac = new AbortController();
  kube.addNode({ metadata: { name: 'n0' }, spec: { providerID: 'simcloud://n0' } });
  kube.addService(lb('a'));
  kube.addService(lb('b'));
  const running = controller.run(ac.signal);
  await clock.advance(2000);
  const before = cloud.calls.filter((c) => c === 'update').length;
  const joining = ['n1', 'n2', 'n3'];
  const tainted = o.initialiseAfterMs !== undefined;
  for (const n of joining) {
    kube.addNode(registering(n, tainted));
    await clock.advance(o.spacingMs ?? 200);
  }
  if (o.initialiseAfterMs !== undefined && Number.isFinite(o.initialiseAfterMs)) {
    await clock.advance(o.initialiseAfterMs);
    for (const n of joining) await initialise(kube, n);
  }
  await clock.advance(8000);
  ac.abort();
  await running;
  return cloud.calls.filter((c) => c === 'update').length - before;
}

describe('service-lb-controller node sync batching', () => {
  it('updates each LB once for nodes joining within the batch window', async () => {
    expect(await joinThree({ batchMs: 1000 })).toBe(2);
  });

  it('keeps batching while nodes keep arriving (one every 0.8 s)', async () => {
    expect(await joinThree({ batchMs: 1000, spacingMs: 800 })).toBe(2);
  });

  it('waits for joining nodes to be initialised, so registration and providerID cost one update per LB', async () => {
    expect(await joinThree({ batchMs: 1000, initialiseAfterMs: 2500 })).toBe(2);
  });

  it('does not wait past the cap for a node that is never initialised', async () => {
    expect(await joinThree({ batchMs: 1000, initialiseAfterMs: Number.POSITIVE_INFINITY })).toBe(2);
  });

  it('with nodeSyncBatchMs 0 (upstream) a pass starts per arrival and again per providerID', async () => {
    expect(await joinThree({ batchMs: 0 })).toBeGreaterThan(2);
    expect(await joinThree({ batchMs: 0, initialiseAfterMs: 2500 })).toBeGreaterThan(4);
  });
});
