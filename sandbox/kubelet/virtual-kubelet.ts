// A virtual kubelet: no containers, just the part of a kubelet the control plane and a CCM can
// see. It registers its Node the way a kubelet with --cloud-provider=external does (node-object.ts),
// keeps its Lease in kube-node-lease renewed and its Ready condition fresh. stop() makes it go silent
// (the node-lifecycle controller then marks the Node Ready=Unknown); resume() brings it back, posting
// Ready=True as a restarted kubelet would. Addresses already on the Node are never touched (the CCM's win).
// With an API (kubelet-api.ts) it serves while it runs, and posts the API's port in the Node's daemonEndpoints.
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  PatchStrategy,
  V1MicroTime,
  setHeaderOptions,
  type KubeConfig,
  type V1Lease,
  type V1Node,
} from '@kubernetes/client-node';
import { daemonEndpoints, NODE_LEASE_NAMESPACE, nodeLease, readyCondition, registrationNode, type KubeletIdentity } from './node-object.ts';

/** The kubelet's HTTPS API (kubelet-api.ts): serving while the kubelet runs. */
export interface KubeletApiHandle {
  /** Listens; answers the port. */
  start(): Promise<number>;
  stop(): Promise<void>;
}

export interface VirtualKubeletOptions extends KubeletIdentity {
  readonly kubeConfig: KubeConfig;
  /** Lease duration written into the Lease (kubelet default 40 s). */
  readonly leaseDurationSeconds?: number;
  /** How often the Lease is renewed (kubelet default: a quarter of the duration, 10 s). */
  readonly renewIntervalMs?: number;
  /** Reports errors that a real kubelet would log and retry. */
  readonly onError?: (err: unknown) => void;
  /**
   * No timer of its own: the owner calls renewLease() (the fleet's shared renewer, for thousands of
   * kubelets). The Node's Ready condition is posted at registration and on resume only.
   */
  readonly externalHeartbeat?: boolean;
  /** Its API, started before it registers (the port goes in the Node) and stopped while it is silent. */
  readonly api?: KubeletApiHandle;
}

const isStatus = (err: unknown, code: number): boolean => err instanceof ApiException && err.code === code;

export class VirtualKubelet {
  readonly nodeName: string;
  readonly #opts: VirtualKubeletOptions;
  readonly #core: CoreV1Api;
  readonly #leases: CoordinationV1Api;
  #timer: NodeJS.Timeout | undefined;
  /** The Lease as last written (its resourceVersion lets a renewal be a single PUT). */
  #lease: V1Lease | undefined;
  #running = false;
  #started = false;
  /** Its API's port, once serving. */
  #port: number | undefined;
  #closed = false;

  constructor(options: VirtualKubeletOptions) {
    this.nodeName = options.nodeName;
    this.#opts = options;
    this.#core = options.kubeConfig.makeApiClient(CoreV1Api);
    this.#leases = options.kubeConfig.makeApiClient(CoordinationV1Api);
  }

  get running(): boolean {
    return this.#running;
  }

  /** Whether start() has succeeded once (later comebacks use resume()). */
  get started(): boolean {
    return this.#started;
  }

  /** Registers the Node (if it does not exist yet) and starts heartbeating. */
  async start(): Promise<V1Node> {
    await this.#serve();
    const node = await this.#postPort(await this.#register());
    await this.#heartbeat(node);
    this.#started = true;
    this.#running = true;
    this.#schedule();
    return node;
  }

  /** Goes silent, like a kubelet on a powered-off machine. */
  stop(): void {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#opts.api?.stop().catch((err: unknown) => this.#opts.onError?.(err));
  }

  /** Comes back like a kubelet after a reboot: re-registers if the Node was deleted, posts Ready=True. */
  async resume(): Promise<void> {
    if (this.#closed) throw new Error(`virtual kubelet ${this.nodeName} is closed`);
    await this.#serve();
    const node = await this.#postPort(await this.#register());
    await this.#postReady(true);
    await this.#heartbeat(node);
    this.#running = true;
    this.#schedule();
  }

  /** Stops for good. The Node stays; delete it separately if wanted. */
  close(): void {
    this.#closed = true;
    this.stop();
  }

  /** Starts the API; its port goes in the Node. */
  async #serve(): Promise<void> {
    if (this.#opts.api) this.#port = await this.#opts.api.start();
  }

  /** Posts the API's port if the Node (made before a restart, whose port was another) has another. */
  async #postPort(node: V1Node): Promise<V1Node> {
    const port = this.#port;
    if (port === undefined || node.status?.daemonEndpoints?.kubeletEndpoint?.Port === port) return node;
    return this.#core.patchNodeStatus(
      { name: this.nodeName, body: { status: { daemonEndpoints: daemonEndpoints(port) } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
  }

  async #register(): Promise<V1Node> {
    try {
      return await this.#core.readNode({ name: this.nodeName });
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
    }
    try {
      const identity = this.#port === undefined ? this.#opts : { ...this.#opts, kubeletPort: this.#port };
      return await this.#core.createNode({ body: registrationNode(identity, new Date()) });
    } catch (err) {
      if (!isStatus(err, 409)) throw err;
      return this.#core.readNode({ name: this.nodeName });
    }
  }

  /** One renewal of the Lease: a single PUT from the last written copy, else read + write or create. */
  async renewLease(): Promise<void> {
    if (!this.#running) return;
    const last = this.#lease;
    if (last?.spec) {
      const body: V1Lease = { ...last, spec: { ...last.spec, renewTime: new V1MicroTime(Date.now()) } };
      try {
        this.#lease = await this.#leases.replaceNamespacedLease({ name: this.nodeName, namespace: NODE_LEASE_NAMESPACE, body });
        return;
      } catch (err) {
        if (!isStatus(err, 409) && !isStatus(err, 404)) throw err;
      }
    }
    await this.#heartbeat(await this.#register());
  }

  #schedule(): void {
    if (this.#opts.externalHeartbeat) return;
    const interval = this.#opts.renewIntervalMs ?? 10_000;
    this.#timer = setTimeout(() => {
      void this.#tick().finally(() => {
        if (this.#running) this.#schedule();
      });
    }, interval);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    try {
      const node = await this.#core.readNode({ name: this.nodeName });
      if (!this.#running) return;
      await this.#heartbeat(node);
      if (readyStatus(node) !== 'True') await this.#postReady(true);
    } catch (err) {
      // A deleted Node is re-registered, as a running kubelet would after losing its Node object.
      if (isStatus(err, 404) && this.#running) await this.#register().catch((e: unknown) => this.#opts.onError?.(e));
      else this.#opts.onError?.(err);
    }
  }

  async #heartbeat(node: V1Node): Promise<void> {
    const lease = nodeLease(node, this.#opts.leaseDurationSeconds ?? 40, new Date());
    try {
      const current = await this.#leases.readNamespacedLease({ name: this.nodeName, namespace: NODE_LEASE_NAMESPACE });
      lease.metadata = { ...lease.metadata, resourceVersion: current.metadata?.resourceVersion };
      this.#lease = await this.#leases.replaceNamespacedLease({ name: this.nodeName, namespace: NODE_LEASE_NAMESPACE, body: lease });
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
      this.#lease = await this.#leases.createNamespacedLease({ namespace: NODE_LEASE_NAMESPACE, body: lease });
    }
  }

  async #postReady(ready: boolean): Promise<void> {
    await this.#core.patchNodeStatus(
      { name: this.nodeName, body: { status: { conditions: [readyCondition(ready, new Date())] } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
  }
}

export function readyStatus(node: V1Node): string {
  return node.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
}
