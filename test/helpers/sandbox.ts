// The e2e suites' sandbox: one per worker (the e2e project runs its files one after another in a single
// worker, isolate: false), brought up with the same orchestration as `npm run sandbox:up` on the runtime
// named by SANDBOX_RUNTIME (default local) with the CCM named by SANDBOX_CCM (builtin or upstream, default
// builtin) on the cloud named by SANDBOX_CLOUD (simcloud, hcloud, linode or digitalocean, default simcloud; a persona needs
// SANDBOX_CCM=upstream). Plus small helpers the flow suites share.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { CoreV1Api, type V1Node, type V1Service } from '@kubernetes/client-node';
import { PooledKubeConfig } from '../../src/kube/kubeconfig.ts';
import { isRuntimeChoice, resolveRuntime } from '../../sandbox/runtimes/factory.ts';
import { createExec } from '../../sandbox/exec.ts';
import { Sandbox, type LbStrategy, type SandboxOptions } from '../../sandbox/sandbox.ts';
import type { CcmChoice } from '../../sandbox/ccm/slot.ts';
import { CLOUDS, DEFAULT_CLOUD, isCloudKind, type CloudKind } from '../../sandbox/cloud/registry.ts';
import { claimLoopbackAddressPlan, type AddressPlan } from '../../sandbox/cloud/address-plan.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { registerCleanup } from '../../sandbox/shutdown.ts';
import { reaper } from '../../sandbox/reaper-client.ts';

export interface E2eSandbox {
  readonly sandbox: Sandbox;
  /** Stops the sandbox and removes its state directory. */
  readonly stop: () => Promise<void>;
  readonly kubeConfig: KubeConfig;
  readonly core: CoreV1Api;
}

let shared: Promise<E2eSandbox> | undefined;

/** Short periods so the flows converge in seconds (the defaults are upstream's); both CCMs take these flags. */
export const CCM_E2E_ARGS: readonly string[] = ['--node-monitor-period=1s', '--route-reconciliation-period=2s'];

interface E2eOptions {
  readonly lbStrategy?: LbStrategy;
  readonly workers?: number;
  readonly name?: string;
  /** Default: the CCM named by SANDBOX_CCM. */
  readonly ccm?: CcmChoice;
  readonly waitForNodes?: boolean;
}

/** The CCM the flow suites run on: SANDBOX_CCM=builtin|upstream (default builtin). */
export function e2eCcm(env: NodeJS.ProcessEnv = process.env): CcmChoice {
  const kind = env.SANDBOX_CCM ?? 'builtin';
  if (kind !== 'builtin' && kind !== 'upstream') throw new Error(`SANDBOX_CCM=${kind}: use builtin or upstream`);
  return { kind };
}

/** The cloud the flow suites run on: SANDBOX_CLOUD=simcloud|hcloud|linode|digitalocean (default simcloud). */
export function e2eCloud(env: NodeJS.ProcessEnv = process.env): CloudKind {
  const kind = env.SANDBOX_CLOUD ?? DEFAULT_CLOUD;
  if (!isCloudKind(kind)) throw new Error(`SANDBOX_CLOUD=${kind}: use ${CLOUDS.join(', ')}`);
  return kind;
}

async function sandboxOptions(opts: E2eOptions, stateDir: string, addressPlan: AddressPlan): Promise<SandboxOptions> {
  const choice = process.env.SANDBOX_RUNTIME ?? 'local';
  if (!isRuntimeChoice(choice)) throw new Error(`SANDBOX_RUNTIME=${choice}: use local, kind, vagrant or existing`);
  const name = opts.name ?? 'e2e';
  const kubeconfig = process.env.SANDBOX_KUBECONFIG;
  return {
    name,
    addressPlan,
    runtime: await resolveRuntime(choice, createExec()),
    workers: opts.workers ?? 2,
    lbStrategy: opts.lbStrategy ?? 'lb',
    stateDir,
    ...(kubeconfig ? { kubeconfig } : {}),
    ccm: opts.ccm ?? e2eCcm(),
    cloud: e2eCloud(),
    ...(opts.waitForNodes === false ? { waitForNodes: false } : {}),
    ccmArgs: CCM_E2E_ARGS,
  };
}

/** A sandbox not yet up (its `stop` cleans up whatever `up` got to, e.g. after a failed start). */
export async function createE2eSandbox(opts: E2eOptions = {}): Promise<Omit<E2eSandbox, 'kubeConfig' | 'core'>> {
  const stateDir = mkdtempSync(join(tmpdir(), 'ccm-sandbox-e2e-'));
  // A test's sandbox is throwaway: if the worker dies, the reaper removes it with the processes.
  reaper().trackDir(stateDir);
  // Loopback ranges of this sandbox's own, so suites running side by side (here or in another checkout)
  // never share a VIP or a node address.
  const addresses = claimLoopbackAddressPlan();
  const sandbox = new Sandbox(await sandboxOptions(opts, stateDir, addresses.plan));
  // Once only: a second release could free an address plan another sandbox has claimed since.
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      await sandbox.down();
      addresses.release();
      rmSync(stateDir, { recursive: true, force: true });
      reaper().untrackDir(stateDir);
    })());
  registerCleanup(stop);
  return { sandbox, stop };
}

export async function startE2eSandbox(opts: E2eOptions = {}): Promise<E2eSandbox> {
  const { sandbox, stop } = await createE2eSandbox(opts);
  await sandbox.up();
  const kubeConfig = new PooledKubeConfig();
  kubeConfig.loadFromFile(sandbox.cluster?.kubeconfigPath ?? '');
  return { sandbox, stop, kubeConfig, core: kubeConfig.makeApiClient(CoreV1Api) };
}

/** The worker's sandbox, started on first use and stopped when the worker exits. */
export function sharedSandbox(): Promise<E2eSandbox> {
  shared ??= startE2eSandbox();
  return shared;
}

export function readyOf(node: V1Node): string {
  return node.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
}

export function hasTaint(node: V1Node, key: string): boolean {
  return node.spec?.taints?.some((t) => t.key === key) ?? false;
}

export async function waitForIngress(core: CoreV1Api, namespace: string, name: string, timeoutMs = 60_000): Promise<string> {
  return waitFor(
    async () => {
      const svc: V1Service = await core.readNamespacedService({ name, namespace });
      return svc.status?.loadBalancer?.ingress?.[0]?.ip;
    },
    { timeoutMs, intervalMs: 250, description: `an ingress IP for ${namespace}/${name}` },
  );
}

/** One HTTP/1.1 exchange over a raw socket (optionally from a chosen loopback source address). */
export function httpGet(ip: string, port: number, path = '/', localAddress?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: ip, port, ...(localAddress ? { localAddress } : {}) });
    let raw = '';
    socket.setTimeout(5000, () => socket.destroy(new Error(`timeout talking to ${ip}:${port}`)));
    socket.on('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nhost: ${ip}\r\nconnection: close\r\n\r\n`));
    socket.on('data', (d: Buffer) => (raw += d.toString()));
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(raw)?.[1] ?? 0);
      resolve({ status, body: raw.slice(raw.indexOf('\r\n\r\n') + 4) });
    });
    socket.on('error', reject);
  });
}
