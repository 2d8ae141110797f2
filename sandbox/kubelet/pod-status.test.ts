import type { V1ContainerStatus, V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { nextStep, nodeFacts, runningStatus, statusDigest, succeededStatus } from './pod-status.ts';

const now = new Date('2026-01-01T00:00:00Z');

function pod(overrides: Partial<V1Pod> = {}): V1Pod {
  return {
    metadata: { name: 'web-1', namespace: 'default', uid: 'u1', ...overrides.metadata },
    spec: { nodeName: 'w1', containers: [{ name: 'nginx', image: 'nginx' }], ...overrides.spec },
    ...(overrides.status ? { status: overrides.status } : {}),
  };
}

describe('virtual kubelet pod steps', () => {
  it('runs a scheduled pod, then leaves a running ready pod alone', () => {
    const scheduled = pod({ status: { phase: 'Pending' } });
    expect(nextStep(scheduled)).toBe('run');
    const running = pod({ status: runningStatus(scheduled, { podIP: '10.244.1.2', hostIP: '127.0.10.1' }, now) });
    expect(nextStep(running)).toBe('none');
  });

  it('finishes the deletion of a pod marked for deletion, whatever its phase', () => {
    expect(nextStep(pod({ metadata: { name: 'p', deletionTimestamp: now }, status: { phase: 'Running', podIP: '10.244.1.2' } }))).toBe('finish-deletion');
  });

  it("completes a running Job's pod and then leaves it Succeeded", () => {
    const owner = [{ apiVersion: 'batch/v1', kind: 'Job', name: 'pi', uid: 'j1', controller: true }];
    const running = pod({ metadata: { name: 'pi-x', ownerReferences: owner }, status: { phase: 'Running', podIP: '10.244.1.3' } });
    expect(nextStep(running)).toBe('complete');
    const done = succeededStatus(running, now);
    expect(done.phase).toBe('Succeeded');
    expect(done.containerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(nextStep(pod({ metadata: { name: 'pi-x', ownerReferences: owner }, status: done }))).toBe('none');
  });

  it('reports Running with the pod and host addresses and every container started and ready', () => {
    const status = runningStatus(pod(), { podIP: '10.244.1.2', hostIP: '127.0.10.1' }, now);
    expect(status).toMatchObject({
      phase: 'Running',
      podIP: '10.244.1.2',
      podIPs: [{ ip: '10.244.1.2' }],
      hostIP: '127.0.10.1',
      hostIPs: [{ ip: '127.0.10.1' }],
    });
    expect(status.containerStatuses).toEqual([expect.objectContaining({ name: 'nginx', ready: true, started: true, restartCount: 0 })]);
    expect(status.conditions?.map((c) => `${c.type}=${c.status}`)).toEqual([
      'PodReadyToStartContainers=True',
      'Initialized=True',
      'ContainersReady=True',
      'Ready=True',
      'PodScheduled=True',
    ]);
  });

  it('keeps Ready False until every readiness gate is True, then turns it True', () => {
    const gated = pod({ spec: { containers: [{ name: 'c' }], readinessGates: [{ conditionType: 'example.com/lb-ready' }] } });
    const first = runningStatus(gated, { podIP: '10.244.1.2', hostIP: '127.0.10.1' }, now);
    expect(first.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'ReadinessGatesNotReady' });
    const waiting = { ...gated, status: first };
    expect(nextStep(waiting)).toBe('none');
    const gateOpen = { ...gated, status: { ...first, conditions: [...(first.conditions ?? []), { type: 'example.com/lb-ready', status: 'True' }] } };
    expect(nextStep(gateOpen)).toBe('run');
    expect(runningStatus(gateOpen, { podIP: '10.244.1.2', hostIP: '127.0.10.1' }, now).conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
  });

  it('posts Ready again for a running pod that node-lifecycle marked not ready while its kubelet was away', () => {
    const running = runningStatus(pod(), { podIP: '10.244.1.2', hostIP: '127.0.10.1' }, now);
    const markedDown = pod({ status: { ...running, conditions: running.conditions?.map((c) => (c.type === 'Ready' ? { ...c, status: 'False' } : c)) } });
    expect(nextStep(markedDown)).toBe('run');
  });

  it('keeps the transition time of a condition whose status did not change', () => {
    const earlier = new Date('2025-12-31T00:00:00Z');
    const running = pod({
      status: { phase: 'Running', podIP: '10.244.1.2', conditions: [{ type: 'Initialized', status: 'True', lastTransitionTime: earlier }] },
    });
    expect(
      runningStatus(running, { podIP: '10.244.1.2', hostIP: '127.0.10.1' }, now).conditions?.find((c) => c.type === 'Initialized')?.lastTransitionTime,
    ).toEqual(earlier);
  });

  it("takes the node's InternalIP and its IPv4 podCIDR", () => {
    const node: V1Node = {
      spec: { podCIDR: 'fd00::/64', podCIDRs: ['fd00::/64', '10.244.3.0/24'] },
      status: {
        addresses: [
          { type: 'Hostname', address: 'w1' },
          { type: 'InternalIP', address: '127.0.10.3' },
        ],
      },
    };
    expect(nodeFacts(node)).toEqual({ hostIP: '127.0.10.3', podCIDR: '10.244.3.0/24' });
    expect(nodeFacts(undefined)).toEqual({ hostIP: undefined, podCIDR: undefined });
    // Before the CCM sets addresses a kubelet without --node-ip knows only its Hostname: no host IP yet.
    expect(nodeFacts({ status: { addresses: [{ type: 'Hostname', address: 'w1' }] } }).hostIP).toBeUndefined();
    expect(nodeFacts({ status: { addresses: [{ type: 'ExternalIP', address: '127.0.20.3' }] } }).hostIP).toBe('127.0.20.3');
  });

  describe('with containers that run as processes', () => {
    const at = { podIP: '127.0.64.2', hostIP: '127.0.64.2' };
    const live = (...statuses: V1ContainerStatus[]): Map<string, V1ContainerStatus> => new Map(statuses.map((c) => [c.name, c]));
    const base = { name: 'nginx', image: 'nginx', imageID: '', restartCount: 0 };
    const condition = (status: ReturnType<typeof runningStatus>, type: string): unknown => status.conditions?.find((c) => c.type === type);

    it('is Pending while no container has started, Running and not Ready while one backs off', () => {
      const creating = runningStatus(pod(), at, now, live({ ...base, ready: false, state: { waiting: { reason: 'ContainerCreating' } } }));
      expect(creating.phase).toBe('Pending');
      const crashing = runningStatus(
        pod(),
        at,
        now,
        live({ ...base, ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 3 } } }),
      );
      expect(crashing.phase).toBe('Running');
      expect(condition(crashing, 'ContainersReady')).toMatchObject({ status: 'False', reason: 'ContainersNotReady' });
      expect(condition(crashing, 'Ready')).toMatchObject({ status: 'False', reason: 'ContainersNotReady' });
    });

    it('is Ready once its process is ready, and ends Succeeded or Failed when every container has terminated', () => {
      const ready = runningStatus(pod(), at, now, live({ ...base, ready: true, started: true, state: { running: { startedAt: now } } }));
      expect(ready.phase).toBe('Running');
      expect(condition(ready, 'Ready')).toMatchObject({ status: 'True' });
      const exit = (exitCode: number): ReturnType<typeof runningStatus> =>
        runningStatus(pod(), at, now, live({ ...base, ready: false, state: { terminated: { exitCode } } }));
      expect([exit(0).phase, exit(2).phase]).toEqual(['Succeeded', 'Failed']);
    });

    it('digests a status so that the apiserver dropping sub-second precision is no change, and a new exit is one', () => {
      const crashed = (finishedAt: Date, exitCode = 3): ReturnType<typeof runningStatus> =>
        runningStatus(
          pod(),
          at,
          now,
          live({
            ...base,
            ready: false,
            restartCount: 1,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { exitCode, finishedAt } },
          }),
        );
      expect(statusDigest(crashed(new Date('2026-01-01T00:00:05.678Z')))).toBe(statusDigest(crashed(new Date('2026-01-01T00:00:05Z'))));
      expect(statusDigest(crashed(new Date('2026-01-01T00:00:05Z')))).not.toBe(statusDigest(crashed(new Date('2026-01-01T00:00:15Z'))));
      expect(statusDigest(crashed(now, 3))).not.toBe(statusDigest(crashed(now, 1)));
    });
  });
});
