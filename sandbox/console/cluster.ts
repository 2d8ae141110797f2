// The cluster side of the console: polls Nodes, Services of type LoadBalancer, Events, and the pods and
// EndpointSlices behind them through @kubernetes/client-node on the sandbox's kubeconfig, keeps a
// condensed snapshot for the UI (pods per Node, endpoints per Service: workloads.ts), and reports
// what changed between two polls (diffNode/diffService) and every new or repeated Event. A failed poll
// keeps the last snapshot and marks it unreachable, so the UI can say so instead of going blank.
import { AppsV1Api, CoreV1Api, DiscoveryV1Api, type CoreV1Event, type V1Node, type V1Service } from '@kubernetes/client-node';
import { PooledKubeConfig } from '../kube/pooled-kubeconfig.ts';
import { diffService, type ChangeStep } from './changes.ts';
import { diffNode, readyOf } from './node-changes.ts';
import { endpointsByService, pendingPods, podsByNode, type EndpointView, type PendingPodView, type PodView } from './workloads.ts';

export interface NodeView {
  readonly name: string;
  readonly ready: string;
  readonly taints: { key: string; effect: string; value: string }[];
  readonly providerID: string;
  readonly serverId: string | null;
  readonly labels: Record<string, string>;
  readonly addresses: { type: string; address: string }[];
  readonly podCIDR: string | null;
  readonly networkUnavailable: string | null;
  readonly created: string | null;
  /** The pods bound to this Node. */
  readonly pods: PodView[];
}

export interface ServiceView {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly finalizers: string[];
  readonly ingress: string[];
  readonly ports: { name: string; port: number; nodePort: number | null; protocol: string }[];
  readonly annotations: Record<string, string>;
  readonly deleting: boolean;
  /** The addresses behind the Service, from its EndpointSlices. */
  readonly endpoints: EndpointView[];
}

export interface KubeEventView {
  readonly uid: string;
  readonly time: string;
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
  readonly component: string;
  readonly count: number;
}

export interface ClusterSnapshot {
  readonly ok: boolean;
  readonly error: string | null;
  readonly nodes: NodeView[];
  readonly services: ServiceView[];
  /** Pods waiting for a Node (e.g. for one the CCM has not initialised yet). */
  readonly pending: PendingPodView[];
  readonly updatedAt: string | null;
}

const conditionOf = (n: V1Node, type: string): string | null => n.status?.conditions?.find((c) => c.type === type)?.status ?? null;
const isoOrNull = (d: Date | string | undefined): string | null => (d ? new Date(d).toISOString() : null);

function serverIdOf(providerID: string): string | null {
  return providerID.startsWith('simcloud://') ? providerID.slice('simcloud://'.length) : null;
}

export function nodeView(n: V1Node, pods: PodView[]): NodeView {
  const meta = n.metadata ?? {};
  const spec = n.spec ?? {};
  const providerID = spec.providerID ?? '';
  return {
    name: meta.name ?? '',
    ready: readyOf(n),
    taints: (spec.taints ?? []).map((t) => ({ key: t.key, effect: t.effect, value: t.value ?? '' })),
    providerID,
    serverId: serverIdOf(providerID),
    labels: meta.labels ?? {},
    addresses: (n.status?.addresses ?? []).map((a) => ({ type: a.type, address: a.address })),
    podCIDR: spec.podCIDR ?? null,
    networkUnavailable: conditionOf(n, 'NetworkUnavailable'),
    created: isoOrNull(meta.creationTimestamp),
    pods,
  };
}

function portsOf(s: V1Service): ServiceView['ports'] {
  return (s.spec?.ports ?? []).map((p) => ({ name: p.name ?? '', port: p.port, nodePort: p.nodePort ?? null, protocol: p.protocol ?? 'TCP' }));
}

export function serviceView(s: V1Service, endpoints: EndpointView[]): ServiceView {
  const meta = s.metadata ?? {};
  return {
    namespace: meta.namespace ?? '',
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    finalizers: meta.finalizers ?? [],
    ingress: (s.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? i.hostname ?? ''),
    ports: portsOf(s),
    annotations: meta.annotations ?? {},
    deleting: Boolean(meta.deletionTimestamp),
    endpoints,
  };
}

const toIso = (d: Date | string | undefined): string | undefined => (d ? new Date(d).toISOString() : undefined);

function eventTime(e: CoreV1Event): string {
  return toIso(e.lastTimestamp) ?? toIso(e.eventTime) ?? toIso(e.firstTimestamp) ?? new Date().toISOString();
}

function objectOf(e: CoreV1Event): Pick<KubeEventView, 'kind' | 'name' | 'namespace'> {
  const obj = e.involvedObject;
  return { kind: obj.kind ?? '', name: obj.name ?? '', namespace: obj.namespace ?? '' };
}

export function eventView(e: CoreV1Event): KubeEventView {
  return {
    uid: e.metadata?.uid ?? '',
    time: eventTime(e),
    type: e.type ?? 'Normal',
    reason: e.reason ?? '',
    message: e.message ?? '',
    ...objectOf(e),
    component: e.source?.component ?? e.reportingComponent ?? '',
    count: e.count ?? 1,
  };
}

