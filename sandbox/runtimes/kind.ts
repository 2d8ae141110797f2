// The `kind` runtime: `kind create cluster` from a generated config (kind-config.ts: every kubelet on
// --cloud-provider=external), each node container registered as a simcloud server with its address on
// the cluster's docker network (kind-network.ts) before the CCM starts, and simcloud's power actions
// mirrored on the containers (docker stop/start/restart/rm -f), so node lifecycle flows are real.
// Everything runs through exec.ts, so `--dry-run` shows the exact sequence (see dry-run.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { VersionApi } from '@kubernetes/client-node';
import { PooledKubeConfig } from '../kube/pooled-kubeconfig.ts';
import type { Exec } from '../exec.ts';
import { waitFor } from '../wait.ts';
import { dockerEngineAvailable, dockerPowerArgs, inspectContainers, KIND_ROLE_LABEL, type ContainerInfo } from './docker.ts';
import { KindConfigError, KIND_CONFIG_DEFAULTS, renderKindConfig } from './kind-config.ts';
import {
  ensureDockerNetwork,
  kindNetworkPlan,
  lbHostInstructions,
  loopbackNodeAddress,
  type KindNetworkOptions,
  type KindNetworkPlan,
} from './kind-network.ts';
import {
  NODE_ROLES,
  type Availability,
  type CloudNetwork,
  type ClusterInfo,
  type MachineSpec,
  type PowerEvent,
  type RegisteredServer,
  type Runtime,
  type RuntimeContext,
} from './runtime.ts';

/** Environment variable naming the node image when no `image` option is given. */
export const KIND_IMAGE_ENV = 'CCM_SANDBOX_KIND_IMAGE';
export const KIND_TARGET_KUBERNETES = 'v1.37.1';

export interface KindRuntimeOptions {
  /** Node image; default: $CCM_SANDBOX_KIND_IMAGE. Required (see missingImageMessage). */
  readonly image?: string;
  readonly network?: KindNetworkOptions;
  readonly podSubnet?: string;
  readonly platform?: NodeJS.Platform;
  /** Where $CCM_SANDBOX_KIND_IMAGE is read from (tests). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface GeneratedFile {
  readonly path: string;
  readonly content: string;
}

/**
 * No kind release ships a kindest/node image for Kubernetes v1.37.1 (kind v0.33.0, the latest release,
 * pre-builds v1.37.0), so the image is a required setting rather than a guessed default.
 */
export function missingImageMessage(): string {
  return [
    `the kind runtime needs a node image for Kubernetes ${KIND_TARGET_KUBERNETES}; set ${KIND_IMAGE_ENV}, e.g.`,
    `  kind build node-image --type release --image ccm-sandbox/node:${KIND_TARGET_KUBERNETES} ${KIND_TARGET_KUBERNETES} && export ${KIND_IMAGE_ENV}=ccm-sandbox/node:${KIND_TARGET_KUBERNETES}`,
    `  or kind v0.33.0's prebuilt 1.37 image: export ${KIND_IMAGE_ENV}=kindest/node:v1.37.0@sha256:a1ed56cfb0e7b93589bdf97c8cd566405a265939e3620fc4f5de89adff580ae5`,
  ].join('\n');
}

export function resolveKindImage(options: Pick<KindRuntimeOptions, 'image' | 'env'>): string {
  const image = options.image ?? (options.env ?? process.env)[KIND_IMAGE_ENV];
  if (!image) throw new KindConfigError(missingImageMessage());
  return image;
}

/** Docker engine answering and the kind binary present. */
export async function kindAvailable(exec: Exec): Promise<Availability> {
  const docker = await dockerEngineAvailable(exec);
  if (!docker.ok) return docker;
  const kind = await exec.run('kind', ['version'], { allowFailure: true, timeoutMs: 15_000 });
  if (kind.exitCode !== 0)
    return {
      ok: false,
      reason: 'the kind binary is missing or broken (kind version failed); install it from https://kind.sigs.k8s.io/docs/user/quick-start/#installation',
    };
  return { ok: true };
}

function roleOf(c: ContainerInfo): MachineSpec['role'] {
  const label = c.labels[KIND_ROLE_LABEL];
  if (label) return label === 'control-plane' ? NODE_ROLES.controlPlane : NODE_ROLES.worker;
  return c.name.endsWith('-control-plane') ? NODE_ROLES.controlPlane : NODE_ROLES.worker;
}

export class KindRuntime implements Runtime {
  readonly name = 'kind' as const;
  readonly #opts: KindRuntimeOptions;
  readonly #files: GeneratedFile[] = [];
  #containers = new Set<string>();
  #unsubscribe: () => void = () => undefined;
  #queue: Promise<void> = Promise.resolve();

