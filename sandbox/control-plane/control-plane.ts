// A real Kubernetes control plane as four local processes on loopback: etcd, kube-apiserver,
// kube-controller-manager (with --cloud-provider=external, so the cloud loops are left to a CCM) and
// kube-scheduler.
// Each ControlPlane has its own directory (PKI, etcd data, kubeconfigs, one log per component) and its
// own ports, so several can run at once. stop() ends everything; so do SIGINT/SIGTERM (shutdown.ts) and
// the death of this process (reaper.ts), so no process, port or temp dir outlives a run.
// kube-apiserver dials the cluster (kubelets, pod and service proxies, webhooks) only through the egress proxy
// this process runs for it (egress-proxy.ts), so it never sends a packet off loopback.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import type { CoreV1Api } from '@kubernetes/client-node';
import { createExec, type Exec, type ManagedProcess } from '../exec.ts';
import { freePort, freePorts } from '../ports.ts';
import { launchProcess, LaunchError } from '../processes.ts';
import { reaper } from '../reaper-client.ts';
import { registerCleanup } from '../shutdown.ts';
import { ensureBinaries, type Component, type ControlPlaneBinaries } from './binaries.ts';
import {
  controllerManagerArgs,
  apiServerArgs,
  EGRESS_SELECTOR_FILE,
  egressSelectorConfiguration,
  etcdArgs,
  schedulerArgs,
  type ControlPlanePorts,
  type ControlPlaneLayout,
} from './flags.ts';
import { EgressProxy } from './egress-proxy.ts';
import type { NodeView } from './egress-target.ts';
import { renderKubeconfig } from './kubeconfig.ts';
import { generatePki, type ControlPlanePki, type PemPair } from './pki.ts';
import { timed, type RecordSink } from '../startup.ts';

export interface ControlPlaneOptions {
  readonly binaries?: ControlPlaneBinaries;
  readonly exec?: Exec;
  /** Pod network split into per-node podCIDRs by node-ipam. */
  readonly clusterCidr?: string;
  readonly serviceCidr?: string;
  readonly nodeCidrMaskSize?: number;
  /** How long a node may miss heartbeats before node-lifecycle marks it Ready=Unknown (upstream: 50 s). */
  readonly nodeMonitorGracePeriodSeconds?: number;
  /** How long a pod stays on a node that stopped reporting before taint-eviction deletes it (upstream: 300 s). */
  readonly podEvictionTolerationSeconds?: number;
  /** A directory to keep (the sandbox's state dir); by default a temp dir removed on stop(). */
  readonly dir?: string;
  readonly startTimeoutMs?: number;
  readonly onProgress?: (message: string) => void;
  /** Flags appended to kube-apiserver's (the benchmark's audit log); none by default. */
  readonly apiServerExtraArgs?: readonly string[];
  /**
   * Called once kube-apiserver serves clients with the admin's credentials (ADMIN_READYZ), before its RBAC
   * bootstrap is done and before kube-controller-manager and kube-scheduler start: such clients (a CCM,
   * kubelets) can start meanwhile. start() still resolves only when all four are ready. Must not throw
   * (an error thrown fails the start).
   */
  readonly onApiReady?: (controlPlane: ControlPlane) => void;
  /** Receives each component's start, spawn to ready (where the start-up time goes). */
  readonly onPhase?: RecordSink;
}

export const CONTROL_PLANE_DEFAULTS = {
  clusterCidr: '10.244.0.0/16',
  serviceCidr: '10.96.0.0/16',
  nodeCidrMaskSize: 24,
  nodeMonitorGracePeriodSeconds: 10,
  podEvictionTolerationSeconds: 20,
  startTimeoutMs: 90_000,
} as const;

export interface ComponentStatus {
  readonly name: Component;
  readonly pid: number;
  readonly logFile: string;
  readonly running: boolean;
}

export class ControlPlaneStartError extends Error {
  override name = 'ControlPlaneStartError';
}

