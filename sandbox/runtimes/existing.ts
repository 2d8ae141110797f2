// The `existing` runtime: any cluster reachable through a kubeconfig whose kubelets run with
// --cloud-provider=external. Nothing is created or destroyed; up() adopts one simcloud server per Node
// (by name, with the Node's InternalIP/ExternalIP; registerServer is idempotent, so servers that already
// exist are reused) so the CCM can find them. Talks to the API with @kubernetes/client-node (no kubectl).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { CoreV1Api, VersionApi, type V1Node } from '@kubernetes/client-node';
import { PooledKubeConfig } from '../kube/pooled-kubeconfig.ts';
import ipaddr from 'ipaddr.js';
import {
  NODE_ROLES,
  type Availability,
  type CloudNetwork,
  type ClusterInfo,
  type MachineSpec,
  type RegisteredServer,
  type Runtime,
  type RuntimeContext,
} from './runtime.ts';

export interface ExistingRuntimeOptions {
  /** Default: the context's kubeconfig, else the first $KUBECONFIG entry, else ~/.kube/config. */
  readonly kubeconfig?: string;
  /** The cluster's pod network; default: the smallest network containing every Node's podCIDRs. */
  readonly clusterCidr?: string;
  /** Timeout for the /version probe. */
  readonly probeTimeoutMs?: number;
  /** An IPv4 CIDR holding every Node's InternalIP, for simcloud's cluster network (see cloudNetwork()). */
  readonly networkRange?: string;
}

export const EXISTING_FALLBACK_CLUSTER_CIDR = '10.244.0.0/16';

export function defaultKubeconfig(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const first = env.KUBECONFIG?.split(delimiter).find((p) => p !== '');
  return first ?? join(homedir(), '.kube', 'config');
}

const toInt = (bytes: number[]): number => bytes.reduce((n, b) => n * 256 + b, 0);

/** The smallest IPv4 network containing every CIDR given (IPv6 entries are ignored); undefined if none. */
export function commonSupernet(cidrs: readonly string[]): string | undefined {
  const nets = cidrs.map((c) => ipaddr.parseCIDR(c)).filter(([ip]) => ip.kind() === 'ipv4');
  if (nets.length === 0) return undefined;
  const bases = nets.map(([ip]) => toInt(ip.toByteArray()));
  let prefix = Math.min(...nets.map(([, p]) => p));
  const first = bases[0] ?? 0;
  while (prefix > 0 && bases.some((b) => Math.floor(b / 2 ** (32 - prefix)) !== Math.floor(first / 2 ** (32 - prefix)))) prefix -= 1;
  const base = prefix === 0 ? 0 : Math.floor(first / 2 ** (32 - prefix)) * 2 ** (32 - prefix);
  const bytes = [24, 16, 8, 0].map((s) => Math.floor(base / 2 ** s) % 256);
  return `${bytes.join('.')}/${prefix}`;
}

/** The server a Node stands for: its name, role, and addresses. */
export function machineForNode(node: V1Node): MachineSpec {
  const addr = (type: string): string | undefined => node.status?.addresses?.find((a) => a.type === type && ipaddr.IPv4.isValid(a.address))?.address;
  const labels = node.metadata?.labels ?? {};
  const isControlPlane = 'node-role.kubernetes.io/control-plane' in labels || 'node-role.kubernetes.io/master' in labels;
  const internal = addr('InternalIP');
  const external = addr('ExternalIP');
  return {
    name: node.metadata?.name ?? '',
    role: isControlPlane ? NODE_ROLES.controlPlane : NODE_ROLES.worker,
    ...(internal ? { privateIPv4: internal } : {}),
    ...(external ? { publicIPv4: external } : {}),
  };
}

const kv = (o: object | undefined): string[] => Object.entries(o ?? {}).map(([k, v]) => `  ${k}=${String(v)}`);

function statusLines(node: V1Node): string[] {
  const s = node.status;
  return [
    'Addresses:',
    ...(s?.addresses ?? []).map((a) => `  ${a.type}: ${a.address}`),
    'Conditions:',
    ...(s?.conditions ?? []).map((c) => `  ${c.type}=${c.status} (${c.reason ?? ''}) ${c.message ?? ''}`.trimEnd()),
    'Capacity:',
    ...kv(s?.capacity),
    'System Info:',
    ...kv(s?.nodeInfo),
  ];
}