  constructor(options: KindRuntimeOptions = {}) {
    this.#opts = options;
  }

  /** Files up() wrote (or, in dry-run mode, would have written). */
  get generatedFiles(): readonly GeneratedFile[] {
    return this.#files;
  }

  get networkPlan(): KindNetworkPlan {
    return kindNetworkPlan(this.#opts.network, this.#opts.platform);
  }

  /** bridge: the docker subnet and its VIP range; port mapping: the loopback defaults. */
  cloudNetwork(): CloudNetwork | undefined {
    const plan = this.networkPlan;
    return plan.mode === 'bridge' ? { range: plan.subnet, vipPool: plan.vipRange } : undefined;
  }

  available(ctx: Pick<RuntimeContext, 'exec'>): Promise<Availability> {
    return kindAvailable(ctx.exec);
  }

  kubeconfigPath(ctx: Pick<RuntimeContext, 'stateDir'>): string {
    return join(ctx.stateDir, 'kubeconfig');
  }

  configPath(ctx: Pick<RuntimeContext, 'stateDir'>): string {
    return join(ctx.stateDir, 'kind-config.yaml');
  }

  async up(ctx: RuntimeContext): Promise<ClusterInfo> {
    const image = resolveKindImage(this.#opts);
    const plan = this.networkPlan;
    const podSubnet = this.#opts.podSubnet ?? KIND_CONFIG_DEFAULTS.podSubnet;
    const portMapping =
      plan.mode === 'port-mapping'
        ? { listenAddresses: Array.from({ length: ctx.workers + 1 }, (_, i) => loopbackNodeAddress(plan, i)), ports: plan.mappedPorts }
        : undefined;
    this.#write(ctx.exec, this.configPath(ctx), renderKindConfig({ workers: ctx.workers, image, podSubnet, ...(portMapping ? { portMapping } : {}) }));
    if (plan.mode === 'bridge') ctx.progress(`docker network ${plan.dockerNetwork} ${await ensureDockerNetwork(ctx.exec, plan)} (${plan.subnet})`);
    await this.#createCluster(ctx, plan);
    const containers = await this.#nodeContainers(ctx);
    const machines = await this.#register(ctx, containers, plan);
    this.#mirrorPowerActions(ctx);
    if (!ctx.exec.dryRun) await waitForApi(this.kubeconfigPath(ctx));
    for (const line of lbHostInstructions(plan)) ctx.progress(line);
    return { kubeconfigPath: this.kubeconfigPath(ctx), machines, clusterCidr: podSubnet };
  }

  async down(ctx: RuntimeContext): Promise<void> {
    this.#unsubscribe();
    this.#unsubscribe = () => undefined;
    await this.#queue;
    // `kind delete cluster` succeeds when the cluster does not exist; --kubeconfig keeps ~/.kube/config untouched.
    const out = await ctx.exec.run('kind', ['delete', 'cluster', '--name', ctx.name, '--kubeconfig', this.kubeconfigPath(ctx)], {
      allowFailure: true,
      timeoutMs: 5 * 60_000,
    });
    if (out.exitCode !== 0) await this.#checkGone(ctx, out.stderr);
    this.#containers.clear();
    ctx.progress(`kind cluster ${ctx.name} deleted (docker network ${this.networkPlan.dockerNetwork} is kept for the next cluster)`);
  }

  async collectLogs(ctx: RuntimeContext, dir: string): Promise<void> {
    if (!ctx.exec.dryRun) mkdirSync(dir, { recursive: true });
    const out = await ctx.exec.run('kind', ['export', 'logs', dir, '--name', ctx.name], { allowFailure: true });
    if (out.exitCode !== 0) ctx.progress(`kind export logs failed (is the cluster gone?): ${out.stderr.trim().split('\n')[0] ?? ''}`);
  }

  /** After a failed delete: an error if the cluster is still there, else (e.g. no kind binary) only a warning. */
  async #checkGone(ctx: RuntimeContext, stderr: string): Promise<void> {
    const clusters = await ctx.exec.run('kind', ['get', 'clusters'], { allowFailure: true });
    const why = stderr.trim().split('\n').at(-1) ?? '';
    if (
      clusters.exitCode === 0 &&
      clusters.stdout
        .split('\n')
        .map((l) => l.trim())
        .includes(ctx.name)
    ) {
      throw new Error(`kind delete cluster --name ${ctx.name} failed and the cluster still exists: ${why}`);
    }
    ctx.progress(`warning: kind delete cluster failed (${why}); there is no kind cluster ${ctx.name} left to delete`);
  }

  /** Settles when every power action received so far has been carried out (tests, shutdown). */
  whenIdle(): Promise<void> {
    return this.#queue;
  }

  #write(exec: Exec, path: string, content: string): void {
    this.#files.push({ path, content });
    if (exec.dryRun) return;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }

