// The kube-proxy stand-in of the `local` runtime: watches Services and EndpointSlices with the
// project's supervised informers and keeps the node-address listeners (nodeport-standins.ts) in line
// with them and with the running nodes. Every change (a Service, a slice, a node starting or stopping)
// schedules one apply; changes arriving during an apply are coalesced into the next one. With a pod
// source, an endpoint's pod answers as its image does (images/replies.ts); pods are looked up per
// connection and schedule nothing.
import { CoreV1Api, DiscoveryV1Api, makeInformer, type KubeConfig, type V1EndpointSlice, type V1Pod, type V1Service } from '@kubernetes/client-node';
import { createLogger, type Logger } from '../../src/telemetry/logger.ts';
import type { Clock } from '../../src/kube/clock.ts';
import type { SharedInformer } from '../../src/kube/shared-informer.ts';
import { SupervisedInformer } from '../../src/kube/informer.ts';
import { ImageReplies, loadImageTable } from './images/replies.ts';
import { NodePortStandIns, type StandInNode } from './nodeport-standins.ts';
import { withAnnounced } from './kube-vip.ts';
import { buildProxyTable } from './proxy-table.ts';

/** Where Services and EndpointSlices come from: the apiserver's watches, or in-memory informers in tests. */
export interface ProxySources {
  readonly services: SharedInformer<V1Service>;
  readonly slices: SharedInformer<V1EndpointSlice>;
  /** The pods behind endpoints, for their image's replies; without it every endpoint gets the stand-in's reply. */
  readonly pods?: SharedInformer<V1Pod>;
  /** Runs the watches until the signal aborts; absent for sources that need no running. */
  readonly run?: (signal: AbortSignal) => Promise<void>[];
}

export type KubeProxyStandInOptions = {
  /** The running nodes and the addresses they answer on. */
  readonly nodes: () => readonly StandInNode[];
  readonly onError?: (message: string) => void;
  readonly clock?: Clock;
  /** Where kube-proxy's own health server answers on every node (default 10256). */
  readonly proxierHealthPort?: number;
  /** A table of the user's own images (YAML or JSON) ahead of the built-in one; a bad file throws ImageTableError. */
  readonly imageTableFile?: string;
  /** Run the kube-vip stand-in too (kube-vip.ts): a node announces each Service's loadBalancerIP. */
  readonly kubeVip?: boolean;
} & ({ readonly kubeConfig: KubeConfig } | { readonly sources: ProxySources });

export class KubeProxyStandIn {
  readonly #opts: KubeProxyStandInOptions;
  readonly #sources: ProxySources;
  readonly #listeners: NodePortStandIns;
  readonly #stop = new AbortController();
  #runs: Promise<void>[] = [];
  #dirty = false;
  #applying: Promise<void> | undefined;

  constructor(options: KubeProxyStandInOptions) {
    this.#opts = options;
    const clock = options.clock;
    this.#sources = 'sources' in options ? options.sources : apiSources(options.kubeConfig, warningsTo(options.onError), clock);
    const pods = this.#sources.pods;
    const images = pods
      ? { pods: (ns: string, name: string) => pods.get(`${ns}/${name}`), images: new ImageReplies(loadImageTable(options.imageTableFile), options.onError) }
      : {};
    this.#listeners = new NodePortStandIns({
      ...(options.onError ? { onError: options.onError } : {}),
      ...(clock ? { clock } : {}),
      ...images,
      ...(options.proxierHealthPort !== undefined ? { proxierHealthPort: options.proxierHealthPort } : {}),
    });
    const changed = { onAdd: () => this.#schedule(), onUpdate: () => this.#schedule(), onDelete: () => this.#schedule() };
    this.#sources.services.addEventHandler(changed);
    this.#sources.slices.addEventHandler(changed);
  }

  /** Starts watching; resolves once both caches are synced and the first apply is done. */
  async start(): Promise<void> {
    const { services, slices, pods, run } = this.#sources;
    this.#runs = run?.(this.#stop.signal) ?? [];
    await Promise.all([services, slices, ...(pods ? [pods] : [])].map((i) => i.waitForSync(this.#stop.signal)));
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
    const { services, slices } = this.#sources;
    if (!services.hasSynced() || !slices.hasSynced() || this.#stop.signal.aborted) return;
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
        const services = this.#sources.services.list();
        const nodes = this.#opts.kubeVip === true ? withAnnounced(this.#opts.nodes(), services) : this.#opts.nodes();
        await this.#listeners.apply(nodes, buildProxyTable(services, this.#sources.slices.list()));
      } catch (err) {
        this.#opts.onError?.(`kube-proxy stand-in: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
}

/** Supervised informers over the apiserver's Services, EndpointSlices and Pods (all namespaces). */
function apiSources(kubeConfig: KubeConfig, logger: Logger, clock: Clock | undefined): ProxySources {
  const timing = clock ? { clock } : {};
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const discovery = kubeConfig.makeApiClient(DiscoveryV1Api);
  const services = new SupervisedInformer<V1Service>({
    name: 'services',
    makeListWatch: () => makeInformer<V1Service>(kubeConfig, '/api/v1/services', () => core.listServiceForAllNamespaces()),
    logger,
    ...timing,
  });
  const slices = new SupervisedInformer<V1EndpointSlice>({
    name: 'endpointslices',
    makeListWatch: () =>
      makeInformer<V1EndpointSlice>(kubeConfig, '/apis/discovery.k8s.io/v1/endpointslices', () => discovery.listEndpointSliceForAllNamespaces()),
    logger,
    ...timing,
  });
  const pods = new SupervisedInformer<V1Pod>({
    name: 'pods',
    makeListWatch: () => makeInformer<V1Pod>(kubeConfig, '/api/v1/pods', () => core.listPodForAllNamespaces()),
    logger,
    ...timing,
  });
  return { services, slices, pods, run: (signal) => [services.run(signal), slices.run(signal), pods.run(signal)] };
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
