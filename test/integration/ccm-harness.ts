// Shared set-up for the CCM integration tests (test/integration/ccm-*.test.ts): a real control plane (one per
// worker), a real simcloud process per test file, servers + virtual kubelets standing in for machines, and the
// CCM either in-process (Manager) or spawned (`node src/main.ts`). Every file uses its own cluster name, lease
// name and simcloud, so files never see each other's cloud resources; everything is removed in cleanup().
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiException, PatchStrategy, setHeaderOptions, type CoreV1Event, type V1Node, type V1Service } from '@kubernetes/client-node';
import pino from 'pino';
import { readSse } from '../../lib/sse.ts';
import { SimEvent } from '../../simulator/api/schema/events.ts';
import type { ApiCallEvent, Server } from '../../simulator/api/schema/index.ts';
import { claimLoopbackAddressPlan, type AddressPlanLease } from '../../sandbox/cloud/address-plan.ts';
import { createExec, type ManagedProcess } from '../../sandbox/exec.ts';
import { VirtualKubelet } from '../../sandbox/kubelet/virtual-kubelet.ts';
import { launchProcess, SPAWNED } from '../../sandbox/processes.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { loadConfig } from '../../src/config/load.ts';
import { Manager } from '../../src/manager.ts';
import '../../src/simcloud/register.ts';
import { sharedControlPlane, uniqueName, type TestCluster } from '../helpers/control-plane.ts';
import { startSimcloudProcess, type SimcloudProcess } from '../helpers/simcloud.ts';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export const isNotFound = (err: unknown): boolean => err instanceof ApiException && err.code === 404;

/** Waits with test-friendly defaults. */
export function eventually<T>(description: string, condition: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 60_000): Promise<T> {
  return waitFor(condition, { timeoutMs, intervalMs: 250, description });
}

export interface CcmRun {
  stop(): Promise<void>;
}

export interface SpawnedCcm extends CcmRun {
  readonly process: ManagedProcess;
  /** Everything it wrote so far, stdout and stderr. */
  readonly output: () => string;
  readonly exited: Promise<number | null>;
  kill9(): Promise<void>;
}

/** Records simcloud's API calls from the `/_sim/events` stream (with the caller header). */
export class ApiCallLog {
  readonly calls: ApiCallEvent[] = [];
  readonly #abort = new AbortController();

  static async open(url: string, adminToken: string): Promise<ApiCallLog> {
    const log = new ApiCallLog();
    const res = await fetch(`${url}/_sim/events`, {
      headers: { authorization: `Bearer ${adminToken}`, accept: 'text/event-stream' },
      signal: log.#abort.signal,
    });
    if (!res.ok || !res.body) throw new Error(`/_sim/events: HTTP ${res.status}`);
    void log.#read(res.body);
    return log;
  }

  async #read(body: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const message of readSse(body)) {
        const parsed = SimEvent.safeParse(JSON.parse(message.data));
        if (parsed.success && parsed.data.type === 'api_call') this.calls.push(parsed.data);
      }
    } catch {
      // closed
    }
  }

  /** Calls whose caller header contains `needle`, excluding the event stream itself. */
  byCaller(needle: string): ApiCallEvent[] {
    return this.calls.filter((c) => (c.caller ?? '').includes(needle));
  }

  close(): void {
    this.#abort.abort();
  }
}

export interface HarnessOptions {
  readonly prefix: string;
  /** Extra simcloud-ccm flags. */
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/** One connection to `ip:port` (e.g. a VIP): what the other side wrote before closing, trimmed. */
export function readLine(ip: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: ip, port, timeout: 3000 });
    let data = '';
    socket.on('data', (d) => (data += d.toString()));
    socket.on('end', () => resolve(data.trim()));
    socket.on('timeout', () => socket.destroy(new Error('timeout')));
    socket.on('error', reject);
  });
}

