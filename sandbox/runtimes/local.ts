// The `local` runtime: the real control plane from sandbox/control-plane (no Docker needed) and one
// virtual kubelet per simcloud server of the cluster (sandbox/kubelet/fleet.ts), so powering a server off,
// on or deleting it in the cloud is what the node's kubelet experiences. Node addresses are the servers'
// loopback addresses; a kube-proxy stand-in on them answers NodePorts for Services with ready endpoints
// (sandbox/kubelet/kube-proxy.ts), so load-balancer traffic flows end to end on this machine, and each kubelet
// serves its API on its node's address (sandbox/kubelet/kubelet-api.ts: `kubectl logs`). The cluster is
// its own Cluster API management cluster: its workers are the Machines of a MachineDeployment named after
// it, whose replicas make and delete worker servers (sandbox/capi/).
import { copyFileSync, cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { SimEvent } from '../../simulator/api/schema/events.ts';
import { ControlPlane, CONTROL_PLANE_DEFAULTS, type ControlPlaneOptions } from '../control-plane/control-plane.ts';
import type { ContainerRuntime } from '../kubelet/containers/runtime.ts';
import type { MachineController } from '../capi/controller.ts';
import type { KubeletFleet, KubeletFleetOptions, FleetServer } from '../kubelet/fleet.ts';
import type { KubeProxyStandIn } from '../kubelet/kube-proxy.ts';
import { SANDBOX_LABELS, type SimcloudSandboxCloud } from '../cloud/sandbox-cloud.ts';
import type { RunImage } from '../kubelet/images/runnable.ts';
import { settleAll, timed } from '../startup.ts';
import type { PemPair } from '../control-plane/pki.ts';
import type { KubeletDirectory } from '../control-plane/egress-proxy.ts';
import {
  NODE_ROLES,
  type Availability,
  type ClusterAccess,
  type ClusterInfo,
  type PrestartingRuntime,
  type RegisteredServer,
  type RuntimeBaseContext,
  type RuntimeContext,
} from './runtime.ts';

export interface LocalRuntimeOptions {
  /** The sandbox's cloud; a getter because the runtime is chosen before simcloud starts. */
  readonly cloud: () => SimcloudSandboxCloud;
  /** Subscribes to simcloud's event stream; returns the unsubscribe function. */
  readonly subscribe: (handler: (event: SimEvent) => void) => () => void;
  readonly controlPlane?: Omit<ControlPlaneOptions, 'dir'>;
  /** How the control plane is started (default ControlPlane.start; unit tests give a fake). */
  readonly startControlPlane?: (options: ControlPlaneOptions) => Promise<ControlPlane>;
  readonly kubeletRenewIntervalMs?: number;
  /** Run the kube-proxy stand-in on the node addresses (off for benchmarks with thousands of nodes). */
  readonly nodePortStandIns?: boolean;
  /** Run the kube-vip stand-in beside it (the cloud's load balancers are addresses a node announces). */
  readonly kubeVip?: boolean;
  /**
   * Scale options (benchmarks): apply each server change from the event stream directly instead of
   * relisting every server, bound concurrent registrations, and renew Leases from one fleet-wide timer.
   */
  readonly scale?: {
    readonly eventDriven?: boolean;
    readonly startConcurrency?: number;
    readonly sharedHeartbeat?: { readonly intervalMs: number; readonly concurrency?: number };
  };
  readonly onError?: (message: string) => void;
  /** Images whose containers run as local processes (`--run-image`, sandbox/kubelet/containers/). */
  readonly runImages?: readonly RunImage[];
  /** The sandbox's network for those processes: the interception proxy's variables (a getter: it starts with simcloud). */
  readonly containerNetworkEnv?: () => Readonly<Record<string, string>>;
  /** Serve Cluster API's MachineDeployment and Machine for the workers (default true; off for benchmarks). */
  readonly clusterApi?: boolean;
  /** Each kubelet serves its API (logs) on its node's loopback address (default true; off for benchmarks). */
  readonly kubeletApi?: boolean;
}

/**
 * What kubeadm (and kind) put on a control-plane node: the role label, the opt-out from external load
 * balancers, so LoadBalancer traffic goes to the workers only, and the NoSchedule taint that keeps
 * workloads on the workers.
 */
const CONTROL_PLANE_NODE = {
  labels: { 'node-role.kubernetes.io/control-plane': '', 'node.kubernetes.io/exclude-from-external-load-balancers': '' },
  registerWithTaints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
};

interface ControlPlaneBoot {
  readonly access: Promise<ClusterAccess>;
  readonly ready: Promise<ControlPlane>;
}

/** A file of the user's own image replies (sandbox/kubelet/images), ahead of the built-in table. */
export const IMAGE_TABLE_ENV = 'CCM_SANDBOX_IMAGE_TABLE';

/** Safety net for missed events: a full resync of servers and Services this often. */
const RESYNC_MS = 5000;

export class LocalRuntime implements PrestartingRuntime {
  readonly name = 'local' as const;
  readonly #opts: LocalRuntimeOptions;
  #controlPlane: ControlPlane | undefined;
  #booting: ControlPlaneBoot | undefined;
  #fleet: KubeletFleet | undefined;
  #kubeProxy: KubeProxyStandIn | undefined;
  #timers: NodeJS.Timeout[] = [];
  #unsubscribe: () => void = () => undefined;
  #workerCount = 0;
  #machines: MachineController | undefined;
  /** The control plane's CA, known once its API serves (the kubelets' API certificates). */
  #ca: PemPair | undefined;
  /** Where the kubelet APIs list themselves for kube-apiserver's egress proxy (control-plane/egress-proxy.ts). */
  #kubeletDirectory: KubeletDirectory | undefined;

  constructor(options: LocalRuntimeOptions) {
    this.#opts = options;
  }

  available(): Promise<Availability> {
    return Promise.resolve({ ok: true });
  }

  kubeconfigPath(ctx: Pick<RuntimeContext, 'stateDir'>): string {
    return join(ctx.stateDir, 'kubeconfig');
  }

  get controlPlane(): ControlPlane | undefined {
    return this.#controlPlane;
  }

  get fleet(): KubeletFleet | undefined {
    return this.#fleet;
  }

  /** Boots the control plane, which needs no cloud; resolves once its API serves admin clients (the kubeconfig in place). */
  prestart(ctx: RuntimeBaseContext): Promise<ClusterAccess> {
    return this.#boot(ctx).access;
  }

  async up(ctx: RuntimeContext): Promise<ClusterInfo> {
    const boot = this.#boot(ctx);
    const phase = ctx.phase ?? ((): void => undefined);
    // A cloud takes its time to provision a machine (simcloud about 2 s): they are created while the control
    // plane boots, and their kubelets (admin credentials) register as soon as the API serves such clients,
    // while its RBAC bootstrap finishes and the controller-manager and the scheduler start.
    const [machines, access] = await settleAll([
      timed('machines created', () => this.#registerMachines(ctx), phase, { detail: (m) => `${m.length} servers` }),
      boot.access,
    ]);
    // Loaded only now, while the control plane boots: they bring the Kubernetes client.
    const [{ PooledKubeConfig }, { KubeletFleet }] = await Promise.all([import('../kube/pooled-kubeconfig.ts'), import('../kubelet/fleet.ts')]);
    const kubeConfig = new PooledKubeConfig();
    kubeConfig.loadFromFile(access.kubeconfigPath);
    this.#fleet = new KubeletFleet({
      kubeConfig,
      clusterLabel: { key: SANDBOX_LABELS.cluster, value: ctx.name },
      renewIntervalMs: this.#opts.kubeletRenewIntervalMs ?? 2000,
      registration: (server) => {
        const providerID = this.#opts.cloud().kubeletProviderId(server.id);
        return {
          ...(server.labels[SANDBOX_LABELS.role] === NODE_ROLES.controlPlane ? CONTROL_PLANE_NODE : {}),
          ...(providerID === undefined ? {} : { providerID }),
        };
      },
      onError: (err, node) => this.#opts.onError?.(`kubelet ${node}: ${err instanceof Error ? err.message : String(err)}`),
      onChange: () => this.#kubeProxy?.nodesChanged(),
      ...(this.#opts.scale?.sharedHeartbeat ? { sharedHeartbeat: this.#opts.scale.sharedHeartbeat } : {}),
      ...(this.#opts.scale?.startConcurrency ? { startConcurrency: this.#opts.scale.startConcurrency } : {}),
      ...(await this.#kubelets(ctx, kubeConfig, access.kubeconfigPath)),
    });
    // The Cluster API resources need only the API and the servers: installed while the kubelets register.
    const clusterApi = this.#opts.clusterApi === false ? Promise.resolve() : timed('cluster api', () => this.#startMachines(kubeConfig, ctx), phase);
    await settleAll([timed('kubelets registered', () => this.#startDriving(kubeConfig), phase), boot.ready, clusterApi]);
    return { ...access, machines };
  }

  /** What the kubelets run and serve: the runtime for runnable images, and their API (logs). */
  async #kubelets(ctx: RuntimeContext, kubeConfig: KubeConfig, kubeconfigPath: string): Promise<Pick<KubeletFleetOptions, 'containers' | 'kubeletApi'>> {
    const { containers } = await this.#containerRuntime(ctx, kubeConfig, kubeconfigPath);
    const ca = this.#ca;
    if (this.#opts.kubeletApi === false || !ca) return containers ? { containers } : {};
    const [{ kubeletApiFactory }, { CoreV1Api }, { pino }, { KUBELET_CLIENT_CN }] = await Promise.all([
      import('../kubelet/kubelet-api.ts'),
      import('@kubernetes/client-node'),
      import('pino'),
      import('../control-plane/pki.ts'),
    ]);
    const logger = pino(
      { name: 'kubelet-api' },
      pino.destination({ dest: join(ctx.stateDir, 'logs', 'kubelet-api.log'), mkdir: true, sync: true, mode: 0o600 }),
    );
    const kubeletApi = kubeletApiFactory({
      ca,
      core: kubeConfig.makeApiClient(CoreV1Api),
      apiServerUser: KUBELET_CLIENT_CN,
      logger,
      ...(containers ? { containers } : {}),
      ...(this.#kubeletDirectory ? { directory: this.#kubeletDirectory } : {}),
    });
    return { ...(containers ? { containers } : {}), kubeletApi };
  }

  /** The runtime for runnable images, when the sandbox has any (its own table entries or the user's file's). */
  async #containerRuntime(ctx: RuntimeContext, kubeConfig: KubeConfig, kubeconfigPath: string): Promise<{ containers?: ContainerRuntime }> {
    const [{ runnableEntries }, { loadImageTable }] = await Promise.all([import('../kubelet/images/runnable.ts'), import('../kubelet/images/replies.ts')]);
    const file = process.env[IMAGE_TABLE_ENV];
    const images = [...runnableEntries(this.#opts.runImages ?? []), ...(file ? loadImageTable(file).images : [])].filter((e) => e.run);
    if (images.length === 0) return {};
    const [{ ContainerRuntime }, { CoreV1Api }, { kubeletEventRecorder }] = await Promise.all([
      import('../kubelet/containers/runtime.ts'),
      import('@kubernetes/client-node'),
      import('../kubelet/containers/events.ts'),
    ]);
    const server = new URL(kubeConfig.getCurrentCluster()?.server ?? 'https://127.0.0.1:6443');
    const logsDir = join(ctx.stateDir, 'logs', 'pods');
    const podsDir = join(ctx.stateDir, 'pods');
    rmSync(podsDir, { recursive: true, force: true });
    return {
      containers: new ContainerRuntime({
        exec: ctx.exec,
        images,
        podsDir,
        logsDir,
        core: kubeConfig.makeApiClient(CoreV1Api),
        apiServer: { host: server.hostname, port: server.port || '443' },
        networkEnv: this.#opts.containerNetworkEnv ?? (() => ({})),
        onChange: (key) => this.#fleet?.pods?.podChanged(key),
        recorder: kubeletEventRecorder(kubeconfigPath, join(ctx.stateDir, 'logs', 'containers.log')),
      }),
    };
  }

  /**
   * Starts the control plane once (prestart() or up(), whichever comes first). `access` resolves when the API
   * serves admin clients, `ready` when all four components are ready; `ready` always has a handler, so a
   * failure after a prestart() whose up() never ran is down()'s business, not an unhandled rejection.
   */
  #boot(ctx: RuntimeBaseContext): ControlPlaneBoot {
    if (this.#booting) return this.#booting;
    const dir = join(ctx.stateDir, 'control-plane');
    rmSync(dir, { recursive: true, force: true });
    let announce: (access: ClusterAccess) => void = () => undefined;
    const apiReady = new Promise<ClusterAccess>((resolve) => (announce = resolve));
    const start = this.#opts.startControlPlane ?? ((o: ControlPlaneOptions) => ControlPlane.start(o));
    const ready = start({
      ...this.#opts.controlPlane,
      dir,
      onProgress: ctx.progress,
      ...(ctx.phase ? { onPhase: ctx.phase } : {}),
      onApiReady: (cp) => {
        if (this.#opts.kubeletApi !== false) {
          this.#ca = cp.pki.ca;
          this.#kubeletDirectory = cp.egress.kubelets;
        }
        copyFileSync(cp.kubeconfigPath, this.kubeconfigPath(ctx));
        announce({ kubeconfigPath: this.kubeconfigPath(ctx), clusterCidr: cp.options.clusterCidr });
      },
    }).then((cp) => (this.#controlPlane = cp));
    ready.catch(() => undefined);
    // A start that fails before the API serves fails `access` too.
    const access = Promise.race([apiReady, ready.then(() => apiReady)]);
    access.catch(() => undefined);
    this.#booting = { access, ready };
    return this.#booting;
  }

  async addWorker(ctx: RuntimeContext): Promise<RegisteredServer> {
    const existing = await this.#opts.cloud().servers();
    return this.#registerWorker(ctx, this.#allocateWorkerName(ctx.name, new Set(existing.map((s) => s.name))));
  }

  /** A worker name not in `taken` and above every one handed out before. */
  #allocateWorkerName(cluster: string, taken: ReadonlySet<string>): string {
    let n = this.#workerCount + 1;
    while (taken.has(workerName(cluster, n))) n += 1;
    this.#workerCount = n;
    return workerName(cluster, n);
  }

  /** A worker server made as the first ones were; its kubelet registers its Node at the next resync, started now. */
  async #registerWorker(ctx: RuntimeContext, name: string): Promise<RegisteredServer> {
    const server = await ctx.cloud.registerServer({ name, role: NODE_ROLES.worker });
    await this.#resync();
    return server;
  }

  /** Installs the Cluster API resources for the workers there are, and starts keeping them. */
  async #startMachines(kubeConfig: KubeConfig, ctx: RuntimeContext): Promise<void> {
    const [{ MachineController }, { pino }] = await Promise.all([import('../capi/controller.ts'), import('pino')]);
    const logger = pino(
      { name: 'cluster-api' },
      pino.destination({ dest: join(ctx.stateDir, 'logs', 'cluster-api.log'), mkdir: true, sync: true, mode: 0o600 }),
    );
    const cloud = this.#opts.cloud();
    const controller = new MachineController({
      kubeConfig,
      logger,
      host: {
        cluster: ctx.name,
        workers: async () => (await cloud.servers()).filter((s) => s.labels[SANDBOX_LABELS.role] === NODE_ROLES.worker),
        allocateWorkerName: (taken) => this.#allocateWorkerName(ctx.name, taken),
        createWorker: async (name) => void (await this.#registerWorker(ctx, name)),
        deleteServer: (id) => cloud.deleteServer(id),
        forgetServer: (id) => this.#fleet?.remove(id),
      },
    });
    await controller.install(ctx.workers);
    this.#machines = controller;
    controller.start();
  }

  async silenceKubelet(nodeName: string, silent: boolean): Promise<void> {
    await this.#fleet?.silence(nodeName, silent);
  }

  async down(ctx: RuntimeBaseContext): Promise<void> {
    this.#machines?.close();
    this.#machines = undefined;
    this.#unsubscribe();
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    await this.#fleet?.close();
    await this.#kubeProxy?.stop();
    this.#kubeProxy = undefined;
    // A control plane still booting (down during up) is stopped once its start has settled.
    const controlPlane = this.#controlPlane ?? (await this.#booting?.ready.catch(() => undefined));
    await controlPlane?.stop();
    this.#controlPlane = undefined;
    this.#booting = undefined;
    rmSync(join(ctx.stateDir, 'control-plane'), { recursive: true, force: true });
    rmSync(join(ctx.stateDir, 'pods'), { recursive: true, force: true });
  }

  collectLogs(ctx: RuntimeContext, dir: string): Promise<void> {
    const logs = join(ctx.stateDir, 'control-plane', 'logs');
    if (existsSync(logs)) cpSync(logs, dir, { recursive: true });
    return Promise.resolve();
  }

  async #registerMachines(ctx: RuntimeContext): Promise<RegisteredServer[]> {
    const names = [`${ctx.name}-control-plane`, ...Array.from({ length: ctx.workers }, (_, i) => workerName(ctx.name, i + 1))];
    this.#workerCount = ctx.workers;
    // All at once: each waits out its own provisioning. The cloud hands out addresses in the order the
    // creates arrive, so which node gets which address may differ from run to run.
    return Promise.all(
      names.map(async (name, i) => {
        const server = await ctx.cloud.registerServer({ name, role: i === 0 ? NODE_ROLES.controlPlane : NODE_ROLES.worker });
        ctx.progress(`server ${name} registered`);
        return server;
      }),
    );
  }

  async #startDriving(kubeConfig: KubeConfig): Promise<void> {
    let pending: NodeJS.Timeout | undefined;
    // Coalesce bursts of server events into one resync.
    this.#unsubscribe = this.#opts.subscribe((event) => {
      if (event.type !== 'resource_change' || event.resource_type !== 'server') return;
      if (this.#opts.scale?.eventDriven) {
        this.#applyServerEvent(event.resource_id, event.resource);
        return;
      }
      if (pending) return;
      pending = setTimeout(() => {
        pending = undefined;
        void this.#resync();
      }, 50);
    });
    await this.#resync();
    this.#timers.push(setInterval(() => void this.#resync(), RESYNC_MS));
    for (const t of this.#timers) t.unref();
    if (this.#opts.nodePortStandIns === false) return;
    const fleet = this.#fleet;
    const { KubeProxyStandIn } = await import('../kubelet/kube-proxy.ts');
    const imageTable = process.env[IMAGE_TABLE_ENV];
    this.#kubeProxy = new KubeProxyStandIn({
      kubeConfig,
      nodes: () => fleet?.runningNodes() ?? [],
      ...(imageTable ? { imageTableFile: imageTable } : {}),
      ...(this.#opts.kubeVip === true ? { kubeVip: true } : {}),
      ...(this.#opts.onError ? { onError: this.#opts.onError } : {}),
    });
    await this.#kubeProxy.start();
  }

  /** A server changed (its record) or was deleted (null). */
  #applyServerEvent(id: string, server: FleetServer | null): void {
    if (server === null) {
      this.#fleet?.remove(id);
      return;
    }
    void this.#fleet?.upsert(server).catch((err: unknown) => this.#opts.onError?.(`server ${id}: ${err instanceof Error ? err.message : String(err)}`));
  }

  async #resync(): Promise<void> {
    try {
      await this.#fleet?.sync(await this.#opts.cloud().servers());
      // Servers and Nodes are not watched by the Cluster API controller: their changes reach it from here.
      this.#machines?.kick();
    } catch (err) {
      this.#opts.onError?.(`server resync: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

export function workerName(cluster: string, n: number): string {
  return `${cluster}-worker-${n}`;
}

export const LOCAL_CLUSTER_CIDR = CONTROL_PLANE_DEFAULTS.clusterCidr;
