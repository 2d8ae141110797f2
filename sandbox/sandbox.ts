// One sandbox: simcloud, a cluster from a runtime, and the CCM, brought up in steps that run side by side
// where nothing orders them (sandbox/startup.ts; each step, and each phase inside one, timed and recorded
// in state.json) and torn down in reverse after collecting logs. The CLI's `up` runs this in a
// detached daemon process (or in the foreground); tests and benchmarks use it directly. The Kubernetes
// client, the CCM slot and the console are loaded when their step comes, so the control plane and simcloud
// are already booting while the daemon loads them.
import { randomBytes } from 'node:crypto';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SimcloudAdminClient, SimcloudClient } from '../simulator/api/client/index.ts';
import type { SimEvent } from '../simulator/api/schema/events.ts';
import { followSimEvents } from './cloud/events.ts';
import { SANDBOX_DEFAULTS, SimcloudSandboxCloud } from './cloud/sandbox-cloud.ts';
import { cloudOf, DEFAULT_CLOUD } from './cloud/registry.ts';
import type { ConsoleServer } from './console/server.ts';
import { createExec, type Exec } from './exec.ts';
import { startSimcloudProcess, type SimcloudProcess } from './processes.ts';
import type { CcmSlot } from './ccm/runner.ts';
import { DEFAULT_CCM, EARLY_CCM_KINDS, type CcmChoice } from './ccm/slot.ts';
import type { InterceptProxy } from './intercept/proxy.ts';
import { createRuntime } from './runtimes/factory.ts';
import { prestarts, type ClusterAccess, type ClusterInfo, type Runtime, type RuntimeBaseContext, type RuntimeContext } from './runtimes/runtime.ts';
import { settleAll, startInOrder, timed } from './startup.ts';
import { privateDir, SandboxStatus, writeState, type SandboxState, type StepRecord } from './state.ts';
import { waitFor } from './wait.ts';
import { checkCloudAndCcm, type JoinedSimcloud, type SandboxOptions } from './options.ts';
import { CcmHold } from './ccm/hold.ts';

// What the CLI checks before any of this loads lives in options.ts, kept light; re-exported for callers.
export { checkCloudAndCcm, defaultCcmFor, LB_STRATEGIES, SandboxOptionsError, type JoinedSimcloud, type LbStrategy, type SandboxOptions } from './options.ts';

export class Sandbox {
  readonly options: SandboxOptions;
  readonly exec: Exec;
  readonly #events = new Set<(e: SimEvent) => void>();
  readonly #abort = new AbortController();
  #state: SandboxState;
  #simcloud: JoinedSimcloud | undefined;
  /** simcloud's process, when this sandbox started it (not when it joined one). */
  #simcloudProcess: SimcloudProcess['process'] | undefined;
  #ccmChoice: CcmChoice | undefined;
  #ccm: CcmSlot | undefined;
  readonly #hold = new CcmHold();
  #runtime: Runtime | undefined;
  #cloud: SimcloudSandboxCloud | undefined;
  #cluster: ClusterInfo | undefined;
  #stopping: Promise<void> | undefined;
  #console: ConsoleServer | undefined;
  #intercept: InterceptProxy | undefined;
  /** What a process of the sandbox's gets to reach the personas' real hostnames (the proxy's variables). */
  #networkEnv: Readonly<Record<string, string>> = {};

  constructor(options: SandboxOptions) {
    checkCloudAndCcm(options.cloud ?? DEFAULT_CLOUD, options.ccm ?? DEFAULT_CCM);
    this.options = options;
    this.exec = options.exec ?? createExec();
    this.#state = initialState(options);
  }

  get state(): SandboxState {
    return this.#state;
  }

  get client(): SimcloudClient {
    const s = this.#simcloud;
    if (!s) throw new Error('simcloud is not running');
    return new SimcloudClient({ endpoint: s.url, token: s.token, caller: 'ccm-sandbox' });
  }

  get admin(): SimcloudAdminClient {
    const s = this.#simcloud;
    if (!s) throw new Error('simcloud is not running');
    return new SimcloudAdminClient({ endpoint: s.url, token: s.adminToken, caller: 'ccm-sandbox' });
  }

