// The node-sync batching deviation (issue 7, S6): nodes joining until a quiet batch window cost one
// UpdateLoadBalancer per LB; nodeSyncBatchMs 0 keeps upstream's pass-at-once behaviour.
import type { V1Service } from '@kubernetes/client-node';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FakeCloud } from '../../cloud/fake-cloud.ts';
import { FakeClock } from '../../kube/clock.ts';
import { MemoryEventRecorder } from '../../kube/events.ts';
import { MemoryKube } from '../../kube/memory-kube.ts';
import { ServiceController } from './controller.ts';

const logger = pino({ level: 'silent' });
const lb = (name: string): V1Service => ({ metadata: { name, namespace: 'default', uid: `u-${name}` }, spec: { type: 'LoadBalancer', ports: [{ port: 80, nodePort: 30080 }] } });

async function joinThree(batchMs: number, spacingMs = 200): Promise<number> {
  const kube = new MemoryKube();
  const cloud = new FakeCloud();
  const clock = new FakeClock();
  const controller = new ServiceController({ services: kube.services, nodes: kube.nodes, kube, balancer: cloud, recorder: new MemoryEventRecorder(), logger, clusterName: 'k', clock, nodeSyncBatchMs: batchMs });
  const ac = new AbortController();
  kube.addNode({ metadata: { name: 'n0' }, spec: {} });
  kube.addService(lb('a'));
  kube.addService(lb('b'));
  const running = controller.run(ac.signal);
  await clock.advance(2000);
  const before = cloud.calls.filter((c) => c === 'update').length;
  for (const n of ['n1', 'n2', 'n3']) {
    kube.addNode({ metadata: { name: n }, spec: {} });
    await clock.advance(spacingMs);
  }
  await clock.advance(5000);
  ac.abort();
  await running;
  return cloud.calls.filter((c) => c === 'update').length - before;
}

describe('service-lb-controller node sync batching', () => {
  it('updates each LB once for nodes joining within the batch window', async () => {
    expect(await joinThree(1000)).toBe(2);
  });

  it('keeps batching while nodes keep arriving (one every 0.8 s)', async () => {
    expect(await joinThree(1000, 800)).toBe(2);
  });

  it('with nodeSyncBatchMs 0 (upstream) a pass starts per arrival', async () => {
    expect(await joinThree(0)).toBeGreaterThan(2);
  });
});