  async #createCluster(ctx: RuntimeContext, plan: KindNetworkPlan): Promise<void> {
    const env: Record<string, string> = plan.mode === 'bridge' ? { KIND_EXPERIMENTAL_DOCKER_NETWORK: plan.dockerNetwork } : {};
    const clusters = await ctx.exec.run('kind', ['get', 'clusters']);
    if (
      clusters.stdout
        .split('\n')
        .map((l) => l.trim())
        .includes(ctx.name)
    ) {
      ctx.progress(`kind cluster ${ctx.name} exists; reusing it`);
      await ctx.exec.run('kind', ['export', 'kubeconfig', '--name', ctx.name, '--kubeconfig', this.kubeconfigPath(ctx)]);
      return;
    }
    const args = ['create', 'cluster', '--name', ctx.name, '--config', this.configPath(ctx), '--kubeconfig', this.kubeconfigPath(ctx), '--wait', '0s'];
    await ctx.exec.run('kind', args, { env, timeoutMs: 15 * 60_000, onLine: (l) => l.trim() && ctx.progress(`kind: ${l.trim()}`) });
  }

  async #nodeContainers(ctx: RuntimeContext): Promise<ContainerInfo[]> {
    const names = (await ctx.exec.run('kind', ['get', 'nodes', '--name', ctx.name])).stdout
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    if (names.length === 0) throw new Error(`kind reports no nodes for cluster ${ctx.name}`);
    const infos = await inspectContainers(ctx.exec, names.sort());
    return infos.filter((c) => c.labels[KIND_ROLE_LABEL] !== 'external-load-balancer');
  }

  async #register(ctx: RuntimeContext, containers: readonly ContainerInfo[], plan: KindNetworkPlan): Promise<RegisteredServer[]> {
    const ordered = [...containers].sort(
      (a, b) =>
        Number(roleOf(b) === NODE_ROLES.controlPlane) - Number(roleOf(a) === NODE_ROLES.controlPlane) || a.name.localeCompare(b.name, 'en', { numeric: true }),
    );
    const machines: RegisteredServer[] = [];
    for (const c of ordered) {
      // bridge: the container's address on the network; port mapping: the loopback address its ports are published on.
      const ip = plan.mode === 'bridge' ? c.networks[plan.dockerNetwork]?.ipv4 : c.publishedOn[0];
      if (!ip)
        throw new Error(
          `node container ${c.name} has no ${plan.mode === 'bridge' ? `IPv4 address on docker network ${plan.dockerNetwork}` : 'published loopback address'}`,
        );
      machines.push(await ctx.cloud.registerServer({ name: c.name, role: roleOf(c), privateIPv4: ip }));
      this.#containers.add(c.name);
      ctx.progress(`server ${c.name} registered (${ip})`);
    }
    return machines;
  }

  #mirrorPowerActions(ctx: RuntimeContext): void {
    this.#unsubscribe();
    this.#unsubscribe = ctx.cloud.onPowerEvent((event) => {
      if (!this.#containers.has(event.name)) return;
      this.#queue = this.#queue.then(() => this.#power(ctx, event));
    });
  }

  async #power(ctx: RuntimeContext, event: PowerEvent): Promise<void> {
    const args = dockerPowerArgs(event.action, event.name);
    const out = await ctx.exec.run('docker', args, { allowFailure: true, timeoutMs: 120_000 });
    if (out.exitCode !== 0) ctx.progress(`warning: docker ${args.join(' ')} failed: ${out.stderr.trim().split('\n')[0] ?? ''}`);
    else ctx.progress(`${event.action} ${event.name}: docker ${args[0] ?? ''}`);
    if (event.action === 'delete') this.#containers.delete(event.name);
  }
}

async function waitForApi(kubeconfigPath: string): Promise<void> {
  const kc = new PooledKubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const version = kc.makeApiClient(VersionApi);
  await waitFor(async () => (await version.getCode()).gitVersion, { timeoutMs: 120_000, intervalMs: 1000, description: 'the kind API server /version' });
}

export function createKindRuntime(options: KindRuntimeOptions = {}): KindRuntime {
  return new KindRuntime(options);
}