function metaLines(node: V1Node): string[] {
  const m = node.metadata ?? {};
  const spec = node.spec ?? {};
  const taints = (spec.taints ?? []).map((t) => `  ${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`);
  return [
    `Name:         ${m.name ?? ''}`,
    `ProviderID:   ${spec.providerID ?? '<none>'}`,
    `PodCIDRs:     ${(spec.podCIDRs ?? []).join(', ') || '<none>'}`,
    `Created:      ${m.creationTimestamp?.toISOString() ?? ''}`,
    'Labels:',
    ...kv(m.labels),
    'Annotations:',
    ...kv(m.annotations),
    'Taints:',
    ...taints,
  ];
}

/** A `kubectl describe node`-like summary, from the API object. */
export function describeNode(node: V1Node): string {
  return [...metaLines(node), ...statusLines(node), ''].join('\n');
}

export class ExistingRuntime implements Runtime {
  readonly name = 'existing' as const;
  readonly #opts: ExistingRuntimeOptions;

  constructor(options: ExistingRuntimeOptions = {}) {
    this.#opts = options;
  }

  cloudNetwork(): CloudNetwork | undefined {
    return this.#opts.networkRange ? { range: this.#opts.networkRange } : undefined;
  }

  kubeconfigPath(ctx: Pick<RuntimeContext, 'kubeconfig'>): string {
    return ctx.kubeconfig ?? this.#opts.kubeconfig ?? defaultKubeconfig();
  }

  async available(ctx: Pick<RuntimeContext, 'exec' | 'kubeconfig'>): Promise<Availability> {
    const path = this.kubeconfigPath(ctx);
    if (!existsSync(path)) return { ok: false, reason: `kubeconfig ${path} does not exist (pass --kubeconfig PATH)` };
    try {
      const version = await this.#probe(path);
      return version ? { ok: true } : { ok: false, reason: `the API server in ${path} did not report a version` };
    } catch (err) {
      return { ok: false, reason: `the API server in ${path} does not answer /version: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  async up(ctx: RuntimeContext): Promise<ClusterInfo> {
    const path = this.kubeconfigPath(ctx);
    const version = await this.#probe(path);
    ctx.progress(`existing cluster at ${path} answers (${version})`);
    const nodes = await this.#nodes(path);
    const machines: RegisteredServer[] = [];
    for (const node of nodes) {
      const machine = machineForNode(node);
      machines.push(
        await ctx.cloud.registerServer(machine).catch((err: unknown) => {
          const why = err instanceof Error ? err.message : String(err);
          throw new Error(
            `simcloud refused a server for node ${machine.name} (InternalIP ${machine.privateIPv4 ?? 'none'}): ${why}; the cluster network must hold every node's InternalIP (existing runtime option networkRange)`,
          );
        }),
      );
      ctx.progress(`server ${machine.name} adopted for node ${machine.name} (${machine.privateIPv4 ?? 'no InternalIP'})`);
    }
    return { kubeconfigPath: path, machines, clusterCidr: this.#clusterCidr(nodes, ctx) };
  }

  down(ctx: RuntimeContext): Promise<void> {
    ctx.progress(`existing cluster left as it is (${this.kubeconfigPath(ctx)}); its simcloud servers go away with simcloud`);
    return Promise.resolve();
  }

  async collectLogs(ctx: RuntimeContext, dir: string): Promise<void> {
    const nodes = await this.#nodes(this.kubeconfigPath(ctx));
    mkdirSync(join(dir, 'nodes'), { recursive: true });
    for (const node of nodes) writeFileSync(join(dir, 'nodes', `${node.metadata?.name ?? 'unnamed'}.txt`), describeNode(node));
  }

  #clusterCidr(nodes: readonly V1Node[], ctx: RuntimeContext): string {
    if (this.#opts.clusterCidr) return this.#opts.clusterCidr;
    const found = commonSupernet(nodes.flatMap((n) => n.spec?.podCIDRs ?? (n.spec?.podCIDR ? [n.spec.podCIDR] : [])));
    if (found) return found;
    ctx.progress(`warning: no node has a podCIDR; using ${EXISTING_FALLBACK_CLUSTER_CIDR} as the cluster CIDR`);
    return EXISTING_FALLBACK_CLUSTER_CIDR;
  }

  async #nodes(path: string): Promise<V1Node[]> {
    const kc = new PooledKubeConfig();
    kc.loadFromFile(path);
    const list = await kc.makeApiClient(CoreV1Api).listNode();
    return [...list.items].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '', 'en', { numeric: true }));
  }

  async #probe(path: string): Promise<string> {
    const kc = new PooledKubeConfig();
    kc.loadFromFile(path);
    const timeoutMs = this.#opts.probeTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return (await Promise.race([kc.makeApiClient(VersionApi).getCode(), timeout])).gitVersion;
    } finally {
      clearTimeout(timer);
    }
  }
}

export function createExistingRuntime(options: ExistingRuntimeOptions = {}): ExistingRuntime {
  return new ExistingRuntime(options);
}