  get runtime(): Runtime | undefined {
    return this.#runtime;
  }

  get cluster(): ClusterInfo | undefined {
    return this.#cluster;
  }

  /** Subscribes to simcloud's event stream (API calls and resource changes). */
  subscribe(handler: (e: SimEvent) => void): () => void {
    this.#events.add(handler);
    return () => this.#events.delete(handler);
  }

  async up(): Promise<void> {
    // A new run is a new world, as with kind: a fresh cloud and fresh logs (the previous run's logs were
    // collected into artifacts/ by down()).
    for (const sub of ['logs', 'artifacts', 'simcloud', 'intercept']) rmSync(join(this.options.stateDir, sub), { recursive: true, force: true });
    privateDir(join(privateDir(this.options.stateDir), 'logs'));
    this.#save();
    try {
      const kubeVip = cloudOf(this.options.cloud ?? DEFAULT_CLOUD).kubeVip === true;
      const runtime = await createRuntime(this.options.runtime, {
        cloud: () => this.#requireCloud(),
        subscribe: (h) => this.subscribe(h),
        progress: this.options.progress,
        kubeVip,
        ...(this.options.runImages?.length ? { runImages: this.options.runImages } : {}),
        containerNetworkEnv: () => this.#networkEnv,
      });
      this.#runtime = runtime;
      // Side by side where nothing orders them: local's control plane boots while simcloud starts, the CCM
      // starts while the machines are created and their kubelets register (docs/performance.md).
      await startInOrder<ClusterAccess>({
        ...(prestarts(runtime)
          ? {
              prestart: () =>
                this.#step(
                  `control plane (${runtime.name})`,
                  () => runtime.prestart(this.#baseContext()),
                  () => 'API ready',
                ),
            }
          : {}),
        simcloud: () =>
          this.#step(
            'simcloud',
            () => this.#startSimcloud(),
            (url) => url,
          ),
        cluster: () =>
          this.#step(
            `cluster (${this.options.runtime})`,
            () => this.#startCluster(),
            (c) => `${c.machines.length} machines`,
          ),
        ccm: (access) =>
          this.#step(
            `ccm (${this.ccmChoice.kind})`,
            () => this.#startCcm(access),
            (d) => d,
          ),
        ccmNeedsCluster: !EARLY_CCM_KINDS.has(this.ccmChoice.kind),
      });
      // An empty slot leaves the nodes tainted until the user's own CCM runs.
      const nodes = this.options.waitForNodes !== false && this.ccmChoice.kind !== 'none';
      await settleAll([
        nodes
          ? this.#step(
              'nodes initialized',
              () => this.#waitForNodes(),
              (d) => d,
            )
          : Promise.resolve(undefined),
        this.#step(
          'console',
          () => this.#startConsole(),
          (url) => url,
        ),
      ]);
      this.#state = { ...this.#state, status: SandboxStatus.ready, readyAt: new Date().toISOString() };
    } catch (err) {
      this.#state = { ...this.#state, status: SandboxStatus.failed, error: err instanceof Error ? err.message : String(err) };
      throw err;
    } finally {
      this.#save();
    }
  }

  /** Collects logs into <stateDir>/artifacts, then stops the CCM, the cluster and simcloud. Idempotent. */
  down(): Promise<void> {
    this.#stopping ??= this.#down();
    return this.#stopping;
  }

  async #down(): Promise<void> {
    this.#state = { ...this.#state, status: SandboxStatus.stopping };
    this.#save();
    await this.#console?.close();
    this.#console = undefined;
    const ctx = this.#runtimeContext();
    if (this.#runtime && ctx) await this.#runtime.collectLogs(ctx, join(this.options.stateDir, 'artifacts', 'cluster')).catch(() => undefined);
    cpSync(join(this.options.stateDir, 'logs'), join(this.options.stateDir, 'artifacts', 'logs'), { recursive: true, force: true });
    this.#hold.release();
    await this.#ccm?.stop();
    // A prestarted part (local: the control plane) is stopped even when simcloud never came up.
    if (this.#runtime && ctx) await this.#runtime.down(ctx);
    else if (this.#runtime && prestarts(this.#runtime)) await this.#runtime.down(this.#baseContext());
    this.#abort.abort();
    await this.#stopIntercept();
    await this.#simcloudProcess?.stop();
    this.#ccm = undefined;
    this.#simcloud = undefined;
    this.#simcloudProcess = undefined;
    this.#state = { ...this.#state, status: SandboxStatus.stopped };
    this.#save();
  }

  async #stopIntercept(): Promise<void> {
    const proxy = this.#intercept;
    this.#intercept = undefined;
    if (proxy) await proxy.close();
  }

  /** Restarts the CCM process (a crash or an upgrade, as far as the cluster can tell). */
  async restartCcm(): Promise<void> {
    await this.stopCcm();
    await this.startCcm();
  }

  /** Stops the CCM: the slot stays empty (a CCM that is down) until startCcm. */
  async stopCcm(): Promise<void> {
    await this.#ccm?.stop();
    this.#ccm = undefined;
  }

  /** Starts the slot's CCM again, or from now on `choice` instead (an upgrade, a downgrade). */
  async startCcm(choice?: CcmChoice): Promise<void> {
    if (choice) this.#ccmChoice = choice;
    await this.#startCcm();
    this.#save();
  }

  /** Whether the CCM is held (stopped) by holdCcm. */
  get ccmHeld(): boolean {
    return this.#hold.held;
  }

  /** Stops (`hold`) or continues the CCM process, for the console's node tour (ccm/hold.ts); the new state. */
  holdCcm(hold: boolean): boolean {
    const pid = this.#ccm?.state.pid;
    if (!hold) this.#hold.release();
    else if (pid === null || pid === undefined) throw new Error('no CCM process runs in the slot to hold');
    else this.#hold.hold(pid);
    return this.#hold.held;
  }

  async addWorker(): Promise<string> {
    const ctx = this.#runtimeContext();
    if (!this.#runtime?.addWorker || !ctx) throw new Error(`the ${this.options.runtime} runtime cannot add workers`);
    return (await this.#runtime.addWorker(ctx)).name;
  }

  /** Runs one step of up(): a progress line when it starts and when it is done, its record in state.json. */
  async #step<T>(name: string, fn: () => Promise<T>, detail: (value: T) => string | undefined): Promise<T> {
    this.options.progress?.(`${name} ...`);
    return timed(
      name,
      fn,
      (record) => {
        this.#state = { ...this.#state, steps: [...this.#state.steps, record] };
        this.options.progress?.(`${name} done in ${(record.durationMs / 1000).toFixed(1)} s${record.detail ? ` (${record.detail})` : ''}`);
        this.#save();
      },
      { detail },
    );
  }

  /** A phase inside a step (etcd, machines created, ...): recorded, no progress line. */
  #phase(record: StepRecord): void {
    this.#state = { ...this.#state, phases: [...(this.#state.phases ?? []), record] };
    this.#save();
  }

  async #startSimcloud(): Promise<string> {
    const joined = this.options.joinSimcloud;
    if (joined) return this.#followSimcloud(joined);
    const token = `sbx-${randomBytes(16).toString('hex')}`;
    const adminToken = `sbx-admin-${randomBytes(16).toString('hex')}`;
    // A runtime whose VIPs must live on its machines' network (kind on Linux) gets simcloud's VIP pool there.
    const vipPool = this.#runtime?.cloudNetwork?.()?.vipPool;
    const plan = this.options.addressPlan;
    const extraArgs = [
      ...(plan?.simcloudArgs ?? []),
      ...(vipPool ? [`--pool=lb_vip=${vipPool}`] : []),
      ...this.#allowedHostArgs(),
      ...(this.options.simcloudArgs ?? []),
    ];
    const s = await startSimcloudProcess({ exec: this.exec, stateDir: this.options.stateDir, token, adminToken, extraArgs });
    this.#simcloudProcess = s.process;
    this.#state = { ...this.#state, logs: { ...this.#state.logs, simcloud: s.process.logFile } };
    return this.#followSimcloud(s);
  }

  /** Follows simcloud's events and makes the sandbox's side of the cloud; a joined simcloud has no process of ours to stop. */
  async #followSimcloud(s: JoinedSimcloud): Promise<string> {
    this.#simcloud = s;
    const { token, adminToken } = s;
    void followSimEvents({ endpoint: s.url, adminToken, signal: this.#abort.signal, onEvent: (e) => this.#events.forEach((h) => h(e)) });
    this.#cloud = this.#sandboxCloud(s.url, token);
    this.subscribe((e) => this.#cloud?.handleSimEvent(e));
    this.#state = { ...this.#state, simcloud: { url: s.url, token, adminToken, pid: this.#simcloudProcess?.pid ?? null } };
    // The personas' real hostnames, reached through the proxy by tools with compiled-in URLs (sandbox/intercept/).
    const { startSandboxIntercept, interceptEnv } = await import('./intercept/sandbox.ts');
    const intercept = await startSandboxIntercept({ stateDir: this.options.stateDir, simcloudUrl: s.url, allowedHosts: this.options.allowedHosts ?? [] });
    this.#intercept = intercept.proxy;
    this.#networkEnv = interceptEnv(intercept.info);
    this.#state = { ...this.#state, intercept: intercept.info, logs: { ...this.#state.logs, intercept: join(this.options.stateDir, 'logs', 'intercept.log') } };
    return s.url;
  }

  /** The sandbox's side of the cloud; with a persona's --cloud it creates machines through that persona's API. */
  #sandboxCloud(url: string, token: string): SimcloudSandboxCloud {
    const plan = this.options.addressPlan;
    const cloud = cloudOf(this.options.cloud ?? DEFAULT_CLOUD);
    const machines = cloud.machines?.({ endpoint: url, token });
    return new SimcloudSandboxCloud({
      client: this.client,
      clusterName: this.options.name,
      ...(plan ? { networkRange: plan.networkRange } : {}),
      ...(machines ? { persona: { kind: cloud.kind, machines } } : {}),
      ...(this.options.kubeletProviderId ? { kubeletProviderId: (id: string) => cloud.providerId(id) } : {}),
    });
  }

  async #startCluster(): Promise<ClusterInfo> {
    const cloud = this.#requireCloud();
    const runtime = this.#runtime;
    const ctx = this.#runtimeContext();
    if (!runtime || !ctx) throw new Error('simcloud is not running');
    // kind containers and Vagrant VMs have real addresses: the cloud network must cover them.
    const range = runtime.cloudNetwork?.()?.range;
    if (range) cloud.useNetworkRange(range);
    await cloud.ensureNetwork();
    this.#cluster = await runtime.up(ctx);
    this.#state = { ...this.#state, kubeconfig: this.#cluster.kubeconfigPath, clusterCidr: this.#cluster.clusterCidr };
    return this.#cluster;
  }

  get ccmChoice(): CcmChoice {
    return this.#ccmChoice ?? this.options.ccm ?? DEFAULT_CCM;
  }

  async #startCcm(cluster: ClusterAccess | undefined = this.#cluster): Promise<string> {
    const s = this.#simcloud;
    if (!s || !cluster) throw new Error('simcloud and the cluster must run before the CCM');
    this.#state = { ...this.#state, kubeconfig: cluster.kubeconfigPath, clusterCidr: cluster.clusterCidr };
    const { startCcmSlot } = await import('./ccm/runner.ts');
    await this.#prepareCcm(s);
    this.#ccm = await startCcmSlot({
      choice: this.ccmChoice,
      exec: this.exec,
      stateDir: this.options.stateDir,
      adminKubeconfig: cluster.kubeconfigPath,
      clusterName: this.options.name,
      clusterCidr: cluster.clusterCidr,
      simcloud: s,
      intercept: this.#state.intercept,
      network: this.options.name,
      lbStrategy: this.options.lbStrategy,
      cloud: this.options.cloud ?? DEFAULT_CLOUD,
      allowedHostArgs: this.#allowedHostArgs(),
      extraArgs: this.options.ccmArgs ?? [],
      ...(this.options.progress ? { progress: this.options.progress } : {}),
      onChange: (ccm) => {
        this.#state = { ...this.#state, ccm };
        this.#save();
      },
    });
    const { state, logFile } = this.#ccm;
    this.#state = { ...this.#state, ccm: state, logs: { ...this.#state.logs, ...(logFile ? { ccm: logFile } : {}) } };
    return state.pid === null ? 'nothing started: the slot is yours' : `pid ${state.pid}${state.url ? ` ${state.url}` : ''}`;
  }

  /** What the cloud's own CCM needs before it starts (its descriptor's prepareCcm), made for any CCM in the slot. */
  async #prepareCcm(s: { url: string; token: string }): Promise<void> {
    const prepare = cloudOf(this.options.cloud ?? DEFAULT_CLOUD).prepareCcm;
    if (prepare === undefined) return;
    const { ccmDir } = await import('./ccm/launch.ts');
    await prepare({
      endpoint: s.url,
      token: s.token,
      network: this.options.name,
      zone: SANDBOX_DEFAULTS.zone,
      ccmDir: privateDir(ccmDir(this.options.stateDir)),
    });
  }

  async #startConsole(): Promise<string> {
    const { startConsoleServer } = await import('./console/server.ts');
    this.#console = await startConsoleServer(this, { allowedHosts: this.options.allowedHosts ?? [] });
    this.#state = { ...this.#state, consoleUrl: this.#console.url, consoleToken: this.#console.token };
    return this.#console.url;
  }

  async #waitForNodes(): Promise<string> {
    const cluster = this.#cluster;
    if (!cluster) throw new Error('no cluster');
    const [{ CoreV1Api }, { PooledKubeConfig }, { UNINITIALIZED_TAINT }] = await Promise.all([
      import('@kubernetes/client-node'),
      import('./kube/pooled-kubeconfig.ts'),
      import('./kubelet/node-object.ts'),
    ]);
    const kc = new PooledKubeConfig();
    kc.loadFromFile(cluster.kubeconfigPath);
    const core = kc.makeApiClient(CoreV1Api);
    const expected = cluster.machines.length;
    const count = await waitFor(
      async () => {
        const nodes = (await core.listNode()).items;
        const initialized = nodes.filter((n) => !n.spec?.taints?.some((t) => t.key === UNINITIALIZED_TAINT));
        return nodes.length >= expected && initialized.length === nodes.length ? nodes.length : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100, description: `${expected} initialized nodes` },
    );
    return `${count} nodes`;
  }

  #allowedHostArgs(): string[] {
    const hosts = this.options.allowedHosts ?? [];
    return hosts.length === 0 ? [] : [`--allowed-host=${hosts.join(',')}`];
  }

  #requireCloud(): SimcloudSandboxCloud {
    if (!this.#cloud) throw new Error('simcloud is not running');
    return this.#cloud;
  }

  #runtimeContext(): RuntimeContext | undefined {
    const s = this.#simcloud;
    const cloud = this.#cloud;
    if (!s || !cloud) return undefined;
    return { ...this.#baseContext(), cloud, cloudEndpoint: s.url };
  }

  #baseContext(): RuntimeBaseContext {
    return {
      exec: this.exec,
      stateDir: this.options.stateDir,
      name: this.options.name,
      workers: this.options.workers,
      progress: this.options.progress ?? (() => undefined),
      phase: (record) => this.#phase(record),
      ...(this.options.kubeconfig ? { kubeconfig: this.options.kubeconfig } : {}),
    };
  }

  #save(): void {
    writeState(this.options.stateDir, this.#state);
  }
}

function initialState(o: SandboxOptions): SandboxState {
  return {
    name: o.name,
    runtime: o.runtime,
    status: SandboxStatus.starting,
    pid: process.pid,
    startedAt: new Date().toISOString(),
    readyAt: null,
    error: null,
    steps: [],
    workers: o.workers,
    lbStrategy: o.lbStrategy,
    cloud: o.cloud ?? DEFAULT_CLOUD,
    kubeconfig: null,
    clusterCidr: null,
    simcloud: null,
    intercept: null,
    runImages: [...(o.runImages ?? [])],
    ccm: null,
    consoleUrl: null,
    consoleToken: null,
    logs: {},
  };
}