/**
 * kube-apiserver's readiness for clients with the admin's credentials (system:masters, which RBAC never
 * consults: our CCM, the virtual kubelets): all of /readyz but the two hooks that create
 * the default RBAC roles and the system PriorityClasses. Both wait a whole second before their first try
 * (upstream's wait.Poll), so this passes about a second before /readyz does; the controller-manager and
 * the scheduler, with identities RBAC authorises, wait for all of it.
 */
const ADMIN_READYZ = '/readyz?exclude=poststarthook/rbac/bootstrap-roles&exclude=poststarthook/scheduling/bootstrap-system-priority-classes';

/** A start failure after the API was announced (onApiReady): a retry of the whole start would move the API, so none is made. */
class LateStartError extends ControlPlaneStartError {}

function addressInUse(err: Error): boolean {
  return /address already in use/i.test(err.message);
}

const START_ATTEMPTS = 3;

export class ControlPlane {
  readonly dir: string;
  readonly kubeconfigPath: string;
  readonly apiServerUrl: string;
  #ports: ControlPlanePorts;
  readonly options: Required<
    Pick<ControlPlaneOptions, 'clusterCidr' | 'serviceCidr' | 'nodeCidrMaskSize' | 'nodeMonitorGracePeriodSeconds' | 'podEvictionTolerationSeconds'>
  >;
  readonly #processes: ManagedProcess[];
  readonly #ownsDir: boolean;
  readonly #pki: ControlPlanePki;
  readonly #egress: EgressProxy;
  #unregister: () => void = () => undefined;
  #stopped: Promise<void> | undefined;

  private constructor(layout: ControlPlaneLayout, parts: { pki: ControlPlanePki; egress: EgressProxy }, processes: ManagedProcess[], ownsDir: boolean) {
    const { pki, egress } = parts;
    this.dir = layout.dir;
    this.#egress = egress;
    this.kubeconfigPath = join(layout.dir, 'admin.kubeconfig');
    this.#ports = layout.ports;
    this.apiServerUrl = `https://127.0.0.1:${layout.ports.apiServer}`;
    this.options = layout.network;
    this.#pki = pki;
    this.#processes = processes;
    this.#ownsDir = ownsDir;
  }

