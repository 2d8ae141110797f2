import type { V1Node, V1Service } from '@kubernetes/client-node';
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { findRetryError, ImplementedElsewhereError, RetryError } from '../../cloud/errors.ts';
import { FakeCloud } from '../../cloud/fake-cloud.ts';
import { FakeClock } from '../../kube/clock.ts';
import { MemoryEventRecorder } from '../../kube/events.ts';
import { MemoryKube } from '../../kube/memory-kube.ts';
import { processItem } from '../../kube/run.ts';
import { ServiceController } from './controller.ts';
import { LoadBalancerCleanupFinalizer } from './needs-update.ts';

const logger = pino({ level: 'silent' });
const finalizer = LoadBalancerCleanupFinalizer;

function svc(name: string, extra: Partial<V1Service['spec']> = {}, meta: Partial<V1Service['metadata']> = {}): V1Service {
  return {
    metadata: { name, namespace: 'default', uid: `0000-${name}-uid`, ...meta },
    spec: { type: 'LoadBalancer', ports: [{ name: 'http', port: 80, nodePort: 30080, protocol: 'TCP' }], ...extra },
  };
}

function node(name: string, labels: Record<string, string> = {}): V1Node {
  return { metadata: { name, labels }, spec: { providerID: `fake://${name}` } };
}

