// The virtual kubelets of the `local` runtime, driven by simcloud servers (level-triggered): every server
// carrying the cluster's label has a kubelet whose Node has the server's name. A running server's kubelet
// heartbeats; an off, stopping or deleted server's kubelet is silent (the node-lifecycle controller marks
// the Node NotReady, the CCM then taints or deletes it); powering on brings it back. A server created later
// with the cluster label joins as a new Node, as a VM booting with a kubelet would.
import type { KubeConfig } from '@kubernetes/client-node';
import { VirtualKubelet } from './virtual-kubelet.ts';

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
  /** The kubelet's --node-labels for a server's node (e.g. the control-plane role labels kubeadm adds). */
  readonly nodeLabels?: (server: FleetServer) => Record<string, string>;
  /** Called after a kubelet starts, stops or resumes (for logs and the NodePort stand-ins). */
  readonly onChange?: () => void;
}

/** Server states in which the machine, and so its kubelet, is up. */
const UP_STATES = new Set(['running']);

export class KubeletFleet {
  readonly #opts: KubeletFleetOptions;
  readonly #kubelets = new Map<string, { kubelet: VirtualKubelet; server: FleetServer }>();
  #syncing: Promise<void> = Promise.resolve();

  constructor(options: KubeletFleetOptions) {
    this.#opts = options;
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
      .map(({ server }) => ({ name: server.name, ips: [server.private_ipv4, server.public_ipv4].filter((ip): ip is string => ip !== null) }));
  }

  close(): void {
    for (const { kubelet } of this.#kubelets.values()) kubelet.close();
    this.#kubelets.clear();
  }

  async #sync(servers: readonly FleetServer[]): Promise<void> {
    const { key, value } = this.#opts.clusterLabel;
    const mine = servers.filter((s) => s.labels[key] === value);
    const seen = new Set(mine.map((s) => s.name));
    for (const [name, entry] of this.#kubelets) {
      if (seen.has(name)) continue;
      // The server is gone: the machine is gone, so is its kubelet. The Node stays until the CCM deletes it.
      entry.kubelet.close();
      this.#kubelets.delete(name);
      this.#opts.onChange?.();
    }
    await Promise.all(mine.map((server) => this.#syncOne(server)));
  }

  async #syncOne(server: FleetServer): Promise<void> {
    const up = UP_STATES.has(server.status);
    let entry = this.#kubelets.get(server.name);
    if (!entry) {
      if (!up) return;
      const kubelet = new VirtualKubelet({
        kubeConfig: this.#opts.kubeConfig,
        nodeName: server.name,
        labels: this.#opts.nodeLabels?.(server) ?? {},
        renewIntervalMs: this.#opts.renewIntervalMs ?? 2000,
        onError: (err) => this.#opts.onError?.(err, server.name),
      });
      entry = { kubelet, server };
      this.#kubelets.set(server.name, entry);
    }
    entry.server = server;
    try {
      await this.#apply(entry.kubelet, up);
    } catch (err) {
      this.#opts.onError?.(err, server.name);
    }
  }

  async #apply(kubelet: VirtualKubelet, up: boolean): Promise<void> {
    if (up && !kubelet.running) {
      if (kubelet.started) await kubelet.resume();
      else await kubelet.start();
      this.#opts.onChange?.();
    } else if (!up && kubelet.running) {
      kubelet.stop();
      this.#opts.onChange?.();
    }
  }
}
