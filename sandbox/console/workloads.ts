// The workloads the Cluster view shows next to the CCM's objects: the pods on each Node (read from the
// pod list, grouped by spec.nodeName) and the endpoints behind each Service (read from its
// EndpointSlices), so a learner sees what a load balancer's traffic finally reaches.
import type { V1EndpointSlice, V1Pod } from '@kubernetes/client-node';

export interface PodView {
  readonly namespace: string;
  readonly name: string;
  /** Pending, Running, Succeeded, Failed or Unknown. */
  readonly phase: string;
  /** The pod's Ready condition is True. */
  readonly ready: boolean;
  readonly ip: string | null;
}

export interface EndpointView {
  readonly ip: string;
  /** The Node the endpoint's pod runs on, when the slice says. */
  readonly node: string | null;
  /** The pod behind it, when the slice names one. */
  readonly pod: string | null;
  /** Ready endpoints receive traffic; unset counts as ready, as kube-proxy reads it. */
  readonly ready: boolean;
}

/** The label an EndpointSlice carries to name its Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export function podView(p: V1Pod): PodView {
  const { namespace = '', name = '' } = p.metadata ?? {};
  const { phase = 'Unknown', podIP = null, conditions = [] } = p.status ?? {};
  return { namespace, name, phase, ready: conditions.some((c) => c.type === 'Ready' && c.status === 'True'), ip: podIP };
}

/** A pod no Node has taken yet, with the scheduler's reason (its PodScheduled=False message). */
export interface PendingPodView extends PodView {
  readonly reason: string | null;
}

/** Pods not bound to any Node (waiting for the scheduler), sorted by name. */
export function pendingPods(pods: readonly V1Pod[]): PendingPodView[] {
  return pods
    .filter((p) => !p.spec?.nodeName && !p.metadata?.deletionTimestamp)
    .map((p) => ({ ...podView(p), reason: p.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False')?.message ?? null }))
    .sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
}

/** Pods by the Node they are bound to (pending pods without a Node are left out), sorted by name. */
export function podsByNode(pods: readonly V1Pod[]): Map<string, PodView[]> {
  const out = new Map<string, PodView[]>();
  for (const p of pods) {
    const node = p.spec?.nodeName;
    if (!node) continue;
    out.set(node, [...(out.get(node) ?? []), podView(p)]);
  }
  for (const list of out.values()) list.sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
  return out;
}

function endpointsOf(slice: V1EndpointSlice): EndpointView[] {
  return (slice.endpoints ?? []).flatMap((e) =>
    e.addresses.map((ip) => ({
      ip,
      node: e.nodeName ?? null,
      pod: e.targetRef?.kind === 'Pod' ? (e.targetRef.name ?? null) : null,
      ready: e.conditions?.ready ?? true,
    })),
  );
}

/** Endpoints by Service (`<namespace>/<name>`), merged over the Service's slices and sorted by address. */
export function endpointsByService(slices: readonly V1EndpointSlice[]): Map<string, EndpointView[]> {
  const out = new Map<string, EndpointView[]>();
  for (const s of slices) {
    const service = s.metadata?.labels?.[SERVICE_NAME_LABEL];
    if (!service) continue;
    const key = `${s.metadata?.namespace ?? ''}/${service}`;
    out.set(key, [...(out.get(key) ?? []), ...endpointsOf(s)]);
  }
  for (const list of out.values()) list.sort((a, b) => a.ip.localeCompare(b.ip, undefined, { numeric: true }));
  return out;
}
