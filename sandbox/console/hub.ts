// The console's hub: turns simcloud's event stream and the cluster poller into one timeline (with
// explanations) and one state (cloud snapshot, cluster snapshot, links), and tells the SSE clients about
// both. The console's own reads are left out of the timeline, and so are the sandbox harness's reads (its
// kubelet fleet polls the servers), so what remains is what the CCM did and what changed.
import type { SimcloudAdminClient, SimcloudClient } from '../../simulator/api/client/index.ts';
import type { ActionRecord, ApiCallEvent, ResourceChangeEvent, SimEvent, TargetHealthEvent } from '../../simulator/api/schema/events.ts';
import { explainResourceChange, explainTargetHealth, serviceGroupOf, type ChangeStep, type Labelled } from './changes.ts';
import { EMPTY_CLOUD, readCloud, CONSOLE_CALLER, type CloudSnapshot } from './cloud.ts';
import { ClusterWatcher, type ClusterSnapshot, type KubeEventView } from './cluster.ts';
import { CallExplainer, explainKubeEvent, methodOfReason, resourceOfPath } from './explain.ts';
import { computeLinks, type Links } from './links.ts';
import { cloudOf, DEFAULT_CLOUD, type CloudKind } from '../cloud/registry.ts';
import { inCloudWords } from '../cloud/descriptor.ts';
import { DEFAULT_CCM, type CcmKind } from '../ccm/slot.ts';
import { EntrySource, Severity, Timeline, type TimelineEntry } from './timeline.ts';

/** What the console needs from a Sandbox. */
export interface ConsoleSandbox {
  readonly client: SimcloudClient;
  readonly admin: SimcloudAdminClient;
  subscribe(handler: (e: SimEvent) => void): () => void;
  readonly cluster: { kubeconfigPath: string } | undefined;
  /** `ccm` absent: our TypeScript CCM (the slot's default). */
  readonly options: { name: string; runtime: string; lbStrategy: string; ccm?: { kind: CcmKind }; cloud?: CloudKind };
  addWorker(): Promise<string>;
  /** Stops or continues the CCM process (the node tour holds it to show a Node waiting for it). */
  holdCcm?(hold: boolean): boolean;
  readonly ccmHeld?: boolean;
}

export interface ConsoleState {
  /** `ccm`: which CCM fills the sandbox's slot, so the UI can say whose calls the timeline explains. */
  readonly sandbox: { name: string; runtime: string; lbStrategy: string; ccm: CcmKind; ccmHeld: boolean };
  readonly cloud: CloudSnapshot;
  readonly cluster: ClusterSnapshot;
  readonly links: Links;
}

export interface HubOptions {
  readonly clusterIntervalMs?: number;
  /** Re-read the cloud at least this often (LB traffic counters change without events). */
  readonly cloudIntervalMs?: number;
}

function severityOf(status: number): Severity {
  if (status >= 500 || status === 429) return Severity.error;
  return status >= 400 ? Severity.warning : Severity.normal;
}

/** The sandbox harness's own caller: its reads are plumbing (the kubelet fleet's polls). */
const HARNESS_CALLER = 'ccm-sandbox';

export class ConsoleHub {
  readonly timeline = new Timeline();
  readonly cluster: ClusterWatcher;
  readonly #sandbox: ConsoleSandbox;
  readonly #explainer = new CallExplainer();
  /** The last change of each record still in the cloud: what the next change is diffed against. */
  readonly #changes = new Map<string, ResourceChangeEvent>();
  readonly #actions = new Map<string, ActionRecord>();
  readonly #stateListeners = new Set<(s: ConsoleState) => void>();
  readonly #opts: HubOptions;
  #cloud: CloudSnapshot = EMPTY_CLOUD;
  #unsubscribe: (() => void) | undefined;
  #cloudTimer: NodeJS.Timeout | undefined;
  #refreshTimer: NodeJS.Timeout | undefined;
  #notifyTimer: NodeJS.Timeout | undefined;
  #reading: Promise<void> | undefined;
  #closed = false;
  #lastStateKey = '';