/** Plain TCP servers on a node's addresses standing in for NodePorts: they answer with the node name. */
export async function nodePortStandIn(ip: string, port: number, reply: string): Promise<TcpServer> {
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.end(`${reply}\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, ip, () => resolve());
  });
  return server;
}

export class CcmHarness {
  readonly clusterName: string;
  readonly leaseName: string;
  cluster!: TestCluster;
  sim!: SimcloudProcess;
  calls!: ApiCallLog;
  readonly #opts: HarnessOptions;
  readonly #kubelets: VirtualKubelet[] = [];
  readonly #runs: CcmRun[] = [];
  readonly #tcp: TcpServer[] = [];
  #addresses: AddressPlanLease | undefined;
  readonly #services: { namespace: string; name: string }[] = [];
  #catalogue: { server_type: string; image: string; zone: string } | undefined;
  #logDir: string | undefined;

  constructor(opts: HarnessOptions) {
    this.#opts = opts;
    this.clusterName = uniqueName(opts.prefix).slice(0, 40).replace(/-+$/, '');
    this.leaseName = `ccm-${this.clusterName}`;
  }

  async setUp(): Promise<void> {
    this.cluster = await sharedControlPlane();
    // Loopback ranges of this simcloud's own, so test files (and other simcloud processes running at the
    // same time) never collide on 127.0.0.0/8.
    this.#addresses = claimLoopbackAddressPlan();
    this.sim = await startSimcloudProcess({ args: [...this.#addresses.plan.simcloudArgs] });
    this.calls = await ApiCallLog.open(this.sim.url, this.sim.adminToken);
  }

  /** CCM flags for this harness: its cluster, lease, simcloud; fast periods for tests. */
  argv(extra: readonly string[] = []): string[] {
    return [
      `--kubeconfig=${this.cluster.kubeconfigPath}`,
      `--cluster-name=${this.clusterName}`,
      `--leader-elect-resource-name=${this.leaseName}`,
      '--secure-port=0',
      '--bind-address=127.0.0.1',
      '--node-monitor-period=1s',
      '--route-reconciliation-period=2s',
      '--cluster-cidr=10.244.0.0/16',
      ...(this.#opts.args ?? []),
      ...extra,
    ];
  }

  env(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
    return { SIMCLOUD_ENDPOINT: this.sim.url, SIMCLOUD_TOKEN: this.sim.token, ...this.#opts.env, ...extra };
  }

  /** The CCM in this process. */
  async startCcm(extraArgs: readonly string[] = [], extraEnv: Readonly<Record<string, string>> = {}): Promise<Manager> {
    const config = loadConfig({ argv: this.argv(extraArgs), env: this.env(extraEnv) });
    const logger = pino({ level: process.env.CCM_TEST_LOG ?? 'silent', base: { ccm: this.clusterName } });
    const manager = await Manager.start({ config, logger });
    this.#runs.push({ stop: async () => void (await manager.stop()) });
    return manager;
  }

  /** The CCM as its own process (`node src/main.ts`), launched at once: tests watch it start, lead or exit. */
  async spawnCcm(extraArgs: readonly string[] = [], extraEnv: Readonly<Record<string, string>> = {}): Promise<SpawnedCcm> {
    this.#logDir ??= mkdtempSync(join(tmpdir(), 'ccm-harness-'));
    const logFile = join(this.#logDir, `ccm-${this.#runs.length}.log`);
    const env = { ...process.env, ...this.env(extraEnv) } as Record<string, string>;
    const { process: proc } = await launchProcess({
      exec: createExec(),
      name: 'ccm',
      command: process.execPath,
      args: [MAIN, ...this.argv(extraArgs)],
      env,
      logFile,
      ...SPAWNED,
    });
    const killed = async (): Promise<void> => {
      proc.kill('SIGKILL');
      await proc.exited;
    };
    const run: SpawnedCcm = {
      process: proc,
      output: () => readFileSync(logFile, 'utf8'),
      exited: proc.exited.then((info) => info.code),
      stop: () => proc.stop(30_000),
      kill9: killed,
    };
    this.#runs.push(run);
    return run;
  }

  async #catalogueDefaults(): Promise<{ server_type: string; image: string; zone: string }> {
    if (!this.#catalogue) {
      const c = this.sim.client.catalogue;
      const [types, images, zones] = await Promise.all([c.serverTypes(), c.images(), c.zones()]);
      this.#catalogue = { server_type: types[0]!.id, image: images[0]!.id, zone: zones[0]!.id };
    }
    return this.#catalogue;
  }

  /** A running simcloud server named like the node it will back. */
  async createServer(name: string, extra: { networks?: string[]; labels?: Record<string, string> } = {}): Promise<Server> {
    const { server, action } = await this.sim.client.servers.create({ name, ...(await this.#catalogueDefaults()), ...extra });
    await this.sim.client.waitForAction(action.id);
    return this.sim.client.servers.get(server.id);
  }

  /** A virtual kubelet registering `name` like a kubelet with --cloud-provider=external. */
  async startKubelet(name: string, opts: { nodeIP?: string; providerID?: string; labels?: Record<string, string> } = {}): Promise<VirtualKubelet> {
    const kubelet = new VirtualKubelet({ kubeConfig: this.cluster.kubeConfig, nodeName: name, renewIntervalMs: 1000, ...opts });
    this.#kubelets.push(kubelet);
    await kubelet.start();
    return kubelet;
  }

  kubelet(name: string): VirtualKubelet | undefined {
    return this.#kubelets.find((k) => k.nodeName === name);
  }

  node(name: string): Promise<V1Node> {
    return this.cluster.core.readNode({ name });
  }

  async events(namespace: string, name: string): Promise<CoreV1Event[]> {
    const list = await this.cluster.core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` });
    return list.items;
  }

  async createService(namespace: string, svc: V1Service): Promise<V1Service> {
    const created = await this.cluster.core.createNamespacedService({ namespace, body: svc });
    this.#services.push({ namespace, name: created.metadata?.name ?? '' });
    return created;
  }

  /** A TCP listener on `ip:port` that answers `reply`. */
  async tcp(ip: string, port: number, reply: string): Promise<TcpServer> {
    const server = await nodePortStandIn(ip, port, reply);
    this.#tcp.push(server);
    return server;
  }

  /** Stops every CCM, kubelet and listener, deletes the test's Services and Nodes, stops simcloud. */
  async cleanup(): Promise<void> {
    await Promise.allSettled(this.#runs.map((r) => r.stop()));
    for (const k of this.#kubelets) k.close();
    await Promise.allSettled(this.#tcp.map((s) => new Promise((resolve) => s.close(resolve))));
    const core = this.cluster?.core;
    if (core) {
      for (const s of this.#services) {
        await core
          .patchNamespacedService(
            { ...s, body: [{ op: 'replace', path: '/metadata/finalizers', value: [] }] },
            setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
          )
          .catch(() => undefined);
        await core.deleteNamespacedService(s).catch(() => undefined);
      }
      await Promise.allSettled(this.#kubelets.map((k) => core.deleteNode({ name: k.nodeName })));
    }
    this.calls?.close();
    await this.sim?.stop();
    this.#addresses?.release();
    if (this.#logDir) rmSync(this.#logDir, { recursive: true, force: true });
  }
}

export { uniqueName };
