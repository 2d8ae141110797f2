// The virtual kubelets of the `local` runtime, driven by simcloud servers (level-triggered): every server
// carrying the cluster's label has a kubelet whose Node has the server's name when the kubelet first
// registered (a machine's hostname: renaming the server through a cloud API later, as Linode's e2e suite
// does, leaves the Node's name as it is, as on a real cloud). A running server's kubelet
// heartbeats; an off, stopping or deleted server's kubelet is silent (the node-lifecycle controller marks
// the Node NotReady, the CCM then taints or deletes it); powering on brings it back. A server created later
// with the cluster label joins as a new Node, as a VM booting with a kubelet would. The fleet's PodRunner
// runs the pods bound to nodes whose kubelet is up. A kubelet whose server has a loopback public address (the
// Node's ExternalIP once the CCM sets it) serves the kubelet API there while it is up (kubelet-api.ts).
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../../src/kube/logger.ts';
import { mapWithConcurrency } from '../../lib/concurrency.ts';
import { Semaphore } from '../../lib/semaphore.ts';
import { isLoopback } from '../../lib/ip.ts';
import type { ContainerRuntime } from './containers/runtime.ts';
import { PodRunner } from './pod-runner.ts';
import type { KubeletIdentity } from './node-object.ts';
import { VirtualKubelet, type KubeletApiHandle } from './virtual-kubelet.ts';

export interface FleetServer {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly public_ipv4: string | null;
  readonly private_ipv4: string | null;
  readonly labels: Readonly<Record<string, string>>;
}

export interface KubeletFleetOptions {
  readonly kubeConfig: KubeConfig;
  /** Servers with this label key = value belong to the cluster. */
  readonly clusterLabel: { readonly key: string; readonly value: string };
  readonly renewIntervalMs?: number;
  readonly onError?: (err: unknown, nodeName: string) => void;
  /** The kubelet's --node-labels and --register-with-taints for a server's node (e.g. what kubeadm puts on a control-plane node). */
  readonly registration?: (server: FleetServer) => Pick<KubeletIdentity, 'labels' | 'registerWithTaints' | 'providerID'>;
  /** Called after a kubelet starts, stops or resumes (for logs and the NodePort stand-ins). */
  readonly onChange?: () => void;
  /**
   * For thousands of kubelets: one fleet-wide timer renews every running kubelet's Lease once per
   * `intervalMs` (one PUT each, at most `concurrency` in flight) instead of a timer, a Node read and a
   * Lease read per kubelet. The renewals are spread over the interval in slices, as kubelets started at
   * different moments renew at different moments.
   */
  readonly sharedHeartbeat?: { readonly intervalMs: number; readonly concurrency?: number };
  /** At most this many kubelets registering at once (default unbounded). */
  readonly startConcurrency?: number;
  /** Run the pods bound to the fleet's nodes (default true). */
  readonly runPods?: boolean;
  /** For the pod runner's informer and retry logs. */
  readonly logger?: Logger;
  /** Runs the containers of runnable images as processes (default: every pod simulated). */
  readonly containers?: ContainerRuntime;
  /** Makes a node's kubelet API on its machine's loopback public address (default: none, port 10250 refused). */
  readonly kubeletApi?: (nodeName: string, address: string) => KubeletApiHandle;
}

/**
 * Slices of one renewal interval: each tick renews the kubelets of one slice. One burst of every Lease per
 * interval (thousands of PUTs at 1 000 nodes, seconds of apiserver work) made the load a measurement met
 * depend on where in the cycle it started.
 */
export const RENEWAL_SLICES = 20;

/** Server states in which the machine, and so its kubelet, is up. */
const UP_STATES = new Set(['running']);

