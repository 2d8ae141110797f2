// The e2e suites' sandbox: one per worker (the e2e project runs its files one after another in a single
// worker, isolate: false), brought up with the same orchestration as `npm run sandbox:up` on the runtime
// named by SANDBOX_RUNTIME (default local) with the CCM named by SANDBOX_CCM (builtin or upstream, default
// builtin) on the cloud named by SANDBOX_CLOUD (simcloud, hcloud, linode or digitalocean, default simcloud; a persona needs
// SANDBOX_CCM=upstream). Plus small helpers the flow suites share.
import type { KubeConfig } from '@kubernetes/client-node';
import { CoreV1Api, type V1Service } from '@kubernetes/client-node';
import { FAST_CCM_ARGS } from '../../sandbox/conformance/run.ts';
import { PooledKubeConfig } from '../../sandbox/kube/pooled-kubeconfig.ts';
import { isRuntimeChoice, resolveRuntime } from '../../sandbox/runtimes/factory.ts';
import { createExec } from '../../sandbox/exec.ts';
import type { LbStrategy, SandboxOptions } from '../../sandbox/sandbox.ts';
import { createThrowawaySandbox, type ThrowawaySandbox } from '../../sandbox/throwaway.ts';
import type { CcmChoice } from '../../sandbox/ccm/slot.ts';
import { CLOUDS, DEFAULT_CLOUD, cloudOf, isCloudKind, type CloudKind } from '../../sandbox/cloud/registry.ts';
import { basename } from 'node:path';
import { waitFor } from '../../sandbox/wait.ts';

export interface E2eSandbox {
  readonly sandbox: ThrowawaySandbox['sandbox'];
  /** Stops the sandbox and removes its state directory. */
  readonly stop: () => Promise<void>;
  readonly kubeConfig: KubeConfig;
  readonly core: CoreV1Api;
}

/** Short periods so the flows converge in seconds (the defaults are upstream's); both CCMs take these flags. */
export const CCM_E2E_ARGS: readonly string[] = FAST_CCM_ARGS;

interface E2eOptions {
  readonly lbStrategy?: LbStrategy;
  readonly workers?: number;
  readonly name?: string;
  /** Default: the CCM named by SANDBOX_CCM. */
  readonly ccm?: CcmChoice;
  readonly waitForNodes?: boolean;
  /** Default: the cloud named by SANDBOX_CLOUD. */
  readonly cloud?: CloudKind;
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

async function sandboxOptions(opts: E2eOptions): Promise<Omit<SandboxOptions, 'stateDir' | 'addressPlan'>> {
  const choice = process.env.SANDBOX_RUNTIME ?? 'local';
  if (!isRuntimeChoice(choice)) throw new Error(`SANDBOX_RUNTIME=${choice}: use local, kind, vagrant or existing`);
  const name = opts.name ?? 'e2e';
  const kubeconfig = process.env.SANDBOX_KUBECONFIG;
  return {
    name,
    runtime: await resolveRuntime(choice, createExec()),
    workers: opts.workers ?? 2,
    lbStrategy: opts.lbStrategy ?? 'lb',
    ...(kubeconfig ? { kubeconfig } : {}),
    ccm: opts.ccm ?? e2eCcm(),
    cloud: opts.cloud ?? e2eCloud(),
    ...(opts.waitForNodes === false ? { waitForNodes: false } : {}),
    ccmArgs: CCM_E2E_ARGS,
  };
}

/** A sandbox not yet up (its `stop` cleans up whatever `up` got to, e.g. after a failed start). */
export async function createE2eSandbox(opts: E2eOptions = {}): Promise<ThrowawaySandbox> {
  return createThrowawaySandbox(await sandboxOptions(opts), 'ccm-sandbox-e2e-');
}

export async function startE2eSandbox(opts: E2eOptions = {}): Promise<E2eSandbox> {
  const { sandbox, stop } = await createE2eSandbox(opts);
  await sandbox.up();
  const kubeConfig = new PooledKubeConfig();
  kubeConfig.loadFromFile(sandbox.cluster?.kubeconfigPath ?? '');
  return { sandbox, stop, kubeConfig, core: kubeConfig.makeApiClient(CoreV1Api) };
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

/** The conformance run's helpers, shared by the other e2e suites. */
export { hasTaint, httpGet, readyOf } from '../../sandbox/conformance/context.ts';

/**
 * The cloud's own CCM when <CLOUD>_CCM_BINARY names its binary (built by hand: CI cannot build them), with the
 * command line sandbox:up prints, and the name its process shows in /proc/<pid>/comm (15 characters at most).
 */
export function ownCcmOf(cloud: CloudKind): { ccm: CcmChoice; comm: string } | undefined {
  const binary = process.env[`${cloud.toUpperCase()}_CCM_BINARY`];
  const own = cloudOf(cloud).ownCcm;
  if (!binary || own === undefined) return undefined;
  return { ccm: { kind: 'command', command: own.command(binary) }, comm: basename(binary).slice(0, 15) };
}
