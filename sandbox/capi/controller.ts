// The sandbox's Cluster API controller (local runtime): the sandbox is its own management cluster. It
// installs the MachineDeployment and Machine CRDs (crds.ts), makes one MachineDeployment for the cluster's
// workers at `sandbox:up` with a Machine for each, and from then on keeps every MachineDeployment of this
// cluster at its replicas: a missing Machine is created, then its server, the way the sandbox makes its
// workers (the host's createWorker: through the cloud's persona), whose kubelet registers the Node; a
// surplus Machine is deleted, and its finalizer holds it until the server is deleted and the Node removed.
// Level-triggered and idempotent: every sync reads the deployment, its Machines, the servers and the Nodes
// afresh (machines.ts decides); a server create or delete runs in the background with exponential backoff
// per operation, and its end triggers the next sync. Events as Cluster API's MachineSet controller
// records them (SuccessfulCreate, SuccessfulDelete, FailedCreate, FailedDelete), logs through pino.
import { isDeepStrictEqual } from 'node:util';
import {
  ApiException,
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  makeInformer,
  setHeaderOptions,
  type CoreV1Event,
  type KubeConfig,
  type KubernetesObject,
  type V1ObjectReference,
} from '@kubernetes/client-node';
import { realClock, type Clock } from '../../src/kube/clock.ts';
import { KubeEventRecorder } from '../../src/kube/event-recorder.ts';
import { EventType } from '../../src/kube/events.ts';
import { SupervisedInformer } from '../../src/kube/informer.ts';
import { objectKey, splitKey } from '../../src/kube/keys.ts';
import type { Logger } from '../../src/kube/logger.ts';
import { runWorker } from '../../src/kube/run.ts';
import { WorkQueue } from '../../src/kube/workqueue/queue.ts';
import { defaultControllerRateLimiter, ItemExponentialFailureRateLimiter } from '../../src/kube/workqueue/rate-limiter.ts';
import { waitFor } from '../wait.ts';
import { CAPI_API_VERSION, CAPI_GROUP, CAPI_VERSION, CLUSTER_API_CRDS, PLURALS } from './crds.ts';
import {
  CAPI_LABELS,
  clusterDeployment,
  deleting,
  deploymentStatus,
  Machine,
  MACHINE_FINALIZER,
  machineStatus,
  MachineDeployment,
  newMachine,
  nodeOf,
  planScale,
  SERVER_ID_ANNOTATION,
  serverOf,
  type MachineServer,
  type MachineView,
} from './machines.ts';

/** What the controller needs from the runtime that owns the workers. */
export interface MachineHost {
  /** The sandbox's cluster name: MachineDeployments of another cluster are left alone. */
  readonly cluster: string;
  /** The cluster's worker servers, as the cloud has them now. */
  workers(): Promise<MachineServer[]>;
  /** A worker name not in `taken` and never handed out before. */
  allocateWorkerName(taken: ReadonlySet<string>): string;
  /** Makes a worker server named `name` as the sandbox makes its workers (idempotent by name). */
  createWorker(name: string): Promise<void>;
  /** Deletes the server as the cloud's user would. */
  deleteServer(serverId: string): Promise<void>;
  /** The server is gone: its kubelet stops now (before the Node is removed). */
  forgetServer(serverId: string): void;
}

export interface MachineControllerOptions {
  readonly kubeConfig: KubeConfig;
  readonly host: MachineHost;
  readonly logger: Logger;
  /** The namespace of the cluster's MachineDeployment (default `default`, where a kubeconfig without a namespace points). */
  readonly namespace?: string;
  readonly clock?: Clock;
  /** Backoff of a failed server create or delete, per machine (default 1 s doubling to 60 s). */
  readonly opBackoff?: { readonly baseMs: number; readonly maxMs: number };
}

export const CLUSTER_API_NAMESPACE = 'default';
/** The component Cluster API records MachineSet events as. */
const EVENT_SOURCE = 'machineset-controller';

/** A server create or delete run in the background for a Machine of deployment `key`. */
interface BackgroundOp {
  readonly key: string;
  /** `create/<machine>` or `delete/<server id>`: one at a time each, with its own backoff. */
  readonly op: string;
  readonly md: MachineDeployment | undefined;
  readonly failedReason: 'FailedCreate' | 'FailedDelete';
  readonly machine: string;
}

