// What a kubelet decides and posts for a pod bound to its node, as pure functions: which step the pod
// needs next (run it, finish a Job's run, finish its deletion, nothing) and the status it reports once its
// containers "run". Containers never run: a simulated start is instant, every container is started and
// ready, and readiness gates are honoured as the kubelet does (Ready only when every gate's condition is
// True). Nothing here, or anywhere else, ever sends a packet to a pod IP.
import type { V1Container, V1ContainerState, V1ContainerStatus, V1Node, V1Pod, V1PodCondition, V1PodStatus } from '@kubernetes/client-node';

export const POD_STEPS = ['run', 'complete', 'finish-deletion', 'none'] as const;
export type PodStep = (typeof POD_STEPS)[number];

/** The node facts a pod's status carries: its address and its share of the pod network. */
export interface NodeFacts {
  readonly hostIP: string | undefined;
  readonly podCIDR: string | undefined;
}

/** The kubelet's host IP is the Node's first InternalIP, else its first ExternalIP; none: pods wait. */
export function nodeFacts(node: V1Node | undefined): NodeFacts {
  const addresses = node?.status?.addresses ?? [];
  const hostIP = (addresses.find((a) => a.type === 'InternalIP') ?? addresses.find((a) => a.type === 'ExternalIP'))?.address;
  const spec = node?.spec ?? {};
  const cidrs = spec.podCIDRs ?? [spec.podCIDR ?? ''];
  return { hostIP, podCIDR: cidrs.find((c) => c !== '' && !c.includes(':')) };
}

const TERMINAL = new Set(['Succeeded', 'Failed']);

/** The next step for a pod on a live kubelet (level-triggered: the same pod always yields the same step). */
export function nextStep(pod: V1Pod): PodStep {
  if (pod.metadata?.deletionTimestamp) return 'finish-deletion';
  const status = pod.status ?? {};
  const phase = status.phase ?? 'Pending';
  if (TERMINAL.has(phase)) return 'none';
  if (phase !== 'Running' || !status.podIP) return 'run';
  // A Job's container runs to completion; any other container keeps running.
  if (ownedByJob(pod)) return 'complete';
  return conditionStatus(pod, 'Ready') === readyWanted(pod) ? 'none' : 'run';
}

function ownedByJob(pod: V1Pod): boolean {
  return (pod.metadata?.ownerReferences ?? []).some((o) => o.kind === 'Job' && o.controller === true);
}

function conditionStatus(pod: V1Pod, type: string): string | undefined {
  return pod.status?.conditions?.find((c) => c.type === type)?.status;
}

/** Ready is True only when every readiness gate's condition (set by someone else) is True. */
function readyWanted(pod: V1Pod): 'True' | 'False' {
  const gates = pod.spec?.readinessGates ?? [];
  return gates.every((g) => conditionStatus(pod, g.conditionType) === 'True') ? 'True' : 'False';
}

/** A condition keeping its lastTransitionTime while its status stays the same. */
function condition(pod: V1Pod, want: { type: string; status: 'True' | 'False'; reason?: string }, now: Date): V1PodCondition {
  const previous = pod.status?.conditions?.find((c) => c.type === want.type);
  const lastTransitionTime = previous?.status === want.status ? (previous.lastTransitionTime ?? now) : now;
  return { type: want.type, status: want.status, lastTransitionTime, ...(want.reason ? { reason: want.reason } : {}) };
}

function containerId(pod: V1Pod, name: string): string {
  return `virtual://${pod.metadata?.uid ?? ''}/${name}`;
}

/** What every status of a container carries, whatever its state. */
function identity(pod: V1Pod, c: V1Container): Pick<V1ContainerStatus, 'name' | 'image' | 'imageID' | 'containerID'> {
  return { name: c.name, image: c.image ?? '', imageID: '', containerID: containerId(pod, c.name) };
}

function exitedCleanly(pod: V1Pod, name: string, startedAt: Date, finishedAt: Date): V1ContainerState {
  return { terminated: { exitCode: 0, reason: 'Completed', startedAt, finishedAt, containerID: containerId(pod, name) } };
}

function runningContainers(pod: V1Pod, startedAt: Date, live: LiveContainers): V1ContainerStatus[] {
  const previous = new Map((pod.status?.containerStatuses ?? []).map((c) => [c.name, c]));
  return (pod.spec?.containers ?? []).map(
    (c) =>
      live.get(c.name) ?? {
        ...identity(pod, c),
        ready: true,
        started: true,
        restartCount: previous.get(c.name)?.restartCount ?? 0,
        state: { running: { startedAt: previous.get(c.name)?.state?.running?.startedAt ?? startedAt } },
      },
  );
}

