// The pod half of the virtual kubelets: one controller for the whole fleet (two informers, one work queue)
// that does for every pod bound to a node what that node's kubelet would do, but only while that kubelet is
// up: it "runs" the pod (Running, Ready, an IP from the node's podCIDR), completes a Job's pod, and finishes
// a deletion the way a kubelet does once the containers have stopped (delete with grace period 0). A
// silent kubelet (server off or gone) does none of this, so its pods stay as the control plane left them:
// marked not ready by node-lifecycle, evicted by taint-eviction, Terminating until the Node is deleted and
// pod garbage collection removes them, as on a real cluster. Pod IPs are data only; nothing dials them.
import { ApiException, CoreV1Api, PatchStrategy, makeInformer, setHeaderOptions, type KubeConfig, type V1Node, type V1Pod } from '@kubernetes/client-node';
import { pino } from 'pino';
import { firstFree } from '../../simulator/server/ipam.ts';
import { realClock } from '../../src/kube/clock.ts';
import { SupervisedInformer } from '../../src/kube/informer.ts';
import { objectKey, splitKey } from '../../src/kube/keys.ts';
import type { Logger } from '../../src/kube/logger.ts';
import { runWorker } from '../../src/kube/run.ts';
import { WorkQueue } from '../../src/kube/workqueue/queue.ts';
import { defaultControllerRateLimiter } from '../../src/kube/workqueue/rate-limiter.ts';
import type { ContainerRuntime } from './containers/runtime.ts';
import { nextStep, nodeFacts, runningStatus, statusDigest, succeededStatus, type PodAddresses, type PodStep } from './pod-status.ts';

export interface PodRunnerOptions {
  readonly kubeConfig: KubeConfig;
  /** Whether the kubelet of this node is up; a silent kubelet leaves its pods alone. */
  readonly kubeletRunning: (nodeName: string) => boolean;
  readonly logger?: Logger;
  /** Pods handled at once (default 8). */
  readonly workers?: number;
  /** Runs the containers of runnable images as processes (containers/runtime.ts); without it every pod is simulated. */
  readonly containers?: ContainerRuntime;
  /** The address the node's machine has, for hostNetwork pods before the Node has one (a kubelet knows its own). */
  readonly machineAddress?: (nodeName: string) => string | undefined;
}

export class PodRunnerError extends Error {
  override name = 'PodRunnerError';
}

const isStatus = (err: unknown, code: number): boolean => err instanceof ApiException && err.code === code;

/** The pod's grace period for its containers (its deletion's, else its spec's, else Kubernetes' 30 s). */
function graceMs(pod: V1Pod): number {
  return (pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30) * 1000;
}

export class PodRunner {
  readonly #opts: PodRunnerOptions;
  readonly #core: CoreV1Api;
  readonly #pods: SupervisedInformer<V1Pod>;
  readonly #nodes: SupervisedInformer<V1Node>;
  readonly #queue = new WorkQueue({ name: 'pods', rateLimiter: defaultControllerRateLimiter(realClock) });
  readonly #abort = new AbortController();
  readonly #logger: Logger;
  /** Pod keys by node name, and the pod IPs in use on each node (key by IP). */
  readonly #podsOnNode = new Map<string, Set<string>>();
  readonly #ipsOnNode = new Map<string, Map<string, string>>();

