import type { V1Node } from '@kubernetes/client-node';
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeCloud } from '../../cloud/fake-cloud.ts';
import { FakeClock } from '../../kube/clock.ts';
import { MemoryEventRecorder } from '../../kube/events.ts';
import { MemoryKube } from '../../kube/memory-kube.ts';
import { RouteController } from './controller.ts';

const logger = pino({ level: 'silent' });

function node(name: string, podCIDRs: string[] = []): V1Node {
  return { metadata: { name, uid: `uid-${name}` }, spec: { podCIDRs }, status: { addresses: [{ type: 'InternalIP', address: `10.0.0.${name.length}` }] } };
}

describe('node-route-controller reconcile', () => {
  let kube: MemoryKube;
  let cloud: FakeCloud;
  let recorder: MemoryEventRecorder;
  let controller: RouteController;

  beforeEach(() => {
    kube = new MemoryKube();
    cloud = new FakeCloud();
    recorder = new MemoryEventRecorder();
    controller = new RouteController({
      nodes: kube.nodes,
      kube,
      routes: cloud,
      recorder,
      logger,
      clusterName: 'c1',
      clusterCIDRs: '10.244.0.0/16',
      clock: new FakeClock(),
    });
  });

  const routeSet = (): string[] => [...cloud.routeMap.values()].map((r) => `${r.route.targetNode} ${r.route.destinationCIDR}`).sort();

  it('creates routes for nodes with podCIDRs and sets NetworkUnavailable=False/RouteCreated', async () => {
    kube.addNode(node('n1', ['10.244.1.0/24']));
    kube.addNode(node('n2'));
    await controller.reconcile();
    expect(routeSet()).toEqual(['n1 10.244.1.0/24']);
    const cond = kube.node('n1')?.status?.conditions?.find((c) => c.type === 'NetworkUnavailable');
    expect(cond).toMatchObject({ status: 'False', reason: 'RouteCreated', message: 'RouteController created a route' });
    expect(kube.node('n2')?.status?.conditions).toBeUndefined();
  });

  it('writes the condition only when it changes', async () => {
    kube.addNode(node('n1', ['10.244.1.0/24']));
    await controller.reconcile();
    await controller.reconcile();
    expect(kube.writes.filter((w) => w.startsWith('patchNodeCondition'))).toHaveLength(1);
    expect(cloud.calls.filter((c) => c === 'create-route')).toHaveLength(1);
  });

  it("deletes a deleted node's route and blackhole routes, but only inside the cluster CIDR", async () => {
    cloud.addRoute('c1', { targetNode: 'old', destinationCIDR: '10.244.9.0/24' });
    cloud.addRoute('c1', { targetNode: 'n1', destinationCIDR: '10.244.1.0/24', blackhole: true });
    cloud.addRoute('c1', { targetNode: 'foreign', destinationCIDR: '192.168.0.0/24' });
    kube.addNode(node('n1', ['10.244.1.0/24']));
    await controller.reconcile();
    await controller.reconcile();
    expect(routeSet()).toEqual(['foreign 192.168.0.0/24', 'n1 10.244.1.0/24']);
  });

  it('uses the node UID as name hint and reports failures with the upstream event', async () => {
    kube.addNode(node('n1', ['10.244.1.0/24']));
    cloud.createRouteErrByCIDR.set('10.244.1.0/24', new Error('quota'));
    await controller.reconcile();
    expect(recorder.events[0]).toMatchObject({
      object: { kind: 'Node', name: 'n1', uid: 'n1' },
      type: 'Warning',
      reason: 'FailedToCreateRoute',
      message: 'Could not create route uid-n1 10.244.1.0/24 for node n1 after 0s: quota',
    });
    expect(kube.node('n1')?.status?.conditions?.[0]).toMatchObject({ status: 'True', reason: 'NoRouteCreated' });
  });

  it('sets NetworkUnavailable=True on a node that lost its podCIDRs but still has a route', async () => {
    cloud.addRoute('c1', { targetNode: 'n1', destinationCIDR: '10.244.1.0/24' });
    kube.addNode(node('n1'));
    await controller.reconcile();
    expect(routeSet()).toEqual([]);
    expect(kube.node('n1')?.status?.conditions?.[0]).toMatchObject({ status: 'True', reason: 'NoRouteCreated' });
  });

  it('rejects an empty cluster CIDR at construction', () => {
    expect(() => new RouteController({ nodes: kube.nodes, kube, routes: cloud, recorder, logger, clusterName: 'c1', clusterCIDRs: '' })).toThrow(
      '--cluster-cidr is required',
    );
  });
});