/** Where a running pod is: its own address and its node's. */
export interface PodAddresses {
  readonly podIP: string;
  readonly hostIP: string;
}

/** The statuses of containers that run as processes (containers/runtime.ts), by name; the others are simulated. */
export type LiveContainers = ReadonlyMap<string, V1ContainerStatus>;

/** Pending while no container has started yet; a pod whose every container has terminated for good ends Succeeded (all exited 0) or Failed. */
function livePhase(statuses: readonly V1ContainerStatus[]): 'Pending' | 'Running' | 'Succeeded' | 'Failed' {
  if (statuses.length > 0 && statuses.every((s) => s.state?.waiting && s.lastState === undefined)) return 'Pending';
  const ended = statuses.map((s) => s.state?.terminated);
  if (ended.length === 0 || ended.some((t) => t === undefined)) return 'Running';
  return ended.every((t) => t?.exitCode === 0) ? 'Succeeded' : 'Failed';
}

function completedInitContainers(pod: V1Pod, at: Date): V1ContainerStatus[] {
  return (pod.spec?.initContainers ?? []).map((c) => ({ ...identity(pod, c), ready: true, restartCount: 0, state: exitedCleanly(pod, c.name, at, at) }));
}

/**
 * The status a kubelet posts once the pod's sandbox and containers are up. `podIP` comes from the node's
 * podCIDR (or is the node's own address for hostNetwork pods).
 */
export function runningStatus(pod: V1Pod, { podIP, hostIP }: PodAddresses, now: Date, live: LiveContainers = new Map()): V1PodStatus {
  const startTime = pod.status?.startTime ?? now;
  const containerStatuses = runningContainers(pod, now, live);
  const containersReady = containerStatuses.every((c) => c.ready);
  const ready = containersReady ? readyWanted(pod) : 'False';
  const notReady = containersReady ? 'ReadinessGatesNotReady' : 'ContainersNotReady';
  return {
    phase: livePhase(containerStatuses),
    hostIP,
    hostIPs: [{ ip: hostIP }],
    podIP,
    podIPs: [{ ip: podIP }],
    startTime,
    qosClass: pod.status?.qosClass,
    conditions: [
      condition(pod, { type: 'PodReadyToStartContainers', status: 'True' }, now),
      condition(pod, { type: 'Initialized', status: 'True' }, now),
      condition(pod, { type: 'ContainersReady', status: containersReady ? 'True' : 'False', ...(containersReady ? {} : { reason: notReady }) }, now),
      condition(pod, { type: 'Ready', status: ready, ...(ready === 'True' ? {} : { reason: notReady }) }, now),
      condition(pod, { type: 'PodScheduled', status: 'True' }, now),
    ],
    initContainerStatuses: completedInitContainers(pod, startTime),
    containerStatuses,
  };
}

/** What of a status a kubelet would rewrite when it changes (timestamps aside: the apiserver keeps seconds). */
export function statusDigest(status: V1PodStatus | undefined): string {
  return JSON.stringify({
    phase: status?.phase,
    podIP: status?.podIP,
    conditions: (status?.conditions ?? []).map((c) => [c.type, c.status]).sort(),
    containers: (status?.containerStatuses ?? []).map(containerDigest),
  });
}

function containerDigest(c: V1ContainerStatus): unknown[] {
  const { state = {}, lastState = {} } = c;
  const lastExit = lastState.terminated;
  return [
    c.name,
    c.ready,
    c.restartCount,
    c.containerID,
    Object.keys(state),
    state.waiting?.reason,
    state.waiting?.message,
    state.terminated?.exitCode,
    lastExit?.exitCode,
    lastExit ? new Date(lastExit.finishedAt ?? 0).toISOString().slice(0, 19) : '',
  ];
}

/** A Job pod whose containers exited 0: phase Succeeded, nothing ready any more. */
export function succeededStatus(pod: V1Pod, now: Date): V1PodStatus {
  const containerStatuses = (pod.spec?.containers ?? []).map((c) => {
    const startedAt = pod.status?.containerStatuses?.find((s) => s.name === c.name)?.state?.running?.startedAt ?? now;
    return { ...identity(pod, c), ready: false, started: false, restartCount: 0, state: exitedCleanly(pod, c.name, startedAt, now) };
  });
  return {
    phase: 'Succeeded',
    conditions: [
      condition(pod, { type: 'Ready', status: 'False', reason: 'PodCompleted' }, now),
      condition(pod, { type: 'ContainersReady', status: 'False', reason: 'PodCompleted' }, now),
    ],
    containerStatuses,
  };
}
