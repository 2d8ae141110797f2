// Nodes as the benchmark sees them (watch timestamps per node: registered, podCIDR, taint removed,
// NotReady, shutdown taint, deleted) and servers created and deleted in bulk with bounded concurrency.
import type { V1Node } from '@kubernetes/client-node';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { SANDBOX_LABELS } from '../../sandbox/cloud/sandbox-cloud.ts';
import { UNINITIALIZED_TAINT } from '../../sandbox/kubelet/node-object.ts';
import type { BenchEnv } from './env.ts';
import { CLUSTER } from './env.ts';
import { mapAtRate, mapWithConcurrency } from '../../lib/concurrency.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { startWatch } from './watch.ts';

export const SHUTDOWN_TAINT = 'node.cloudprovider.kubernetes.io/shutdown';

export interface NodeTimes {
  added: number;
  initialized?: number;
  podCidr?: number;
  notReady?: number;
  shutdownTaint?: number;
  deleted?: number;
  ready: boolean;
  exists: boolean;
}

const hasTaint = (n: V1Node, key: string): boolean => (n.spec?.taints ?? []).some((t) => t.key === key);
const isReady = (n: V1Node): boolean => n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';

/** Records the first time each milestone is seen. */
function firstSeen(t: NodeTimes, n: V1Node, at: number): void {
  if (t.initialized === undefined && !hasTaint(n, UNINITIALIZED_TAINT)) t.initialized = at;
  if (t.podCidr === undefined && n.spec?.podCIDR) t.podCidr = at;
  if (t.shutdownTaint === undefined && hasTaint(n, SHUTDOWN_TAINT)) t.shutdownTaint = at;
}

export class NodeTracker {
  readonly times = new Map<string, NodeTimes>();
  #stop: () => void = () => undefined;

  static async start(kc: KubeConfig): Promise<NodeTracker> {
    const t = new NodeTracker();
    const core = kc.makeApiClient(CoreV1Api);
    t.#stop = await startWatch<V1Node>(kc, '/api/v1/nodes', () => core.listNode(), {
      onUpsert: (n, at) => t.#upsert(n, at),
      onDelete: (n, at) => t.#delete(n, at),
    });
    return t;
  }

  stop(): void {
    this.#stop();
  }

  get(name: string): NodeTimes | undefined {
    return this.times.get(name);
  }

  existing(): string[] {
    return [...this.times].filter(([, t]) => t.exists).map(([n]) => n);
  }

  #upsert(n: V1Node, at: number): void {
    const name = n.metadata?.name ?? '';
    let t = this.times.get(name);
    if (!t || !t.exists) {
      t = { added: at, ready: isReady(n), exists: true };
      this.times.set(name, t);
    }
    firstSeen(t, n, at);
    const ready = isReady(n);
    if (t.ready && !ready) t.notReady = at;
    t.ready = ready;
  }

  #delete(n: V1Node, at: number): void {
    const t = this.times.get(n.metadata?.name ?? '');
    if (!t) return;
    t.deleted = at;
    t.exists = false;
  }
}

export const nodeName = (prefix: string, i: number): string => `${CLUSTER}-${prefix}-${String(i + 1).padStart(4, '0')}`;

export interface CreatedServer {
  readonly id: string;
  readonly name: string;
}

/** Creates worker servers (their kubelets register Nodes); `perSecond` paces arrivals, else bounded-parallel. */
export async function createServers(env: BenchEnv, names: readonly string[], perSecond?: number): Promise<CreatedServer[]> {
  const network = await env.cloud.ensureNetwork();
  const client = env.client;
  const out: CreatedServer[] = [];
  const create = async (name: string): Promise<void> => {
    const { server } = await client.servers.create({
      name,
      server_type: 'sc-medium',
      image: 'ubuntu-24.04',
      zone: 'sim-1a',
      labels: { [SANDBOX_LABELS.cluster]: CLUSTER, [SANDBOX_LABELS.role]: 'worker' },
      networks: [network.id],
    });
    out.push({ id: server.id, name: server.name });
  };
  await (perSecond ? mapAtRate(names, perSecond, create) : mapWithConcurrency(names, 16, create));
  return out;
}

/** Deletes servers, then their Nodes, and waits until the Nodes are gone. */
export async function removeMachines(env: BenchEnv, servers: readonly CreatedServer[]): Promise<void> {
  const client = env.client;
  await mapWithConcurrency(servers, 16, async (s) => {
    await client.servers.delete(s.id).catch(() => undefined);
  });
  await waitFor(() => noKubelets(env, servers), { timeoutMs: 60_000, description: 'kubelets to stop' });
  await mapWithConcurrency(servers, 32, async (s) => {
    await env.core.deleteNode({ name: s.name }).catch(() => undefined);
  });
  await waitFor(() => servers.every((s) => !env.nodes.get(s.name)?.exists), { timeoutMs: 120_000, description: 'Nodes to be deleted' });
  if (env.ccm) await waitForStaleRoutesGone(env);
}

/**
 * Waits until the running CCM's route controller has deleted the routes whose gateway no server holds any
 * more, so the next scenario starts from the same cloud whichever CCM or profile ran before. Without it a
 * cold start (S2) that followed S1 sometimes also deleted S1's 1 000 routes before creating its own, and
 * sometimes not, depending on where the route period fell: S8 measured that cleanup, not route creation.
 */
async function waitForStaleRoutesGone(env: BenchEnv): Promise<void> {
  const network = await env.cloud.ensureNetwork();
  const stale = async (): Promise<number> => {
    const [{ routes }, servers] = await Promise.all([env.client.networks.get(network.id), env.client.servers.listAll({})]);
    const gateways = new Set(servers.flatMap((s) => s.private_networks.filter((n) => n.network_id === network.id).map((n) => n.ip)));
    return routes.filter((r) => !gateways.has(r.gateway)).length;
  };
  // Three route periods: a pass that lists before the servers went waits for the next one.
  await waitFor(async () => (await stale()) === 0, { timeoutMs: 30_000, intervalMs: 500, description: "the CCM to delete the removed servers' routes" }).catch(
    (err: unknown) => {
      // A CCM without routes never deletes them: the next scenario runs, and says so.
      env.options.progress(`stale routes remain: ${err instanceof Error ? err.message : String(err)}`);
    },
  );
}

function noKubelets(env: BenchEnv, servers: readonly CreatedServer[]): boolean {
  const running = new Set((env.runtime.fleet?.runningNodes() ?? []).map((n) => n.name));
  return servers.every((s) => !running.has(s.name));
}

/** Waits until every named Node exists and, when asked, is initialised. */
export async function waitForNodes(env: BenchEnv, names: readonly string[], initialized: boolean, timeoutMs: number): Promise<void> {
  const ok = (n: string): boolean => {
    const t = env.nodes.get(n);
    return t !== undefined && t.exists && (!initialized || t.initialized !== undefined);
  };
  await waitFor(() => names.every(ok), { timeoutMs, description: `${names.length} nodes${initialized ? ' initialized' : ''}` });
}