  /** Starts etcd, kube-apiserver, kube-controller-manager and kube-scheduler; resolves once all serve. */
  static async start(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
    const ctx = await attemptContext(options);
    const { dir, ownsDir, progress } = ctx;
    if (ownsDir) reaper().trackDir(dir);
    let lastError: unknown;
    for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      try {
        return await ControlPlane.#attempt(ctx);
      } catch (err) {
        lastError = err;
        // A port taken between choosing and binding it is the one failure worth retrying.
        if (!(err instanceof ControlPlaneStartError && !(err instanceof LateStartError) && addressInUse(err))) break;
        progress(`port clash, retrying (attempt ${attempt + 1}/${START_ATTEMPTS})`);
      }
    }
    if (ownsDir) removeDir(dir);
    throw lastError;
  }

  static async #attempt(ctx: AttemptContext): Promise<ControlPlane> {
    const layout = await prepareLayout(ctx.dir, ctx.options);
    const pki = await writePki(layout);
    const processes: ManagedProcess[] = [];
    const egress = await startEgressProxy(layout);
    const cp = new ControlPlane(layout, { pki, egress }, processes, ctx.ownsDir);
    const started = Date.now();
    const component = (start: ComponentStart): Promise<void> =>
      timed(start.name, () => startComponent(ctx, processes, start), ctx.options.onPhase ?? (() => undefined));
    let announced = false;
    let announceError: Error | undefined;
    const announce = (): void => {
      if (announced) return;
      announced = true;
      try {
        ctx.options.onApiReady?.(cp);
      } catch (err) {
        announceError = err instanceof Error ? err : new Error(String(err));
      }
    };
    try {
      // kube-apiserver waits for etcd itself (its /readyz includes etcd): booting both at once saves etcd's
      // start-up; etcd keeps a probe of its own so that its failure is reported as etcd's.
      await Promise.all([
        component({
          name: 'etcd',
          args: etcdArgs(layout),
          ready: () => httpsOk(`https://127.0.0.1:${layout.ports.etcdClient}/health`, pki.etcdCa, pki.etcdClient),
        }),
        component({
          name: 'kube-apiserver',
          args: [...apiServerArgs(layout), ...(ctx.options.apiServerExtraArgs ?? [])],
          ready: async () => {
            if (!announced && (await cp.#apiOk(ADMIN_READYZ))) announce();
            return announced && (await cp.#apiOk('/readyz'));
          },
        }),
      ]);
      if (announceError !== undefined) throw announceError;
      // Both only talk to the apiserver, with identities RBAC authorises: started once all of /readyz passes.
      await Promise.all([
        component({
          name: 'kube-controller-manager',
          args: controllerManagerArgs(layout),
          ready: () => cp.#apiOk('/api/v1/namespaces/default/serviceaccounts/default'),
        }),
        cp.#startScheduler(ctx, component),
      ]);
    } catch (err) {
      await cp.#abandon(ctx);
      throw announced && err instanceof ControlPlaneStartError ? new LateStartError(err.message, { cause: err }) : err;
    }
    cp.#unregister = registerCleanup(() => cp.stop());
    ctx.progress(`control plane ready in ${((Date.now() - started) / 1000).toFixed(1)} s at ${cp.apiServerUrl}`);
    return cp;
  }

  /** kube-scheduler, the one component started after the API with a port of its own: a clash there retries it alone on a new port. */
  async #startScheduler(ctx: AttemptContext, component: (start: ComponentStart) => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const layout = { dir: this.dir, ports: this.#ports, network: this.options };
      try {
        await component({
          name: 'kube-scheduler',
          args: schedulerArgs(layout),
          ready: () => httpsOk(`https://127.0.0.1:${layout.ports.scheduler}/readyz`, this.#pki.ca.cert, this.#pki.admin),
        });
        return;
      } catch (err) {
        if (!(err instanceof ControlPlaneStartError && addressInUse(err)) || attempt >= START_ATTEMPTS) throw err;
        this.#ports = { ...this.#ports, scheduler: await freePort() };
        ctx.progress(`kube-scheduler port clash, retrying (attempt ${attempt + 1}/${START_ATTEMPTS})`);
      }
    }
  }

  /** After a failed start: stops what started and drops etcd's data, so a retry starts clean. */
  async #abandon(ctx: AttemptContext): Promise<void> {
    await stopAll(this.#processes);
    await this.#egress.close();
    rmSync(join(ctx.dir, 'etcd'), { recursive: true, force: true });
  }

  get ports(): ControlPlanePorts {
    return this.#ports;
  }

  /** Each component's pid, log file and whether it is still running. */
  components(): ComponentStatus[] {
    return this.#processes.map((p) => ({ name: p.name as Component, pid: p.pid, logFile: p.logFile, running: p.isRunning() }));
  }

  get pki(): ControlPlanePki {
    return this.#pki;
  }

  /** kube-apiserver's egress proxy: the kubelet APIs of this process list themselves in its `kubelets`. */
  get egress(): EgressProxy {
    return this.#egress;
  }

  /** Stops every component (controller-manager first, etcd last) and removes a temp dir. Idempotent. */
  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      this.#unregister();
      await stopAll(this.#processes);
      await this.#egress.close();
      if (this.#ownsDir) removeDir(this.dir);
    })();
    return this.#stopped;
  }

  async #apiOk(path: string): Promise<boolean> {
    return httpsOk(`${this.apiServerUrl}${path}`, this.#pki.ca.cert, this.#pki.admin);
  }
}