  constructor(options: PodRunnerOptions) {
    this.#opts = options;
    this.#logger = options.logger ?? pino({ level: 'silent' });
    this.#core = options.kubeConfig.makeApiClient(CoreV1Api);
    const kc = options.kubeConfig;
    this.#pods = new SupervisedInformer<V1Pod>({
      name: 'pods',
      makeListWatch: () => makeInformer<V1Pod>(kc, '/api/v1/pods', () => this.#core.listPodForAllNamespaces()),
      logger: this.#logger,
    });
    this.#nodes = new SupervisedInformer<V1Node>({
      name: 'nodes',
      makeListWatch: () => makeInformer<V1Node>(kc, '/api/v1/nodes', () => this.#core.listNode()),
      logger: this.#logger,
    });
  }

  /** Starts watching; pods are handled once both caches have synced (so no IP in use is handed out twice). */
  start(): void {
    const signal = this.#abort.signal;
    this.#pods.addEventHandler({ onAdd: (p) => this.#track(p), onUpdate: (_, p) => this.#track(p), onDelete: (p) => this.#forget(p) });
    // A podCIDR or address arriving on a Node lets its waiting pods start.
    this.#nodes.addEventHandler({ onAdd: (n) => this.nodeChanged(n.metadata?.name ?? ''), onUpdate: (_, n) => this.nodeChanged(n.metadata?.name ?? '') });
    void this.#pods.run(signal);
    void this.#nodes.run(signal);
    void (async () => {
      if (!(await this.#pods.waitForSync(signal)) || !(await this.#nodes.waitForSync(signal))) return;
      const sync = (key: string): Promise<void> => this.#sync(key);
      for (let i = 0; i < (this.#opts.workers ?? 8); i++)
        void runWorker({ controller: 'virtual-kubelet-pods', queue: this.#queue, sync, clock: realClock, logger: this.#logger });
    })();
  }

  /** Re-examines every pod on the node (its kubelet came back, or the Node changed). */
  nodeChanged(nodeName: string): void {
    for (const key of this.#podsOnNode.get(nodeName) ?? []) this.#queue.add(key);
  }

  /** One pod's state changed outside the API (a container started, exited, became ready). */
  podChanged(key: string): void {
    this.#queue.add(key);
  }

  /** Pods bound to the node (from the cache), for status and tests. */
  podsOn(nodeName: string): V1Pod[] {
    return [...(this.#podsOnNode.get(nodeName) ?? [])].flatMap((k) => this.#pods.get(k) ?? []);
  }

  close(): void {
    this.#abort.abort();
    this.#queue.shutDown();
  }

  #track(pod: V1Pod): void {
    const node = pod.spec?.nodeName;
    if (!node) return;
    const key = objectKey(pod);
    let keys = this.#podsOnNode.get(node);
    if (!keys) this.#podsOnNode.set(node, (keys = new Set<string>()));
    keys.add(key);
    const ip = pod.status?.podIP;
    if (ip && !pod.spec?.hostNetwork) this.#ips(node).set(ip, key);
    this.#queue.add(key);
  }

  #forget(pod: V1Pod): void {
    const node = pod.spec?.nodeName;
    if (!node) return;
    const key = objectKey(pod);
    this.#podsOnNode.get(node)?.delete(key);
    // Gone from the API (deleted with no grace, or its node's deletion finished): its processes stop too.
    void this.#opts.containers?.stop(key, graceMs(pod)).catch((err: unknown) => this.#logger.error({ err, pod: key }, 'stopping containers'));
    const ips = this.#ips(node);
    for (const [ip, owner] of ips) if (owner === key) ips.delete(ip);
  }

  #ips(node: string): Map<string, string> {
    let ips = this.#ipsOnNode.get(node);
    if (!ips) this.#ipsOnNode.set(node, (ips = new Map<string, string>()));
    return ips;
  }

  async #sync(key: string): Promise<void> {
    const pod = this.#pods.get(key);
    const node = pod?.spec?.nodeName;
    if (!pod || !node || !this.#opts.kubeletRunning(node)) return;
    const step = nextStep(pod);
    if (step === 'finish-deletion') await this.#finishDeletion(pod);
    else if (this.#opts.containers?.runs(pod)) await this.#runLive(pod, node, this.#opts.containers);
    else await this.#simulate(pod, node, step);
  }

  async #simulate(pod: V1Pod, node: string, step: PodStep): Promise<void> {
    if (step === 'complete') await this.#patchStatus(pod, succeededStatus(pod, new Date()));
    else if (step === 'run') await this.#run(pod, node);
  }

  async #run(pod: V1Pod, node: string): Promise<void> {
    const { hostIP, podCIDR } = nodeFacts(this.#nodes.get(node));
    // Like a kubelet, no pod starts before the Node has an address (the CCM sets it) and a podCIDR
    // (node-ipam): the Node's update re-queues the pod.
    if (!hostIP) return;
    const podIP = pod.spec?.hostNetwork ? hostIP : (pod.status?.podIP ?? this.#allocate(node, objectKey(pod), podCIDR));
    if (!podIP) return;
    await this.#patchStatus(pod, runningStatus(pod, { podIP, hostIP }, new Date()));
  }

  /** A pod with processes: started as needed, its status what they report (a write only when it changed). */
  async #runLive(pod: V1Pod, node: string, containers: ContainerRuntime): Promise<void> {
    // A pod that has ended stays as it ended.
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return;
    const addresses = this.#addresses(pod, node);
    if (!addresses) return;
    const status = runningStatus(pod, addresses, new Date(), await containers.sync(pod));
    if (statusDigest(status) !== statusDigest(pod.status)) await this.#patchStatus(pod, status);
  }

  /** The pod's and its node's address; a hostNetwork pod's is the machine's own, known before the Node has one. */
  #addresses(pod: V1Pod, node: string): PodAddresses | undefined {
    const facts = nodeFacts(this.#nodes.get(node));
    const hostNetwork = pod.spec?.hostNetwork === true;
    const hostIP = facts.hostIP ?? (hostNetwork ? this.#opts.machineAddress?.(node) : undefined);
    if (!hostIP) return undefined;
    const podIP = hostNetwork ? hostIP : (pod.status?.podIP ?? this.#allocate(node, objectKey(pod), facts.podCIDR));
    return podIP ? { podIP, hostIP } : undefined;
  }

  #allocate(node: string, key: string, podCIDR: string | undefined): string | undefined {
    if (!podCIDR) return undefined;
    const ips = this.#ips(node);
    // A failed status write keeps the pod's address for the retry.
    for (const [ip, owner] of ips) if (owner === key) return ip;
    // The first host address is the node's bridge (gateway), as with the usual CNI plugins.
    const ip = firstFree(podCIDR, (candidate) => ips.has(candidate), true);
    if (!ip) throw new PodRunnerError(`no free pod IP left in ${podCIDR} on node ${node}`);
    ips.set(ip, key);
    return ip;
  }

  async #patchStatus(pod: V1Pod, status: V1Pod['status']): Promise<void> {
    const { namespace, name } = splitKey(objectKey(pod));
    try {
      await this.#core.patchNamespacedPodStatus(
        { name, namespace, body: { metadata: { uid: pod.metadata?.uid }, status } },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      );
    } catch (err) {
      // Gone (or replaced by a namesake) meanwhile: nothing left to run.
      if (!isStatus(err, 404) && !isStatus(err, 409)) throw err;
    }
  }

  async #finishDeletion(pod: V1Pod): Promise<void> {
    const key = objectKey(pod);
    // A kubelet finishes a deletion once the containers have stopped (SIGTERM, the grace period, SIGKILL).
    await this.#opts.containers?.stop(key, graceMs(pod));
    const { namespace, name } = splitKey(key);
    try {
      await this.#core.deleteNamespacedPod({
        name,
        namespace,
        gracePeriodSeconds: 0,
        body: { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata?.uid } },
      });
    } catch (err) {
      if (!isStatus(err, 404) && !isStatus(err, 409)) throw err;
    }
  }
}