  constructor(sandbox: ConsoleSandbox, opts: HubOptions = {}) {
    this.#sandbox = sandbox;
    this.#opts = opts;
    this.cluster = new ClusterWatcher({
      kubeconfigPath: () => sandbox.cluster?.kubeconfigPath,
      intervalMs: opts.clusterIntervalMs ?? 1000,
      onSteps: (steps, time) => this.#addSteps(steps, { time, source: EntrySource.kubeChange }),
      onEvent: (e) => this.#addKubeEvent(e),
      onSnapshot: () => this.#notify(),
    });
  }

  async start(): Promise<void> {
    this.#unsubscribe = this.#sandbox.subscribe((e) => this.#onSimEvent(e));
    await this.refreshCloud();
    this.cluster.start();
    const loop = (): void => {
      this.#cloudTimer = setTimeout(() => void this.refreshCloud().finally(() => !this.#closed && loop()), this.#opts.cloudIntervalMs ?? 3000);
    };
    loop();
  }

  stop(): void {
    this.#closed = true;
    this.#unsubscribe?.();
    this.cluster.stop();
    clearTimeout(this.#cloudTimer);
    clearTimeout(this.#refreshTimer);
    clearTimeout(this.#notifyTimer);
  }

  state(): ConsoleState {
    const { name, runtime, lbStrategy, ccm } = this.#sandbox.options;
    const cluster = this.cluster.snapshot;
    const cloud = cloudOf(this.#sandbox.options.cloud ?? DEFAULT_CLOUD);
    const persona = cloud.personaId ? (id: string) => inCloudWords(cloud, id) : undefined;
    return {
      sandbox: { name, runtime, lbStrategy, ccm: (ccm ?? DEFAULT_CCM).kind, ccmHeld: this.#sandbox.ccmHeld ?? false },
      cloud: this.#cloud,
      cluster,
      links: computeLinks(cluster, this.#cloud, persona),
    };
  }

  onState(fn: (s: ConsoleState) => void): () => void {
    this.#stateListeners.add(fn);
    return () => this.#stateListeners.delete(fn);
  }

  onTimeline(fn: (e: TimelineEntry) => void): () => void {
    return this.timeline.subscribe(fn);
  }

  /** Reads the cloud now (one read at a time; a failure keeps the last data and records the error). */
  async refreshCloud(): Promise<void> {
    this.#reading ??= (async () => {
      try {
        this.#cloud = await readCloud(this.#sandbox.client, this.#sandbox.admin, [...this.#actions.values()]);
      } catch (err) {
        this.#cloud = { ...this.#cloud, ok: false, error: `simcloud unreachable: ${err instanceof Error ? err.message : String(err)}` };
      } finally {
        this.#reading = undefined;
        this.#notify();
      }
    })();
    return this.#reading;
  }

  #scheduleRefresh(): void {
    if (this.#refreshTimer || this.#closed) return;
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = undefined;
      void this.refreshCloud();
    }, 200);
  }

  #notify(): void {
    if (this.#notifyTimer || this.#closed) return;
    this.#notifyTimer = setTimeout(() => {
      this.#notifyTimer = undefined;
      const s = this.state();
      // The pollers report every period; only a real change goes out to the browsers.
      const key = JSON.stringify([s.sandbox.ccmHeld, { ...s.cloud, updatedAt: null }, { ...s.cluster, updatedAt: null }]);
      if (key === this.#lastStateKey) return;
      this.#lastStateKey = key;
      for (const l of this.#stateListeners) l(s);
    }, 100);
  }

  #onSimEvent(e: SimEvent): void {
    switch (e.type) {
      case 'api_call':
        return this.#onApiCall(e);
      case 'resource_change':
        return this.#onChange(e);
      case 'target_health':
        return this.#onHealth(e);
    }
  }

  #onApiCall(e: ApiCallEvent): void {
    const own = e.caller === CONSOLE_CALLER || e.caller === HARNESS_CALLER;
    if (own && e.method === 'GET') return;
    if (e.path.startsWith('/_sim')) return;
    const x = this.#explainer.explain(e);
    const group = x.controller === null ? (this.#groupOfPath(e.path) ?? x.group) : x.group;
    this.timeline.add({
      time: e.time,
      source: EntrySource.cloudCall,
      group,
      controller: x.controller ?? e.caller,
      method: x.method,
      methodSource: x.methodSource,
      title: x.title,
      explanation: x.sentence,
      severity: severityOf(e.status),
      foldable: x.read,
    });
  }

  #onChange(e: ResourceChangeEvent): void {
    const steps = explainResourceChange(e, this.#changes.get(e.resource_id), (type, id) => this.#groupOf(type, id));
    if (e.resource) this.#changes.set(e.resource_id, e);
    else this.#changes.delete(e.resource_id);
    if (e.resource_type === 'action') {
      if (e.resource?.status === 'running') this.#actions.set(e.resource_id, e.resource);
      else this.#actions.delete(e.resource_id);
    }
    this.#addSteps(steps, { time: e.time, source: EntrySource.cloudChange });
    this.#scheduleRefresh();
  }

  #onHealth(e: TargetHealthEvent): void {
    const last = this.#changes.get(e.load_balancer_id);
    const lb = last?.resource_type === 'load_balancer' ? (last.resource ?? undefined) : undefined;
    this.#addSteps([explainTargetHealth(e, lb)], { time: e.time, source: EntrySource.cloudChange });
    this.#scheduleRefresh();
  }

