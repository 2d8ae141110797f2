// Controller wiring: handlers → queues → workers → sync, and periodic loops, on the injected clock.
import type { V1Node, V1Service } from '@kubernetes/client-node';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FakeCloud } from '../cloud/fake-cloud.ts';
import { FakeClock, flushMicrotasks } from '../kube/clock.ts';
import { MemoryEventRecorder } from '../kube/events.ts';
import { MemoryKube } from '../kube/memory-kube.ts';
import { TaintKey } from '../kube/taints.ts';
import { CloudNodeLifecycleController } from './node-lifecycle/controller.ts';
import { CloudNodeController } from './node/controller.ts';
import { RouteController } from './route/controller.ts';
import { ServiceController } from './service/controller.ts';

const logger = pino({ level: 'silent' });
const tainted = (name: string): V1Node => ({
  metadata: { name, uid: `uid-${name}` },
  spec: { podCIDRs: ['10.244.1.0/24'], taints: [{ key: TaintKey.Uninitialized, value: 'true', effect: 'NoSchedule' }] },
  status: { conditions: [{ type: 'Ready', status: 'False' }] },
});
const lbService: V1Service = {
  metadata: { name: 'web', namespace: 'default', uid: 'u-web' },
  spec: { type: 'LoadBalancer', ports: [{ port: 80, nodePort: 30080 }] },
};

describe('controller wiring', () => {
  it('cloud-node-controller initialises a node added while running and refreshes addresses every 5 min', async () => {
    const kube = new MemoryKube();
    const cloud = new FakeCloud();
    const clock = new FakeClock();
    cloud.setInstance('n1', { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] });
    const controller = new CloudNodeController({ nodes: kube.nodes, kube, instances: cloud, recorder: new MemoryEventRecorder(), logger, clock });
    const ac = new AbortController();
    const running = controller.run(ac.signal);
    kube.addNode(tainted('n1'));
    await flushMicrotasks();
    expect(kube.node('n1')?.spec?.taints).toEqual([]);
    cloud.setInstance('n1', { addresses: [{ type: 'InternalIP', address: '10.0.0.2' }] });
    await clock.advance(5 * 60_000);
    expect(kube.node('n1')?.status?.addresses).toEqual([{ type: 'InternalIP', address: '10.0.0.2' }]);
    ac.abort();
    await clock.advance(5 * 60_000);
    await running;
  });

  it('service-lb-controller ensures on add and deletes through the finalizer', async () => {
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
      clusterName: 'kubernetes',
      clock,
    });
    const ac = new AbortController();
    const running = controller.run(ac.signal);
    kube.addNode({ metadata: { name: 'n1' }, spec: {} });
    kube.addService(lbService);
    await flushMicrotasks();
    expect(cloud.balancers.size).toBe(1);
    const current = kube.service('default/web')!;
    kube.services.upsert({ ...current, metadata: { ...current.metadata, deletionTimestamp: new Date() } });
    await flushMicrotasks();
    expect(cloud.balancers.size).toBe(0);
    expect(kube.service('default/web')).toBeUndefined();
    ac.abort();
    await running;
  });

  it('node-lifecycle and route controllers run on their periods (5 s sliding, 10 s non-sliding)', async () => {
    const kube = new MemoryKube();
    const cloud = new FakeCloud();
    const clock = new FakeClock();
    kube.addNode(tainted('n1'));
    const lifecycle = new CloudNodeLifecycleController({ nodes: kube.nodes, kube, instances: cloud, recorder: new MemoryEventRecorder(), logger, clock });
    const route = new RouteController({
      nodes: kube.nodes,
      kube,
      routes: cloud,
      recorder: new MemoryEventRecorder(),
      logger,
      clock,
      clusterName: 'c',
      clusterCIDRs: '10.244.0.0/16',
    });
    const ac = new AbortController();
    const runs = [lifecycle.run(ac.signal), route.run(ac.signal)];
    await flushMicrotasks();
    expect(cloud.calls.filter((c) => c === 'instance-exists')).toHaveLength(1);
    expect(cloud.routeMap.size).toBe(1);
    await clock.advance(10_000);
    expect(cloud.calls.filter((c) => c === 'instance-exists')).toHaveLength(3);
    expect(cloud.calls.filter((c) => c === 'list-routes')).toHaveLength(2);
    ac.abort();
    await clock.advance(10_000);
    await Promise.all(runs);
  });
});
