import type { V1Node } from '@kubernetes/client-node';
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeCloud } from '../../cloud/fake-cloud.ts';
import { FakeClock } from '../../kube/clock.ts';
import { MemoryEventRecorder } from '../../kube/events.ts';
import { MemoryKube } from '../../kube/memory-kube.ts';
import { TaintKey } from '../../kube/taints.ts';
import { CloudNodeLifecycleController } from './controller.ts';

const logger = pino({ level: 'silent' });

function node(name: string, ready: 'True' | 'False' | 'Unknown' | undefined, taints: V1Node['spec'] = {}): V1Node {
  return {
    metadata: { name, uid: `uid-${name}` },
    spec: taints,
    status: { conditions: ready === undefined ? [] : [{ type: 'Ready', status: ready }] },
  };
}

describe('cloud-node-lifecycle-controller monitorNodes', () => {
  let kube: MemoryKube;
  let cloud: FakeCloud;
  let recorder: MemoryEventRecorder;
  let controller: CloudNodeLifecycleController;

  beforeEach(() => {
    kube = new MemoryKube();
    cloud = new FakeCloud();
    recorder = new MemoryEventRecorder();
    controller = new CloudNodeLifecycleController({ nodes: kube.nodes, kube, instances: cloud, recorder, logger, clock: new FakeClock() });
  });

  it('deletes a not-Ready node whose instance is gone, with the upstream event', async () => {
    kube.addNode(node('gone', 'False'));
    cloud.setInstance('gone', { exists: false });
    await controller.monitorNodes();
    expect(kube.node('gone')).toBeUndefined();
    expect(recorder.lines()).toEqual(['Normal DeletingNode Deleting node gone because it does not exist in the cloud provider']);
  });

  it('never deletes a Ready node, even when its instance is gone', async () => {
    kube.addNode(node('ready', 'True'));
    cloud.setInstance('ready', { exists: false });
    await controller.monitorNodes();
    expect(kube.node('ready')).toBeDefined();
    expect(cloud.calls).toEqual([]);
  });

  it('treats a missing Ready condition as Unknown (acts on it)', async () => {
    kube.addNode(node('new', undefined, { taints: [{ key: TaintKey.Uninitialized, effect: 'NoSchedule' }] }));
    cloud.setInstance('new', { exists: false });
    await controller.monitorNodes();
    expect(kube.node('new')).toBeUndefined();
  });

  it('adds the NoSchedule shutdown taint to a not-Ready shut-down node, once', async () => {
    kube.addNode(node('off', 'False'));
    cloud.setInstance('off', { shutdown: true });
    await controller.monitorNodes();
    await controller.monitorNodes();
    expect(kube.node('off')?.spec?.taints).toEqual([{ key: TaintKey.Shutdown, effect: 'NoSchedule' }]);
    expect(kube.writes.filter((w) => w.startsWith('patchNodeTaints'))).toHaveLength(1);
  });

  it('removes the shutdown taint only when the node is Ready again', async () => {
    kube.addNode(node('back', 'False', { taints: [{ key: TaintKey.Shutdown, effect: 'NoSchedule' }] }));
    cloud.setInstance('back', { shutdown: false });
    await controller.monitorNodes();
    expect(kube.node('back')?.spec?.taints).toHaveLength(1);
    kube.nodes.upsert({ ...kube.node('back')!, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
    await controller.monitorNodes();
    expect(kube.node('back')?.spec?.taints).toEqual([]);
  });

  it('skips a node when the existence check fails (never deletes on error)', async () => {
    kube.addNode(node('flaky', 'Unknown'));
    cloud.existsErr = new Error('500');
    await controller.monitorNodes();
    expect(kube.node('flaky')).toBeDefined();
  });

  it('emits DeletingNodeFailed when the delete fails', async () => {
    kube.addNode(node('gone', 'False'));
    cloud.setInstance('gone', { exists: false });
    kube.failures.set('deleteNode', new Error('forbidden'));
    await controller.monitorNodes();
    expect(recorder.lines()[1]).toBe('Warning DeletingNodeFailed Failed deleting node gone: forbidden');
  });
});