export class KubeletFleet {
  readonly #opts: KubeletFleetOptions;
  /** By server id: the Node's name is the kubelet's, fixed when it was made. */
  readonly #kubelets = new Map<string, { kubelet: VirtualKubelet; server: FleetServer; slice: number }>();
  /** The renewal slice the next new kubelet joins (round robin, so the slices stay even). */
  #nextSlice = 0;
  /** One promise chain per server id, so a kubelet is never started twice by concurrent updates. */
  readonly #chains = new Map<string, Promise<void>>();
  readonly #startSlots: Semaphore;
  #syncing: Promise<void> = Promise.resolve();
  /** Nodes whose kubelet is held silent while their machine runs (a hung kubelet, a partitioned node). */
  readonly #silenced = new Set<string>();
  #renewTimer: NodeJS.Timeout | undefined;
  readonly #pods: PodRunner | undefined;

  constructor(options: KubeletFleetOptions) {
    this.#opts = options;
    this.#startSlots = new Semaphore(options.startConcurrency ?? Infinity);
    if (options.sharedHeartbeat) this.#scheduleRenewal(options.sharedHeartbeat.intervalMs);
    if (options.runPods !== false) {
      this.#pods = new PodRunner({
        kubeConfig: options.kubeConfig,
        kubeletRunning: (name) => this.isRunning(name),
        machineAddress: (name) => {
          const server = this.#entryOf(name)?.server;
          return server?.private_ipv4 ?? server?.public_ipv4 ?? undefined;
        },
        ...(options.logger ? { logger: options.logger } : {}),
        ...(options.containers ? { containers: options.containers } : {}),
      });
      this.#pods.start();
    }
  }

  /** Whether the node's kubelet is up (its server is running). */
  isRunning(nodeName: string): boolean {
    return this.#entryOf(nodeName)?.kubelet.running ?? false;
  }

  #entryOf(nodeName: string): { kubelet: VirtualKubelet; server: FleetServer; slice: number } | undefined {
    for (const entry of this.#kubelets.values()) if (entry.kubelet.nodeName === nodeName) return entry;
    return undefined;
  }

  /** The fleet's pod runner (absent with runPods: false). */
  get pods(): PodRunner | undefined {
    return this.#pods;
  }

  /** Applies one server's current state (from the cloud's event stream); no full listing needed. */
  upsert(server: FleetServer): Promise<void> {
    const { key, value } = this.#opts.clusterLabel;
    if (server.labels[key] !== value) return Promise.resolve();
    return this.#chain(server.id, () => this.#syncOne(server));
  }

  /** The server with this id is gone: its kubelet stops for good (the Node stays). */
  remove(serverId: string): void {
    const entry = this.#kubelets.get(serverId);
    if (entry === undefined) return;
    entry.kubelet.close();
    this.#kubelets.delete(serverId);
    this.#opts.onChange?.();
  }

  /**
   * Holds a node's kubelet silent while its server keeps running (`silent`), or lets it follow its server
   * again: the Node goes NotReady with its machine up, as after a kubelet hang or a network partition.
   */
  silence(nodeName: string, silent: boolean): Promise<void> {
    if (silent) this.#silenced.add(nodeName);
    else this.#silenced.delete(nodeName);
    const entry = this.#entryOf(nodeName);
    return entry ? this.#chain(entry.server.id, () => this.#syncOne(entry.server)) : Promise.resolve();
  }

  /** Number of kubelets (running or silent). */
  get size(): number {
    return this.#kubelets.size;
  }

  /** Brings the kubelets in line with the given server list. Calls are serialised. */
  sync(servers: readonly FleetServer[]): Promise<void> {
    this.#syncing = this.#syncing.then(() => this.#sync(servers));
    return this.#syncing;
  }

  /** Running nodes and the addresses their machines answer on. */
  runningNodes(): { name: string; ips: string[] }[] {
    return [...this.#kubelets.values()]
      .filter(({ kubelet }) => kubelet.running)
      .map(({ kubelet, server }) => ({ name: kubelet.nodeName, ips: [server.private_ipv4, server.public_ipv4].filter((ip): ip is string => ip !== null) }));
  }

  /** Stops for good; resolves once the containers that ran as processes have stopped. */
  async close(): Promise<void> {
    if (this.#renewTimer) clearTimeout(this.#renewTimer);
    this.#renewTimer = undefined;
    this.#pods?.close();
    for (const { kubelet } of this.#kubelets.values()) kubelet.close();
    this.#kubelets.clear();
    await this.#opts.containers?.stopAll();
  }

  async #sync(servers: readonly FleetServer[]): Promise<void> {
    const { key, value } = this.#opts.clusterLabel;
    const mine = servers.filter((s) => s.labels[key] === value);
    const seen = new Set(mine.map((s) => s.id));
    for (const [id, entry] of this.#kubelets) {
      if (seen.has(id)) continue;
      // The server is gone: the machine is gone, so is its kubelet. The Node stays until the CCM deletes it.
      entry.kubelet.close();
      this.#kubelets.delete(id);
      this.#opts.onChange?.();
    }
    await Promise.all(mine.map((server) => this.#chain(server.id, () => this.#syncOne(server))));
  }

  #chain(serverId: string, fn: () => Promise<void>): Promise<void> {
    const next = (this.#chains.get(serverId) ?? Promise.resolve()).then(fn);
    this.#chains.set(serverId, next);
    void next.finally(() => {
      if (this.#chains.get(serverId) === next) this.#chains.delete(serverId);
    });
    return next;
  }

  #scheduleRenewal(intervalMs: number, tick = 0): void {
    this.#renewTimer = setTimeout(() => {
      void this.#renewSlice(tick % RENEWAL_SLICES).finally(() => {
        if (this.#renewTimer) this.#scheduleRenewal(intervalMs, tick + 1);
      });
    }, intervalMs / RENEWAL_SLICES);
    this.#renewTimer.unref();
  }

  async #renewSlice(slice: number): Promise<void> {
    const running = [...this.#kubelets.values()].filter((entry) => entry.slice === slice && entry.kubelet.running);
    const limit = Math.max(1, this.#opts.sharedHeartbeat?.concurrency ?? 16);
    await mapWithConcurrency(running, limit, (entry) => entry.kubelet.renewLease().catch((err: unknown) => this.#opts.onError?.(err, entry.kubelet.nodeName)));
  }

  async #syncOne(server: FleetServer): Promise<void> {
    let entry = this.#kubelets.get(server.id);
    const nodeName = entry?.kubelet.nodeName ?? server.name;
    const up = UP_STATES.has(server.status) && !this.#silenced.has(nodeName);
    if (!entry) {
      if (!up) return;
      entry = { kubelet: this.#newKubelet(server, nodeName), server, slice: this.#nextSlice };
      this.#nextSlice = (this.#nextSlice + 1) % RENEWAL_SLICES;
      this.#kubelets.set(server.id, entry);
    }
    entry.server = server;
    try {
      await this.#apply(entry.kubelet, up);
    } catch (err) {
      this.#opts.onError?.(err, nodeName);
    }
  }

  #newKubelet(server: FleetServer, nodeName: string): VirtualKubelet {
    const address = server.public_ipv4;
    const api = address !== null && isLoopback(address) ? this.#opts.kubeletApi?.(nodeName, address) : undefined;
    return new VirtualKubelet({
      kubeConfig: this.#opts.kubeConfig,
      nodeName,
      ...(api ? { api } : {}),
      ...this.#opts.registration?.(server),
      renewIntervalMs: this.#opts.renewIntervalMs ?? 2000,
      externalHeartbeat: this.#opts.sharedHeartbeat !== undefined,
      onError: (err) => this.#opts.onError?.(err, nodeName),
    });
  }

  async #apply(kubelet: VirtualKubelet, up: boolean): Promise<void> {
    if (up && !kubelet.running) {
      await this.#startSlots.run(() => (kubelet.started ? kubelet.resume() : kubelet.start().then(() => undefined)));
      // Back (or new): the kubelet catches up with the pods bound to its node.
      this.#pods?.nodeChanged(kubelet.nodeName);
      this.#opts.onChange?.();
    } else if (!up && kubelet.running) {
      kubelet.stop();
      this.#opts.onChange?.();
    }
  }
}
