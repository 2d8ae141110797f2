// One benchmark environment on the `local` runtime: simcloud (instant transitions, quiet), the real
// control plane, virtual kubelets in scale mode (event-driven, one fleet-wide Lease renewer) and the CCM
// with the profile's flags and its own simcloud token (so a per-token rate limit hits the CCM only).
// Scenarios share it and leave it as they found it: the control-plane node plus whatever they declare.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { PooledKubeConfig } from '../../sandbox/kube/pooled-kubeconfig.ts';
import { SimcloudAdminClient, SimcloudClient } from '../../simulator/api/client/index.ts';
import type { SimEvent } from '../../simulator/api/schema/events.ts';
import { followSimEvents } from '../../sandbox/cloud/events.ts';
import { SimcloudSandboxCloud } from '../../sandbox/cloud/sandbox-cloud.ts';
import { createExec, type Exec } from '../../sandbox/exec.ts';
import { launchUpstreamCcm, upstreamCertDir } from '../../sandbox/ccm/launch.ts';
import { ensureUpstreamCcmBinary, getUpstreamCcm } from '../../sandbox/ccm/upstream.ts';
import { startCcmProcess, startSimcloudProcess, type CcmLaunch, type CcmProcess, type SimcloudProcess } from '../../sandbox/processes.ts';
import { LocalRuntime } from '../../sandbox/runtimes/local.ts';
import type { RuntimeContext } from '../../sandbox/runtimes/runtime.ts';
import { waitFor, WaitTimeoutError } from '../../sandbox/wait.ts';
import { ApiAudit, AUDIT_LAG_MS, AUDIT_POLICY, auditArgs } from './api-audit.ts';
import { CallLog } from './calls.ts';
import { deployedCcm } from './deployed-ccm.ts';
import { NodeTracker } from './nodes.ts';
import { ProcSampler } from './procstat.ts';
import { ServiceTracker } from './services.ts';
import type { HttpTransport } from '../../lib/http-pool.ts';
import type { BenchCcm, Profile } from './types.ts';

/** How the CCM is started: which entry point, with which Node flags and extra environment (defaults: `src/main.ts`, none). */
export type CcmEntry = Pick<CcmLaunch, 'main' | 'env' | 'nodeArgs'>;

export interface EnvOptions {
  readonly stateDir: string;
  readonly profile: Profile;
  /** Sizing hint: heartbeat interval and grace period grow with the fleet. */
  readonly nodes: number;
  readonly progress: (message: string) => void;
  /** The CCM's `--v` (default 2). */
  readonly ccmVerbosity?: number;
  /** Which CCM runs (default builtin); `useCcm` switches it on the same fleet. */
  readonly ccm?: BenchCcm;
  /** Our CCM writes a V8 CPU profile of each run here (`--cpu-prof`). */
  readonly cpuProfDir?: string;
  /** Our CCM's HTTP client as deployed (`CCM_HTTP_TRANSPORT`; default lib/http1). */
  readonly transport?: HttpTransport;
}

export const CLUSTER = 'bench';

/** Lease renewal and node-monitor grace: kubelet-like (10 s / 40 s) for big fleets, faster when small. */
export function heartbeat(nodes: number): { renewMs: number; graceSeconds: number } {
  return nodes > 200 ? { renewMs: 10_000, graceSeconds: 40 } : { renewMs: 2500, graceSeconds: 10 };
}

/**
 * A pod network with a /24 for every node the suite may hold at once (the resident fleet, a scenario's
 * arrivals on top, deleted nodes' CIDRs not yet released): the sandbox's 10.244.0.0/16 has 256, so at
 * 1 000 nodes three quarters of them would get no podCIDR and no route. Within 10.0.0.0/10 (the service
 * range is 10.96.0.0/16); node-ipam allows at most 16 bits between the two masks.
 */
export function benchClusterCidr(nodes: number): string {
  const bits = Math.min(14, Math.max(8, Math.ceil(Math.log2(2 * nodes + 64))));
  return `10.0.0.0/${24 - bits}`;
}

export function profileArgs(p: Profile): string[] {
  return [
    `--kube-api-qps=${p.kubeApiQps}`,
    `--kube-api-burst=${p.kubeApiBurst}`,
    `--concurrent-node-syncs=${p.nodeWorkers}`,
    `--concurrent-service-syncs=${p.serviceWorkers}`,
  ];
}