describe('service-lb-controller syncService', () => {
  let kube: MemoryKube;
  let cloud: FakeCloud;
  let recorder: MemoryEventRecorder;
  let clock: FakeClock;
  let controller: ServiceController;

  const make = (loadBalancerClass?: string): ServiceController =>
    new ServiceController({
      services: kube.services,
      nodes: kube.nodes,
      kube,
      balancer: cloud,
      recorder,
      logger,
      clusterName: 'kubernetes',
      clock,
      loadBalancerClass,
    });

  beforeEach(() => {
    kube = new MemoryKube();
    cloud = new FakeCloud();
    recorder = new MemoryEventRecorder();
    clock = new FakeClock();
    controller = make();
    kube.addNode(node('b'));
    kube.addNode(node('a'));
  });

  it('adds the finalizer, ensures the LB with the stable node set and writes the status', async () => {
    kube.addService(svc('web'));
    await controller.syncService('default/web');
    const s = kube.service('default/web')!;
    expect(s.metadata?.finalizers).toEqual([finalizer]);
    expect(s.status?.loadBalancer?.ingress?.[0]?.ip).toBe('192.0.2.10');
    expect([...cloud.balancers.values()].map((b) => b.hosts)).toEqual([['a', 'b']]);
    expect(recorder.reasons()).toEqual(['EnsuringLoadBalancer', 'EnsuredLoadBalancer']);
    expect(cloud.callers).toEqual(['service-lb-controller default/web']);
  });

  it('does not patch the status when it is unchanged', async () => {
    kube.addService(svc('web'));
    await controller.syncService('default/web');
    const writes = kube.writes.length;
    await controller.syncService('default/web');
    expect(kube.writes.length).toBe(writes);
  });

  it('deletes in order: LB, finalizer, event, status; the object then goes away', async () => {
    kube.addService(svc('web'));
    await controller.syncService('default/web');
    const s = kube.service('default/web')!;
    kube.services.upsert({ ...s, metadata: { ...s.metadata, deletionTimestamp: new Date() } });
    await controller.syncService('default/web');
    expect(cloud.balancers.size).toBe(0);
    expect(kube.service('default/web')).toBeUndefined();
    expect(recorder.reasons().slice(2)).toEqual(['DeletingLoadBalancer', 'DeletedLoadBalancer']);
    expect(cloud.calls.slice(1)).toEqual(['get', 'delete']);
  });

  it('does not call EnsureLoadBalancerDeleted when nothing exists, but still removes the finalizer', async () => {
    kube.addService(svc('web', { type: 'ClusterIP' }, { finalizers: [finalizer] }));
    await controller.syncService('default/web');
    expect(cloud.calls).toEqual(['get']);
    expect(kube.service('default/web')?.metadata?.finalizers).toEqual([]);
    expect(recorder.reasons()).toEqual(['DeletedLoadBalancer']);
  });

  it('keeps the finalizer when GetLoadBalancer fails', async () => {
    kube.addService(svc('web', { type: 'ClusterIP' }, { finalizers: [finalizer] }));
    cloud.lbErr = new Error('boom');
    await expect(controller.syncService('default/web')).rejects.toThrow('failed to check if load balancer exists before cleanup: boom');
    expect(kube.service('default/web')?.metadata?.finalizers).toEqual([finalizer]);
    expect(recorder.lines()).toEqual([
      'Warning SyncLoadBalancerFailed Error syncing load balancer: failed to check if load balancer exists before cleanup: boom',
    ]);
  });

  it('ImplementedElsewhere adds the finalizer but skips the status and the Ensured event', async () => {
    kube.addService(svc('web'));
    cloud.ensureErr = new ImplementedElsewhereError();
    await controller.syncService('default/web');
    expect(kube.service('default/web')?.metadata?.finalizers).toEqual([finalizer]);
    expect(kube.service('default/web')?.status).toBeUndefined();
    expect(recorder.reasons()).toEqual(['EnsuringLoadBalancer']);
  });

  it('requeues after exactly the RetryError delay, not with backoff', async () => {
    kube.addService(svc('web'));
    cloud.ensureErr = new RetryError('not ready yet', 7_000);
    const queue = controller.serviceQueue;
    queue.add('default/web');
    const key = (await queue.get())!;
    const result = await processItem(
      { controller: 'svc', queue, sync: (k) => controller.syncService(k), clock, logger, retryAfterMs: (e) => findRetryError(e)?.retryAfterMs },
      key,
    );
    expect(result).toBe('retry');
    expect(queue.len()).toBe(0);
    await clock.advance(6_999);
    expect(queue.len()).toBe(0);
    await clock.advance(1);
    expect(queue.len()).toBe(1);
  });

  it('warns when no node is available and still calls the cloud', async () => {
    kube.nodes.remove('a');
    kube.nodes.upsert(node('b', { 'node.kubernetes.io/exclude-from-external-load-balancers': 'false' }));
    kube.addService(svc('web'));
    await controller.syncService('default/web');
    expect(recorder.reasons()).toContain('UnAvailableLoadBalancer');
    expect(cloud.calls).toEqual(['create']);
  });

  it('ignores Services with a class when no class is configured', async () => {
    kube.addService(svc('other', { loadBalancerClass: 'example.com/lb' }));
    expect(controller.serviceQueue.len()).toBe(0);
    await controller.syncService('default/other');
    expect(cloud.calls).toEqual([]);
    expect(kube.service('default/other')?.metadata?.finalizers).toBeUndefined();
  });

  it('with --load-balancer-class serves exactly that class', async () => {
    controller = make('simcloud.dev/lb');
    kube.addService(svc('mine', { loadBalancerClass: 'simcloud.dev/lb' }));
    kube.addService(svc('plain'));
    expect(controller.serviceQueue.len()).toBe(1);
    await controller.syncService('default/mine');
    await controller.syncService('default/plain');
    expect(kube.service('default/mine')?.metadata?.finalizers).toEqual([finalizer]);
    expect(kube.service('default/plain')?.metadata?.finalizers).toBeUndefined();
    expect(cloud.balancers.size).toBe(1);
  });

  it('node changes call UpdateLoadBalancer (never Ensure) only when the set changes', async () => {
    kube.addService(svc('web'));
    await controller.syncService('default/web');
    await controller.syncNodes();
    expect(cloud.calls).toEqual(['create']);
    kube.addNode(node('c'));
    await controller.syncNodes();
    expect(cloud.calls).toEqual(['create', 'update']);
    expect([...cloud.balancers.values()][0]?.hosts).toEqual(['a', 'b', 'c']);
    kube.nodes.upsert(node('c', { 'node.kubernetes.io/exclude-from-external-load-balancers': '' }));
    await controller.syncNodes();
    expect([...cloud.balancers.values()][0]?.hosts).toEqual(['a', 'b']);
    expect(recorder.reasons().filter((r) => r === 'UpdatedLoadBalancer')).toHaveLength(2);
  });

  it('Services synced against the same nodes share one remembered node set, and a changed set replaces it', async () => {
    kube.addService(svc('one'));
    kube.addService(svc('two'));
    await controller.syncService('default/one');
    // A status-only change gives the node a new object: still the same set for the LB.
    kube.nodes.upsert({ ...kube.node('a')!, status: { conditions: [{ type: 'Ready', status: 'False' }] } });
    await controller.syncService('default/two');
    const remembered = controller.deps.state.lastSyncedNodes;
    expect(remembered.get('default/two')).toBe(remembered.get('default/one'));
    kube.addNode(node('c'));
    await controller.syncNodes();
    expect(remembered.get('default/one')).toBe(remembered.get('default/two'));
    expect(remembered.get('default/one')?.map((n) => n.metadata?.name)).toEqual(['a', 'b', 'c']);
    expect(cloud.calls).toEqual(['create', 'create', 'update', 'update']);
  });

  it('a failed host update with the LB still present is retried through the service queue', async () => {
    kube.addService(svc('web'));
    await controller.syncService('default/web');
    cloud.updateErr = new Error('nope');
    kube.addNode(node('c'));
    while (controller.nodeQueue.len() > 0) controller.nodeQueue.done((await controller.nodeQueue.get())!);
    await controller.syncNodes();
    expect(recorder.lines().at(-1)).toBe(
      'Warning UpdateLoadBalancerFailed Error updating load balancer with new hosts [a b c] [node names limited, total number of nodes: 3], error: nope',
    );
    expect(controller.serviceQueue.len()).toBe(1);
  });

  it('readiness changes do not enqueue a node sync', () => {
    const n = kube.node('a')!;
    while (controller.nodeQueue.len() > 0) void controller.nodeQueue.get();
    const before = controller.nodeQueue.len();
    kube.nodes.upsert({ ...n, status: { conditions: [{ type: 'Ready', status: 'False' }] } });
    expect(controller.nodeQueue.len()).toBe(before);
  });

  it('the legacy path deletes the LB of a Service that vanished without a finalizer', async () => {
    kube.addService(svc('web'));
    await controller.syncService('default/web');
    kube.services.remove('default/web');
    await controller.syncService('default/web');
    expect(cloud.balancers.size).toBe(0);
    expect(recorder.reasons().slice(-2)).toEqual(['DeletingLoadBalancer', 'DeletedLoadBalancer']);
  });
});