async function attemptContext(options: ControlPlaneOptions): Promise<AttemptContext> {
  const exec = options.exec ?? createExec();
  const progress = options.onProgress ?? ((): void => undefined);
  const binaries = options.binaries ?? (await ensureBinaries({ exec, onProgress: progress }));
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'ccm-sandbox-cp-'));
  return { exec, binaries, dir, ownsDir: options.dir === undefined, options, progress };
}

interface AttemptContext {
  readonly exec: Exec;
  readonly binaries: ControlPlaneBinaries;
  readonly dir: string;
  readonly ownsDir: boolean;
  readonly options: ControlPlaneOptions;
  readonly progress: (message: string) => void;
}

function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  reaper().untrackDir(dir);
}

async function stopAll(processes: ManagedProcess[]): Promise<void> {
  for (const p of [...processes].reverse()) await p.stop(5000);
}

async function prepareLayout(dir: string, options: ControlPlaneOptions): Promise<ControlPlaneLayout> {
  const [etcdClient, etcdPeer, apiServer, scheduler] = (await freePorts(4)) as [number, number, number, number];
  const network = {
    clusterCidr: options.clusterCidr ?? CONTROL_PLANE_DEFAULTS.clusterCidr,
    serviceCidr: options.serviceCidr ?? CONTROL_PLANE_DEFAULTS.serviceCidr,
    nodeCidrMaskSize: options.nodeCidrMaskSize ?? CONTROL_PLANE_DEFAULTS.nodeCidrMaskSize,
    nodeMonitorGracePeriodSeconds: options.nodeMonitorGracePeriodSeconds ?? CONTROL_PLANE_DEFAULTS.nodeMonitorGracePeriodSeconds,
    podEvictionTolerationSeconds: options.podEvictionTolerationSeconds ?? CONTROL_PLANE_DEFAULTS.podEvictionTolerationSeconds,
  };
  // Keys, etcd's data (Secrets) and logs: the user's alone.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  for (const sub of ['pki', 'logs', 'etcd']) mkdirSync(join(dir, sub), { recursive: true, mode: 0o700 });
  return { dir, ports: { etcdClient, etcdPeer, apiServer, scheduler }, network };
}

/** A Unix socket's path must fit sun_path (108 bytes on Linux); a deep state dir gets the socket in a temp dir of its own. */
const MAX_SOCKET_PATH = 100;

/**
 * The egress proxy kube-apiserver's egress selector points at, listening before the apiserver starts, and its
 * file. Its log is the control plane's, beside the components'.
 */
async function startEgressProxy(layout: ControlPlaneLayout): Promise<EgressProxy> {
  let socketPath = join(layout.dir, 'egress.sock');
  let onClosed: (() => void) | undefined;
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
    const dir = mkdtempSync(join(tmpdir(), 'ccm-egress-'));
    reaper().trackDir(dir);
    socketPath = join(dir, 'egress.sock');
    onClosed = () => removeDir(dir);
  }
  writeFileSync(join(layout.dir, EGRESS_SELECTOR_FILE), `${JSON.stringify(egressSelectorConfiguration(socketPath), null, 2)}\n`, { mode: 0o600 });
  const { pino } = await import('pino');
  const logger = pino({ name: 'egress-proxy' }, pino.destination({ dest: join(layout.dir, 'logs', 'egress-proxy.log'), sync: true, mode: 0o600 }));
  return EgressProxy.listen({ socketPath, logger, nodes: nodeLister(join(layout.dir, 'admin.kubeconfig')), ...(onClosed ? { onClosed } : {}) });
}