export class BenchEnv {
  /** Replaced by `useCcm` (another CCM or profile on the same fleet). */
  options: EnvOptions;
  readonly exec: Exec = createExec();
  readonly calls = new CallLog();
  /** The CCM's Kubernetes API requests, from the apiserver's audit log. */
  audit!: ApiAudit;
  readonly abort = new AbortController();
  readonly #handlers = new Set<(e: SimEvent) => void>([(e) => this.calls.handle(e)]);
  simcloud!: SimcloudProcess;
  cloud!: SimcloudSandboxCloud;
  runtime!: LocalRuntime;
  ctx!: RuntimeContext;
  kubeConfig!: KubeConfig;
  core!: CoreV1Api;
  nodes!: NodeTracker;
  services!: ServiceTracker;
  sampler!: ProcSampler;
  ccm: CcmProcess | undefined;
  ccmToken!: { id: string; secret: string };
  ccmStartedAt = 0;
  /** Extra CCM flags for the next start (scenarios set and reset them). */
  ccmExtraArgs: string[] = [];

  #upstreamBinary: string | undefined;

  private constructor(options: EnvOptions) {
    this.options = options;
  }

  static async start(options: EnvOptions): Promise<BenchEnv> {
    const env = new BenchEnv(options);
    mkdirSync(join(options.stateDir, 'logs'), { recursive: true });
    await env.#startSimcloud();
    await env.#startCluster();
    env.sampler = new ProcSampler(() => env.pids());
    env.sampler.start();
    await env.#entryFor(env.ccmKind);
    await env.startCcm();
    return env;
  }

  get client(): SimcloudClient {
    return new SimcloudClient({ endpoint: this.simcloud.url, token: this.simcloud.token, caller: 'ccm-bench' });
  }

  get admin(): SimcloudAdminClient {
    return new SimcloudAdminClient({ endpoint: this.simcloud.url, token: this.simcloud.adminToken, caller: 'ccm-bench' });
  }

  pids(): Record<string, number> {
    const out: Record<string, number> = { simcloud: this.simcloud.process.pid, 'bench+kubelets': process.pid };
    for (const c of this.runtime.controlPlane?.components() ?? []) out[c.name] = c.pid;
    if (this.ccm?.process.isRunning()) out.ccm = this.ccm.process.pid;
    return out;
  }

  /** How our CCM starts when a scenario does not say: as the sandbox runs it, or as deployed (`--ccm deployed`). */
  ccmEntry: CcmEntry = {};
  readonly #deployed = new Map<HttpTransport, CcmEntry & { readonly main: string; readonly label: string }>();