const isLoadBalancer = (s: V1Service): boolean =>
  s.spec?.type === 'LoadBalancer' || (s.metadata?.finalizers ?? []).includes('service.kubernetes.io/load-balancer-cleanup');
const serviceKey = (s: V1Service): string => `${s.metadata?.namespace ?? ''}/${s.metadata?.name ?? ''}`;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the Kubernetes API did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

export interface ClusterWatcherOptions {
  readonly kubeconfigPath: () => string | undefined;
  readonly intervalMs?: number;
  readonly onSteps: (steps: ChangeStep[], time: string) => void;
  readonly onEvent: (e: KubeEventView) => void;
  readonly onSnapshot: (s: ClusterSnapshot) => void;
}

export class ClusterWatcher {
  readonly #o: ClusterWatcherOptions;
  #clients: { core: CoreV1Api; apps: AppsV1Api; discovery: DiscoveryV1Api } | undefined;
  #nodes = new Map<string, V1Node>();
  #services = new Map<string, V1Service>();
  readonly #eventCounts = new Map<string, number>();
  #snapshot: ClusterSnapshot = { ok: false, error: 'not polled yet', nodes: [], services: [], pending: [], updatedAt: null };
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: ClusterWatcherOptions) {
    this.#o = options;
  }

  get snapshot(): ClusterSnapshot {
    return this.#snapshot;
  }

  get core(): CoreV1Api | undefined {
    return this.#client()?.core;
  }

  get apps(): AppsV1Api | undefined {
    return this.#client()?.apps;
  }

  start(): void {
    const loop = async (): Promise<void> => {
      await this.poll();
      if (!this.#stopped) this.#timer = setTimeout(() => void loop(), this.#o.intervalMs ?? 1000);
    };
    void loop();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  /** One poll: lists, diffs, events; never throws. */
  async poll(): Promise<void> {
    const clients = this.#client();
    try {
      if (!clients) throw new Error('the cluster is not running (no kubeconfig yet)');
      const { core, discovery } = clients;
      const [nodes, services, events, pods, slices] = await withTimeout(
        Promise.all([
          core.listNode(),
          core.listServiceForAllNamespaces(),
          core.listEventForAllNamespaces(),
          core.listPodForAllNamespaces(),
          discovery.listEndpointSliceForAllNamespaces(),
        ]),
        5000,
      );
      this.#apply(nodes.items, services.items.filter(isLoadBalancer), {
        pods: podsByNode(pods.items),
        pending: pendingPods(pods.items),
        endpoints: endpointsByService(slices.items),
      });
      this.#events(events.items);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      this.#snapshot = { ...this.#snapshot, ok: false, error: `Kubernetes API unreachable: ${error}` };
      this.#o.onSnapshot(this.#snapshot);
    }
  }

  #client(): { core: CoreV1Api; apps: AppsV1Api; discovery: DiscoveryV1Api } | undefined {
    if (this.#clients) return this.#clients;
    const path = this.#o.kubeconfigPath();
    if (!path) return undefined;
    const kc = new PooledKubeConfig();
    kc.loadFromFile(path);
    this.#clients = { core: kc.makeApiClient(CoreV1Api), apps: kc.makeApiClient(AppsV1Api), discovery: kc.makeApiClient(DiscoveryV1Api) };
    return this.#clients;
  }

  #apply(
    nodes: V1Node[],
    services: V1Service[],
    workloads: { pods: Map<string, PodView[]>; pending: PendingPodView[]; endpoints: Map<string, EndpointView[]> },
  ): void {
    const time = new Date().toISOString();
    const nextNodes = new Map(nodes.map((n) => [n.metadata?.name ?? '', n]));
    const nextServices = new Map(services.map((s) => [serviceKey(s), s]));
    const first = this.#snapshot.updatedAt === null;
    if (!first) {
      const steps: ChangeStep[] = [];
      for (const name of new Set([...this.#nodes.keys(), ...nextNodes.keys()])) steps.push(...diffNode(this.#nodes.get(name), nextNodes.get(name)));
      for (const key of new Set([...this.#services.keys(), ...nextServices.keys()])) steps.push(...diffService(this.#services.get(key), nextServices.get(key)));
      if (steps.length > 0) this.#o.onSteps(steps, time);
    }
    this.#nodes = nextNodes;
    this.#services = nextServices;
    const sortBy = <T extends { name: string }>(xs: T[]): T[] => xs.sort((a, b) => a.name.localeCompare(b.name));
    const nodeViews = nodes.map((n) => nodeView(n, workloads.pods.get(n.metadata?.name ?? '') ?? []));
    const serviceViews = services.map((s) => serviceView(s, workloads.endpoints.get(serviceKey(s)) ?? []));
    this.#snapshot = { ok: true, error: null, nodes: sortBy(nodeViews), services: sortBy(serviceViews), pending: workloads.pending, updatedAt: time };
    this.#o.onSnapshot(this.#snapshot);
  }

  #events(items: CoreV1Event[]): void {
    const views = items.map(eventView).sort((a, b) => a.time.localeCompare(b.time));
    for (const v of views) {
      if (this.#eventCounts.get(v.uid) === v.count) continue;
      this.#eventCounts.set(v.uid, v.count);
      this.#o.onEvent(v);
    }
  }
}