  /** A record by id: its last change, else the last cloud read (the console may start after the change). */
  #recordOf(id: string): (Labelled & { name?: string }) | undefined {
    return this.#changes.get(id)?.resource ?? this.#cloud.servers.find((s) => s.id === id) ?? this.#cloud.loadBalancers.find((l) => l.id === id);
  }

  /** The object a non-CCM call (the console's own actions, the harness) acts on, from its path. */
  #groupOfPath(path: string): string | undefined {
    const { collection, id } = resourceOfPath(path);
    if (!id) return undefined;
    if (collection === 'servers') return this.#groupOf('server', id);
    const group = this.#groupOf(collection, id);
    return group.startsWith('Cloud/') ? undefined : group;
  }

  #groupOf(type: string, id: string): string {
    if (type === 'gateway') {
      const server = this.#cloud.servers.find((s) => s.private_ipv4 === id || s.private_networks.some((n) => n.ip === id));
      return server ? `Node/${server.name}` : 'Routes';
    }
    const doc = this.#recordOf(id);
    if (type === 'server') return `Node/${doc?.name ?? id}`;
    if (type === 'network') return 'Routes';
    return serviceGroupOf(doc) ?? `Cloud/${id}`;
  }

  #addSteps(steps: ChangeStep[], at: { time: string; source: EntrySource }): void {
    for (const s of steps) {
      this.timeline.add({
        time: at.time,
        source: at.source,
        group: s.group,
        controller: s.controller,
        method: s.method,
        title: s.title,
        explanation: s.sentence,
        severity: Severity.normal,
      });
    }
  }

  #addKubeEvent(e: KubeEventView): void {
    const group = e.kind === 'Service' ? `Service/${e.namespace}/${e.name}` : `${e.kind}/${e.name}`;
    this.timeline.add({
      time: e.time,
      source: EntrySource.kubeEvent,
      group,
      controller: e.component || null,
      method: methodOfReason(e.reason),
      title: `${e.type} ${e.reason}${e.count > 1 ? ` (×${e.count})` : ''}: ${e.message}`,
      explanation: explainKubeEvent(e),
      severity: e.type === 'Warning' ? Severity.warning : Severity.normal,
    });
  }
}