/** The Nodes as the admin reads them, the Kubernetes client loaded on first use (most dials are loopback). */
function nodeLister(kubeconfigPath: string): () => Promise<NodeView[]> {
  let core: Promise<CoreV1Api> | undefined;
  return async () => {
    core ??= import('@kubernetes/client-node').then(({ KubeConfig, CoreV1Api }) => {
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfigPath);
      return kc.makeApiClient(CoreV1Api);
    });
    const list = await (await core).listNode();
    return list.items.map((n) => ({
      name: n.metadata?.name ?? '',
      addresses: n.status?.addresses ?? [],
      kubeletPort: n.status?.daemonEndpoints?.kubeletEndpoint?.Port,
    }));
  };
}

export function firstServiceIp(serviceCidr: string): string {
  const [base] = ipaddr.parseCIDR(serviceCidr);
  const bytes = base.toByteArray();
  bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) + 1;
  return ipaddr.fromByteArray(bytes).toString();
}

async function writePki(layout: ControlPlaneLayout): Promise<ControlPlanePki> {
  const pki = await generatePki({ kubernetesServiceIp: firstServiceIp(layout.network.serviceCidr) });
  const files: Record<string, string> = {
    'ca.crt': pki.ca.cert,
    'ca.key': pki.ca.key,
    'apiserver.crt': pki.apiServer.cert,
    'apiserver.key': pki.apiServer.key,
    'apiserver-kubelet-client.crt': pki.kubeletClient.cert,
    'apiserver-kubelet-client.key': pki.kubeletClient.key,
    'sa.pub': pki.serviceAccount.publicKey,
    'sa.key': pki.serviceAccount.privateKey,
    'scheduler-serving.crt': pki.schedulerServing.cert,
    'scheduler-serving.key': pki.schedulerServing.key,
    'etcd-ca.crt': pki.etcdCa,
    'etcd.crt': pki.etcdServer.cert,
    'etcd.key': pki.etcdServer.key,
    'etcd-client.crt': pki.etcdClient.cert,
    'etcd-client.key': pki.etcdClient.key,
  };
  for (const [name, content] of Object.entries(files)) writeFileSync(join(layout.dir, 'pki', name), content, { mode: 0o600 });
  const server = `https://127.0.0.1:${layout.ports.apiServer}`;
  const kubeconfig = (client: typeof pki.admin, userName: string): string =>
    renderKubeconfig({ server, caCert: pki.ca.cert, client, clusterName: 'ccm-sandbox', userName });
  writeFileSync(join(layout.dir, 'admin.kubeconfig'), kubeconfig(pki.admin, 'admin'), { mode: 0o600 });
  writeFileSync(join(layout.dir, 'controller-manager.kubeconfig'), kubeconfig(pki.controllerManager, 'kube-controller-manager'), { mode: 0o600 });
  writeFileSync(join(layout.dir, 'scheduler.kubeconfig'), kubeconfig(pki.scheduler, 'kube-scheduler'), { mode: 0o600 });
  return pki;
}

interface ComponentStart {
  readonly name: Component;
  readonly args: string[];
  readonly ready: () => Promise<boolean>;
}

async function startComponent(ctx: AttemptContext, processes: ManagedProcess[], { name, args, ready }: ComponentStart): Promise<void> {
  const logFile = join(ctx.dir, 'logs', `${name}.log`);
  const timeoutMs = ctx.options.startTimeoutMs ?? CONTROL_PLANE_DEFAULTS.startTimeoutMs;
  try {
    // Tracked from the spawn on: a sibling failing mid-start stops this one too.
    await launchProcess({
      exec: ctx.exec,
      name,
      command: ctx.binaries[name],
      args,
      logFile,
      ready,
      readyDescription: `${name} to become ready`,
      timeoutMs,
      intervalMs: 100,
      tailLines: 30,
      onSpawned: (proc) => processes.push(proc),
    });
  } catch (err) {
    throw err instanceof LaunchError ? new ControlPlaneStartError(`${name} failed to start: ${err.message}`) : err;
  }
}

/** GET over HTTPS with a client certificate (fetch cannot present one without extra deps). */
function httpsOk(url: string, ca: string, client: PemPair): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { ca, cert: client.cert, key: client.key, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}