/** The call's result, or undefined where the API answered `code` (404: already gone; 409: already there). */
async function unlessStatus<T>(code: number, call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (err) {
    if (err instanceof ApiException && err.code === code) return undefined;
    throw err;
  }
}
const unless404 = <T>(call: Promise<T>): Promise<T | undefined> => unlessStatus(404, call);
const unless409 = <T>(call: Promise<T>): Promise<T | undefined> => unlessStatus(409, call);
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export class MachineController {
  readonly #opts: MachineControllerOptions;
  readonly #custom: CustomObjectsApi;
  readonly #core: CoreV1Api;
  readonly #clock: Clock;
  readonly #queue = new WorkQueue({ name: 'machinedeployment', rateLimiter: defaultControllerRateLimiter(realClock) });
  readonly #abort = new AbortController();
  readonly #events: KubeEventRecorder;
  readonly #deployments: SupervisedInformer<KubernetesObject>;
  readonly #machines: SupervisedInformer<KubernetesObject>;
  /** Server creates and deletes running in the background, by operation key (`create/<machine>`, `delete/<server id>`). */
  readonly #ops = new Set<string>();
  readonly #opBackoff: ItemExponentialFailureRateLimiter;
  readonly #notBefore = new Map<string, number>();

  constructor(options: MachineControllerOptions) {
    this.#opts = options;
    this.#clock = options.clock ?? realClock;
    const kc = options.kubeConfig;
    this.#custom = kc.makeApiClient(CustomObjectsApi);
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#opBackoff = new ItemExponentialFailureRateLimiter(options.opBackoff?.baseMs ?? 1000, options.opBackoff?.maxMs ?? 60_000);
    const core = this.#core;
    this.#events = new KubeEventRecorder({
      kube: {
        createEvent: async (event: CoreV1Event) =>
          void (await core.createNamespacedEvent({ namespace: event.metadata.namespace ?? this.#namespace, body: event })),
        patchEvent: async (namespace, name, patch) =>
          void (await core.patchNamespacedEvent({ namespace, name, body: { ...patch, lastTimestamp: patch.lastTimestamp.toISOString() } }, merge)),
      },
      component: EVENT_SOURCE,
      logger: options.logger,
      clock: this.#clock,
    });
    const informer = (plural: string): SupervisedInformer<KubernetesObject> =>
      new SupervisedInformer<KubernetesObject>({
        name: plural,
        logger: options.logger,
        makeListWatch: () =>
          makeInformer<KubernetesObject>(kc, `/apis/${CAPI_GROUP}/${CAPI_VERSION}/${plural}`, () =>
            this.#custom.listClusterCustomObject({ group: CAPI_GROUP, version: CAPI_VERSION, plural }),
          ),
      });
    this.#deployments = informer(PLURALS.machineDeployment);
    this.#machines = informer(PLURALS.machine);
  }

  get #namespace(): string {
    return this.#opts.namespace ?? CLUSTER_API_NAMESPACE;
  }

  /**
   * At `sandbox:up`: installs the CRDs, makes the cluster's MachineDeployment with `replicas` and a Machine
   * for each worker server there is (idempotent: what exists is kept).
   */
  async install(replicas: number): Promise<void> {
    const ext = this.#opts.kubeConfig.makeApiClient(ApiextensionsV1Api);
    for (const crd of CLUSTER_API_CRDS) await unless409(ext.createCustomResourceDefinition({ body: crd }));
    await waitFor(
      async () => {
        const names = CLUSTER_API_CRDS.map((c) => c.metadata?.name ?? '');
        const read = await Promise.all(names.map((name) => ext.readCustomResourceDefinition({ name })));
        return read.every((c) => c.status?.conditions?.some((k) => k.type === 'Established' && k.status === 'True'));
      },
      { timeoutMs: 30_000, description: 'the Cluster API CRDs to be established' },
    );
    const cluster = this.#opts.host.cluster;
    const namespace = this.#namespace;
    // Served a moment after Established: the first create may still find no such resource.
    await waitFor(
      () =>
        unless409(
          this.#custom.createNamespacedCustomObject({
            ...this.#resource(PLURALS.machineDeployment),
            namespace,
            body: clusterDeployment(cluster, namespace, replicas),
          }),
        ).then(() => true),
      { timeoutMs: 30_000, description: `MachineDeployment ${namespace}/${cluster} to be created` },
    );
    const md = MachineDeployment.parse(
      await this.#custom.getNamespacedCustomObject({ ...this.#resource(PLURALS.machineDeployment), namespace, name: cluster }),
    );
    for (const server of await this.#opts.host.workers()) {
      await unless409(
        this.#custom.createNamespacedCustomObject({ ...this.#resource(PLURALS.machine), namespace, body: newMachine(md, server.name, server.id) }),
      );
    }
    this.#opts.logger.info({ deployment: `${namespace}/${cluster}`, replicas }, 'Cluster API resources installed');
  }

  /** Starts watching MachineDeployments and Machines and syncing them. */
  start(): void {
    const signal = this.#abort.signal;
    const add = (obj: KubernetesObject): void => this.#queue.add(objectKey(obj));
    this.#deployments.addEventHandler({ onAdd: add, onUpdate: (_, o) => add(o), onDelete: add });
    const addOwner = (obj: KubernetesObject): void => {
      const owner = obj.metadata?.labels?.[CAPI_LABELS.deploymentName];
      if (owner) this.#queue.add(`${obj.metadata?.namespace ?? this.#namespace}/${owner}`);
    };
    this.#machines.addEventHandler({ onAdd: addOwner, onUpdate: (_, o) => addOwner(o), onDelete: addOwner });
    void this.#deployments.run(signal);
    void this.#machines.run(signal);
    void runWorker({ controller: 'machinedeployment', queue: this.#queue, sync: (key) => this.#sync(key), clock: this.#clock, logger: this.#opts.logger });
  }

  /** Something outside the API changed (a server, a Node): every deployment is looked at again. */
  kick(): void {
    for (const obj of this.#deployments.list()) this.#queue.add(objectKey(obj));
    for (const obj of this.#machines.list()) {
      const owner = obj.metadata?.labels?.[CAPI_LABELS.deploymentName];
      if (owner) this.#queue.add(`${obj.metadata?.namespace ?? this.#namespace}/${owner}`);
    }
  }

  close(): void {
    this.#abort.abort();
    this.#queue.shutDown();
  }

  #resource(plural: string): { group: string; version: string; plural: string } {
    return { group: CAPI_GROUP, version: CAPI_VERSION, plural };
  }

  async #sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const host = this.#opts.host;
    const md: unknown = await unless404<unknown>(this.#custom.getNamespacedCustomObject({ ...this.#resource(PLURALS.machineDeployment), namespace, name }));
    const deployment = md === undefined ? undefined : MachineDeployment.parse(md);
    if (deployment && deployment.spec.clusterName !== host.cluster) return;
    const list = (await this.#custom.listNamespacedCustomObject({
      ...this.#resource(PLURALS.machine),
      namespace,
      labelSelector: `${CAPI_LABELS.deploymentName}=${name}`,
    })) as { items?: unknown[] };
    const machines = (list.items ?? []).map((m) => Machine.parse(m));
    const [servers, nodes] = await Promise.all([host.workers(), this.#core.listNode().then((l) => l.items)]);
    const views: MachineView[] = machines.map((machine) => ({ machine, server: serverOf(machine, servers), node: nodeOf(machine, nodes) }));
    for (const view of views) {
      if (deleting(view.machine)) await this.#finalise(key, view, deployment);
      else await this.#provision(key, view, deployment);
    }
    // A deployment deleted: its Machines go with it (garbage collection), each finalised above.
    if (!deployment) return;
    await this.#scale(deployment, views, new Set([...servers.map((s) => s.name), ...machines.map((m) => m.metadata.name)]));
    const status = deploymentStatus(deployment, views);
    if (changed(deployment.status, status)) {
      const body = { status: nulled(deployment.status, status) };
      await this.#custom.patchNamespacedCustomObjectStatus({ ...this.#resource(PLURALS.machineDeployment), namespace, name, body }, merge);
    }
  }

  /** Creates the Machines the deployment lacks (their servers follow) or deletes the surplus. */
  async #scale(md: MachineDeployment, views: readonly MachineView[], taken: Set<string>): Promise<void> {
    const namespace = md.metadata.namespace;
    const plan = planScale(md, views);
    for (let i = 0; i < plan.create; i++) {
      const machineName = this.#opts.host.allocateWorkerName(taken);
      taken.add(machineName);
      await this.#custom.createNamespacedCustomObject({ ...this.#resource(PLURALS.machine), namespace, body: newMachine(md, machineName) });
      this.#event(md, EventType.Normal, 'SuccessfulCreate', `Created machine "${machineName}"`);
    }
    for (const machine of plan.remove) {
      const name = machine.metadata.name;
      await unless404(this.#custom.deleteNamespacedCustomObject({ ...this.#resource(PLURALS.machine), namespace, name }));
      this.#event(md, EventType.Normal, 'SuccessfulDelete', `Deleted machine "${name}"`);
    }
  }

  #patchMachine(machine: Machine, body: unknown): Promise<unknown> {
    const { namespace, name } = machine.metadata;
    return this.#custom.patchNamespacedCustomObject({ ...this.#resource(PLURALS.machine), namespace, name, body }, merge);
  }

  /** A Machine being deleted: its server is deleted, then its kubelet stopped and its Node removed, then its finalizer. */
  async #finalise(key: string, view: MachineView, md: MachineDeployment | undefined): Promise<void> {
    const { machine, server, node } = view;
    const name = machine.metadata.name;
    if (!machine.metadata.finalizers.includes(MACHINE_FINALIZER)) return;
    await this.#writeMachineStatus(view);
    if (server !== undefined) {
      // Deleting already: the cloud finishes it, the next sync finds it gone.
      if (server.status === 'deleting') return;
      this.#background({ key, op: `delete/${server.id}`, md, failedReason: 'FailedDelete', machine: name }, () => this.#opts.host.deleteServer(server.id));
      return;
    }
    // A server still being made is deleted once it exists.
    if (this.#ops.has(`create/${name}`)) return;
    const serverId = machine.metadata.annotations[SERVER_ID_ANNOTATION];
    if (serverId !== undefined) this.#opts.host.forgetServer(serverId);
    if (node?.metadata?.name) await unless404(this.#core.deleteNode({ name: node.metadata.name }));
    await unless404(this.#patchMachine(machine, { metadata: { finalizers: machine.metadata.finalizers.filter((f) => f !== MACHINE_FINALIZER) } }));
    this.#opts.logger.info({ machine: `${machine.metadata.namespace}/${name}`, server: serverId }, 'machine deleted: its server and Node are gone');
  }

  /** A Machine that stays: its server made if it has none yet, its server id and providerID recorded, its status kept. */
  async #provision(key: string, view: MachineView, md: MachineDeployment | undefined): Promise<void> {
    const { machine, server, node } = view;
    const name = machine.metadata.name;
    const recorded = machine.metadata.annotations[SERVER_ID_ANNOTATION] !== undefined;
    if (server === undefined && !recorded)
      this.#background({ key, op: `create/${name}`, md, failedReason: 'FailedCreate', machine: name }, () => this.#opts.host.createWorker(name));
    if (server !== undefined && !recorded) await this.#patchMachine(machine, { metadata: { annotations: { [SERVER_ID_ANNOTATION]: server.id } } });
    const providerID = node?.spec?.providerID;
    if (providerID && machine.spec.providerID !== providerID) await this.#patchMachine(machine, { spec: { providerID } });
    await this.#writeMachineStatus(view);
  }

  async #writeMachineStatus(view: MachineView): Promise<void> {
    const { name, namespace } = view.machine.metadata;
    const status = machineStatus(view);
    const { lastUpdated: _, ...current } = view.machine.status ?? {};
    if (!changed(current, status)) return;
    const body = { status: { ...nulled(current, status), lastUpdated: new Date(this.#clock.now()).toISOString() } };
    await unless404(this.#custom.patchNamespacedCustomObjectStatus({ ...this.#resource(PLURALS.machine), namespace, name, body }, merge));
  }

  /**
   * Runs a server create or delete in the background, once at a time per operation, with exponential backoff
   * after a failure; its end syncs the deployment again.
   */
  #background(o: BackgroundOp, fn: () => Promise<void>): void {
    const { key, op, md } = o;
    if (this.#ops.has(op) || (this.#notBefore.get(op) ?? 0) > this.#clock.now()) return;
    this.#ops.add(op);
    const logger = this.#opts.logger;
    const creating = o.failedReason === 'FailedCreate';
    logger.info({ op, deployment: key }, `${creating ? 'creating' : 'deleting'} the server of machine "${o.machine}"`);
    void fn()
      .then(() => {
        this.#opBackoff.forget(op);
        this.#notBefore.delete(op);
        this.#queue.add(key);
      })
      .catch((err: unknown) => {
        const delay = this.#opBackoff.when(op);
        this.#notBefore.set(op, this.#clock.now() + delay);
        const message = `Failed to ${creating ? 'create' : 'delete'} the server of machine "${o.machine}": ${messageOf(err)}`;
        if (md) this.#event(md, EventType.Warning, o.failedReason, message);
        else logger.warn({ op, delayMs: delay }, message);
        this.#queue.addAfter(key, delay);
      })
      .finally(() => this.#ops.delete(op));
  }

  #event(md: MachineDeployment, type: EventType, reason: string, message: string): void {
    const ref: V1ObjectReference = {
      apiVersion: CAPI_API_VERSION,
      kind: 'MachineDeployment',
      namespace: md.metadata.namespace,
      name: md.metadata.name,
      uid: md.metadata.uid,
    };
    this.#events.event(ref, type, reason, message);
  }
}

/** Whether `next` differs from what the object's status has for the same fields (or has fields next drops). */
function changed(current: Record<string, unknown> | undefined, next: Record<string, unknown>): boolean {
  // Not by JSON text: the apiserver hands an object's keys back sorted.
  const keys = new Set([...Object.keys(current ?? {}), ...Object.keys(next)]);
  return [...keys].some((k) => !isDeepStrictEqual(current?.[k], next[k]));
}

/** A merge patch body: `next`, with null for each field of `current` that `next` no longer has. */
function nulled(current: Record<string, unknown> | undefined, next: Record<string, unknown>): Record<string, unknown> {
  const gone = Object.keys(current ?? {}).filter((k) => !(k in next));
  return { ...Object.fromEntries(gone.map((k) => [k, null])), ...next };
}
