// The kube-proxy stand-in of the `local` runtime: watches Services and EndpointSlices with the
// project's supervised informers and keeps the node-address listeners (nodeport-standins.ts) in line
// with them and with the running nodes. Every change (a Service, a slice, a node starting or stopping)
// schedules one apply; changes arriving during an apply are coalesced into the next one.
import { CoreV1Api, DiscoveryV1Api, makeInformer, type KubeConfig, type V1EndpointSlice, type V1Service } from '@kubernetes/client-node';
import { createLogger, type Logger } from '../../src/telemetry/logger.ts';
import type { Clock } from '../../src/kube/clock.ts';
import { serviceInformer, SupervisedInformer } from '../../src/kube/informer.ts';
import { NodePortStandIns, type StandInNode } from './nodeport-standins.ts';
import { buildProxyTable } from './proxy-table.ts';

export interface KubeProxyStandInOptions {
  readonly kubeConfig: KubeConfig;
  /** The running nodes and the addresses they answer on. */
  readonly nodes: () => readonly StandInNode[];
  readonly onError?: (message: string) => void;
  readonly clock?: Clock;
}

export class KubeProxyStandIn {
  readonly #opts: KubeProxyStandInOptions;
  readonly #services: SupervisedInformer<V1Service>;
  readonly #slices: SupervisedInformer<V1EndpointSlice>;
  readonly #listeners: NodePortStandIns;
  readonly #stop = new AbortController();
  #runs: Promise<void>[] = [];
  #dirty = false;
  #applying: Promise<void> | undefined;

  constructor(options: KubeProxyStandInOptions) {
    this.#opts = options;
    const logger = warningsTo(options.onError);
    const core = options.kubeConfig.makeApiClient(CoreV1Api);
    const discovery = options.kubeConfig.makeApiClient(DiscoveryV1Api);
    const clock = options.clock;
    this.#services = serviceInformer({ kubeConfig: options.kubeConfig, core, logger, ...(clock ? { clock } : {}) });
    this.#slices = new SupervisedInformer<V1EndpointSlice>({
      name: 'endpointslices',
      makeListWatch: () => makeInformer<V1EndpointSlice>(options.kubeConfig, '/apis/discovery.k8s.io/v1/endpointslices', () => discovery.listEndpointSliceForAllNamespaces()),
      logger,
      ...(clock ? { clock } : {}),
    });
    this.#listeners = new NodePortStandIns({ ...(options.onError ? { onError: options.onError } : {}), ...(clock ? { clock } : {}) });
    const changed = { onAdd: () => this.#schedule(), onUpdate: () => this.#schedule(), onDelete: () => this.#schedule() };
    this.#services.addEventHandler(changed);
    this.#slices.addEventHandler(changed);
  }

  /** Starts watching; resolves once both caches are synced and the first apply is done. */
  async start(): Promise<void> {
    this.#runs = [this.#services.run(this.#stop.signal), this.#slices.run(this.#stop.signal)];
    await Promise.all([this.#services.waitForSync(this.#stop.signal), this.#slices.waitForSync(this.#stop.signal)]);
    this.#schedule();
    await this.settled();
  }

  /** The running nodes changed (a kubelet started, stopped or left). */
  nodesChanged(): void {
    this.#schedule();
  }

  /** Resolves when no apply is pending. */
  async settled(): Promise<void> {
    while (this.#applying) await this.#applying;
  }

  /** Addresses listened on, as "ip:port". */
  listening(): string[] {
    return this.#listeners.listening();
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await Promise.all(this.#runs);
    await this.settled();
    await this.#listeners.close();
  }

  #schedule(): void {
    if (!this.#services.hasSynced() || !this.#slices.hasSynced() || this.#stop.signal.aborted) return;
    this.#dirty = true;
    this.#applying ??= this.#drain().finally(() => {
      this.#applying = undefined;
      // A change that arrived after the loop's last check but before this line.
      if (this.#dirty) this.#schedule();
    });
  }

  async #drain(): Promise<void> {
    while (this.#dirty && !this.#stop.signal.aborted) {
      this.#dirty = false;
      try {
        await this.#listeners.apply(this.#opts.nodes(), buildProxyTable(this.#services.list(), this.#slices.list()));
      } catch (err) {
        this.#opts.onError?.(`kube-proxy stand-in: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
}

/** A logger whose warnings and errors reach `onError` as one line each (informer restarts, mostly). */
function warningsTo(onError: ((message: string) => void) | undefined): Logger {
  return createLogger({
    name: 'kube-proxy-stand-in',
    level: onError ? 'warn' : 'silent',
    destination: { write: (line: string) => onError?.(messageOf(line)) },
  });
}

function messageOf(line: string): string {
  try {
    const parsed = JSON.parse(line) as { msg?: unknown };
    return typeof parsed.msg === 'string' ? parsed.msg : line.trim();
  } catch {
    return line.trim();
  }
}