  async #entryFor(ccm: BenchCcm): Promise<void> {
    this.ccmEntry = ccm === 'deployed' ? await this.deployedEntry() : {};
  }

  /** Ours as deployed over the current HTTP client: built once per client and kept for the session. */
  async deployedEntry(): Promise<CcmEntry & { readonly main: string; readonly label: string }> {
    const transport = this.options.transport ?? 'http1';
    let entry = this.#deployed.get(transport);
    if (entry === undefined) {
      entry = await deployedCcm(join(this.options.stateDir, 'deployed'), transport);
      this.#deployed.set(transport, entry);
      this.options.progress(`ours runs as deployed: ${entry.label}`);
    }
    return entry;
  }

  get ccmKind(): BenchCcm {
    return this.options.ccm ?? 'builtin';
  }

  /**
   * Starts the CCM: ours as the sandbox does (`node src/main.ts`), or another entry point (the bundle the
   * Deployment runs) with its own environment; or the upstream Go CCM as the sandbox's slot starts it. Both
   * get the profile's flags, which upstream's command line takes under the same names.
   */
  async startCcm(how: CcmEntry = this.ccmEntry): Promise<void> {
    const cp = this.runtime.controlPlane;
    if (!cp) throw new Error('no control plane');
    const kind = this.ccmKind;
    if (kind === 'upstream') this.#upstreamBinary ??= await ensureUpstreamCcmBinary({ exec: this.exec, onProgress: this.options.progress });
    const extraArgs = [...profileArgs(this.options.profile), `--v=${this.options.ccmVerbosity ?? 2}`, ...this.ccmExtraArgs];
    const base = {
      exec: this.exec,
      stateDir: this.options.stateDir,
      clusterName: CLUSTER,
      clusterCidr: cp.options.clusterCidr,
      simcloud: { url: this.simcloud.url, token: this.ccmToken.secret },
      network: CLUSTER,
      lbStrategy: 'lb' as const,
    };
    const kubeconfig = join(this.ctx.stateDir, 'kubeconfig');
    this.ccmStartedAt = Date.now();
    if (this.#upstreamBinary && kind === 'upstream') {
      const launched = await launchUpstreamCcm({ ...base, extraArgs }, this.#upstreamBinary, kubeconfig);
      this.ccm = { process: launched.process, url: launched.url ?? '' };
      return;
    }
    this.ccm = await startCcmProcess({ ...base, kubeconfig, extraArgs, ...how, nodeArgs: [...(how.nodeArgs ?? []), ...this.#profiling()] });
  }

  /** Node flags that make our CCM write a CPU profile (`--cpu-prof`). */
  #profiling(): string[] {
    return this.options.cpuProfDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${this.options.cpuProfDir}`];
  }

  /** Another CCM, profile or HTTP client on the same fleet: stops the running CCM (and its Lease) and starts that one. */
  async useCcm(ccm: BenchCcm, profile: Profile, transport?: HttpTransport): Promise<void> {
    await this.stopCcm();
    this.options = { ...this.options, ccm, profile, ...(transport ? { transport } : {}) };
    await this.#entryFor(ccm);
    await this.startCcm();
  }

  /** Stops the CCM and removes its leader Lease, so the next start is a fresh cluster's first CCM. */
  async stopCcm(): Promise<void> {
    await this.ccm?.process.stop();
    this.ccm = undefined;
    const leases = this.kubeConfig.makeApiClient(CoordinationV1Api);
    await leases.deleteNamespacedLease({ name: 'cloud-controller-manager', namespace: 'kube-system' }).catch(() => undefined);
  }

  async restartCcm(how: CcmEntry = {}): Promise<void> {
    await this.stopCcm();
    await this.startCcm(how);
  }

  /**
   * Waits until the CCM has made no cloud call for `quietMs` (bounded by `timeoutMs`). With `since`, the
   * quiet period starts no earlier than it: for a change whose calls start late (a batched pass). With
   * `api`, no Kubernetes API request either (Lease renewals aside): events drain at the client's QPS long
   * after the cloud calls that caused them. Returns false when `timeoutMs` passed first.
   */
  async settle(quietMs = 2000, timeoutMs = 60_000, since = 0, { api = false } = {}): Promise<boolean> {
    return waitIdle(() => Math.max(since, this.calls.lastCcmCallAt(), api ? this.audit.lastWorkAt() + AUDIT_LAG_MS : 0), quietMs, timeoutMs);
  }

  async stop(): Promise<void> {
    this.sampler?.stop();
    this.nodes?.stop();
    this.services?.stop();
    await this.ccm?.process.stop();
    if (this.runtime && this.ctx) await this.runtime.down(this.ctx);
    this.abort.abort();
    await this.simcloud?.process.stop();
  }

  async #startSimcloud(): Promise<void> {
    const token = `bench-${randomBytes(12).toString('hex')}`;
    const adminToken = `bench-admin-${randomBytes(12).toString('hex')}`;
    const extraArgs = ['--quiet', '--delay-ms=0', '--no-dataplane'];
    this.simcloud = await startSimcloudProcess({ exec: this.exec, stateDir: this.options.stateDir, token, adminToken, extraArgs });
    const s = this.simcloud;
    // What the bench reads: the CCM's calls (calls.ts) and server changes (the local runtime's kubelets). A
    // network's change carries every route, and the harness should not spend the CPU the CCM is measured on.
    const only = { types: ['api_call', 'resource_change'], resources: ['server'] } as const;
    void followSimEvents({ endpoint: s.url, adminToken, signal: this.abort.signal, only, onEvent: (e) => this.#handlers.forEach((h) => h(e)) });
    const project = (await this.admin.listProjects())[0];
    if (!project) throw new Error('simcloud has no project');
    const created = await this.admin.createToken(project.id, { name: 'bench-ccm' });
    this.ccmToken = { id: created.id, secret: created.token };
    this.cloud = new SimcloudSandboxCloud({ client: new SimcloudClient({ endpoint: s.url, token, caller: 'ccm-sandbox' }), clusterName: CLUSTER });
  }

  async #startCluster(): Promise<void> {
    await this.cloud.ensureNetwork();
    const hb = heartbeat(this.options.nodes);
    const policy = join(this.options.stateDir, 'audit-policy.yaml');
    const auditLog = join(this.options.stateDir, 'logs', 'kube-apiserver-audit.log');
    writeFileSync(policy, AUDIT_POLICY);
    this.audit = new ApiAudit(auditLog);
    this.runtime = new LocalRuntime({
      cloud: () => this.cloud,
      subscribe: (h) => {
        this.#handlers.add(h);
        return () => this.#handlers.delete(h);
      },
      controlPlane: {
        nodeMonitorGracePeriodSeconds: hb.graceSeconds,
        clusterCidr: benchClusterCidr(this.options.nodes),
        nodeCidrMaskSize: 24,
        apiServerExtraArgs: auditArgs(policy, auditLog),
      },
      nodePortStandIns: false,
      clusterApi: false,
      kubeletApi: false,
      scale: { eventDriven: true, startConcurrency: 32, sharedHeartbeat: { intervalMs: hb.renewMs, concurrency: 16 } },
      onError: (m) => this.options.progress(`warning: ${m}`),
    });
    this.ctx = {
      exec: this.exec,
      stateDir: this.options.stateDir,
      name: CLUSTER,
      workers: 0,
      cloud: this.cloud,
      cloudEndpoint: this.simcloud.url,
      progress: () => undefined,
    };
    await this.runtime.up(this.ctx);
    this.kubeConfig = new PooledKubeConfig();
    this.kubeConfig.loadFromFile(join(this.options.stateDir, 'kubeconfig'));
    this.core = this.kubeConfig.makeApiClient(CoreV1Api);
    this.nodes = await NodeTracker.start(this.kubeConfig);
    this.services = await ServiceTracker.start(this.kubeConfig);
  }
}

const SCRAPED = /^(workqueue_(queue|work)_duration_seconds_(sum|count)|ccm_controller_sync_duration_seconds_(sum|count))\{/;

/** Selected CCM metrics (work-queue wait and work time, sync durations) as `name{labels}` -> value. */
export async function scrapeCcm(env: BenchEnv): Promise<Record<string, number>> {
  if (!env.ccm) return {};
  try {
    const text = env.ccmKind === 'upstream' ? await upstreamMetrics(env.ccm.url, env.options.stateDir) : await (await fetch(`${env.ccm.url}/metrics`)).text();
    const out: Record<string, number> = {};
    for (const line of text.split('\n')) {
      if (!SCRAPED.test(line)) continue;
      const at = line.lastIndexOf(' ');
      out[line.slice(0, at)] = Number(line.slice(at + 1));
    }
    return out;
  } catch {
    return {};
  }
}

/** Upstream serves HTTPS only, with the self-signed certificate it wrote into its cert dir. */
async function upstreamMetrics(url: string, stateDir: string): Promise<string> {
  return (await getUpstreamCcm(Number(new URL(url).port), upstreamCertDir(stateDir), '/metrics')).body;
}

/** Mean seconds per item of a work queue between two scrapes: waiting in the queue, and being worked on. */
export function queueMeans(
  before: Record<string, number>,
  after: Record<string, number>,
  queue: string,
): { waitSeconds: number; workSeconds: number; items: number } {
  const d = (name: string): number => (after[`${name}{name="${queue}"}`] ?? 0) - (before[`${name}{name="${queue}"}`] ?? 0);
  const items = d('workqueue_queue_duration_seconds_count');
  return {
    items,
    waitSeconds: items ? d('workqueue_queue_duration_seconds_sum') / items : 0,
    workSeconds: d('workqueue_work_duration_seconds_count') ? d('workqueue_work_duration_seconds_sum') / d('workqueue_work_duration_seconds_count') : 0,
  };
}

/**
 * Waits until `lastActive()` (epoch ms) is at least `quietMs` old; false when `timeoutMs` passed first.
 * waitFor retries a condition that throws, but a failure to read the activity (an audit log that shrank) is
 * not transient: it aborts the wait and is rethrown as it is.
 */
export async function waitIdle(lastActive: () => number, quietMs: number, timeoutMs: number): Promise<boolean> {
  const failed = new AbortController();
  const idle = (): boolean => {
    try {
      return Date.now() - lastActive() >= quietMs;
    } catch (err) {
      failed.abort(err);
      throw err;
    }
  };
  try {
    await waitFor(idle, { timeoutMs, intervalMs: 250, description: `the CCM idle for ${quietMs} ms`, signal: failed.signal });
    return true;
  } catch (err) {
    if (err instanceof WaitTimeoutError) return false;
    throw err;
  }
}
