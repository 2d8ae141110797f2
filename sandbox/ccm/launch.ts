// How each kind of CCM in the slot is started (all through the one launcher, processes.ts), and the
// environment and command line a CCM of the user's own gets. builtin: our CCM with the admin kubeconfig;
// upstream: the Go CCM (built or found by upstream.ts) with upstream's flags; command: the user's shell
// command line with the CCM identity's kubeconfig and the cloud in its environment.
import { join } from 'node:path';
import { cloudOf, DEFAULT_CLOUD, type CloudKind } from '../cloud/registry.ts';
import { SANDBOX_DEFAULTS } from '../cloud/sandbox-cloud.ts';
import { interceptEnv, type InterceptInfo } from '../intercept/sandbox.ts';
import type { Exec } from '../exec.ts';
import { freePort } from '../ports.ts';
import { launchProcess, startCcmProcess } from '../processes.ts';
import type { LaunchedCcm } from './supervisor.ts';
import { getUpstreamCcm, upstreamCcmArgs } from './upstream.ts';

/** What every kind of CCM needs to know about the sandbox it runs in. */
export interface CcmContext {
  readonly exec: Exec;
  readonly stateDir: string;
  readonly clusterName: string;
  readonly clusterCidr: string;
  readonly simcloud: { readonly url: string; readonly token: string };
  /** The sandbox's interception proxy (sandbox/intercept/), for a cloud whose CCM has its API hostnames compiled in. */
  readonly intercept?: InterceptInfo | null;
  /** The simcloud network holding the nodes (routes); the cluster's name. */
  readonly network: string;
  readonly lbStrategy: 'lb' | 'ip-block';
  /** The API the CCM is given: simcloud's /v1 (default) or a persona's. */
  readonly cloud?: CloudKind;
  /** Extra flags (tests, benchmarks): our CCM and upstream's share the ones that matter, e.g. --node-monitor-period. */
  readonly extraArgs: readonly string[];
}

/** A command CCM must stay up this long to count as started; one that exits sooner is a bad command. */
export const COMMAND_STARTUP_MS = 2000;

/** The directory for a CCM's own files (identity kubeconfig, serving certificates). */
export function ccmDir(stateDir: string): string {
  return join(stateDir, 'ccm');
}

export function upstreamCertDir(stateDir: string): string {
  return join(ccmDir(stateDir), 'certs');
}

export function ccmLogFile(stateDir: string): string {
  return join(stateDir, 'logs', 'ccm.log');
}

export async function launchBuiltinCcm(ctx: CcmContext, kubeconfig: string, allowedHostArgs: readonly string[]): Promise<LaunchedCcm> {
  const ccm = await startCcmProcess({
    exec: ctx.exec,
    stateDir: ctx.stateDir,
    kubeconfig,
    clusterName: ctx.clusterName,
    clusterCidr: ctx.clusterCidr,
    simcloud: ctx.simcloud,
    network: ctx.network,
    lbStrategy: ctx.lbStrategy,
    extraArgs: [...allowedHostArgs, ...ctx.extraArgs],
  });
  return { process: ccm.process, url: ccm.url };
}

/** Upstream's command line for this sandbox; `securePort` 10258 is upstream's default, for a printed example. */
export function upstreamArgsFor(
  ctx: Pick<CcmContext, 'stateDir' | 'clusterName' | 'clusterCidr' | 'network' | 'cloud'>,
  kubeconfig: string,
  securePort: number,
): string[] {
  const { upstream } = cloudOf(ctx.cloud ?? DEFAULT_CLOUD);
  return upstreamCcmArgs({
    cloudProvider: upstream.provider,
    providerArgs: upstream.extraArgs,
    kubeconfig,
    clusterName: ctx.clusterName,
    clusterCidr: ctx.clusterCidr,
    configureCloudRoutes: ctx.network !== '' && upstream.routes,
    securePort,
    certDir: upstreamCertDir(ctx.stateDir),
  });
}

/**
 * The upstream Go CCM for `cloud` as a `--ccm command` line (the previous CCM of an upgrade, say): its flags
 * from the environment the slot gives a command (commandCcmEnv), serving nothing.
 */
export function upstreamCcmCommand(binary: string, cloud: CloudKind = DEFAULT_CLOUD): string {
  const { upstream } = cloudOf(cloud);
  const args = upstreamCcmArgs({
    cloudProvider: upstream.provider,
    providerArgs: upstream.extraArgs,
    kubeconfig: '"$KUBECONFIG"',
    clusterName: '"$CCM_SANDBOX_CLUSTER_NAME"',
    clusterCidr: '"$CCM_SANDBOX_CLUSTER_CIDR"',
    configureCloudRoutes: upstream.routes,
    securePort: 0,
    certDir: '"$CCM_SANDBOX_CCM_DIR/certs"',
  });
  return [binary, ...args].join(' ');
}

/**
 * The cloud's part of a CCM's environment: SIMCLOUD_* for /v1, the persona's own variables for a persona, and for
 * a cloud with real API hostnames the interception proxy's (HTTPS_PROXY, SSL_CERT_FILE, NO_PROXY).
 */
export function cloudCcmEnv(ctx: Pick<CcmContext, 'simcloud' | 'network' | 'lbStrategy' | 'cloud' | 'intercept'>): Record<string, string> {
  const cloud = cloudOf(ctx.cloud ?? DEFAULT_CLOUD);
  return {
    ...cloud.ccmEnv({
      simcloudUrl: ctx.simcloud.url,
      token: ctx.simcloud.token,
      network: ctx.network,
      lbStrategy: ctx.lbStrategy,
      zone: SANDBOX_DEFAULTS.zone,
    }),
    ...(ctx.intercept && (cloud.realHosts ?? []).length > 0 ? interceptEnv(ctx.intercept) : {}),
  };
}

export async function launchUpstreamCcm(ctx: CcmContext, binary: string, kubeconfig: string): Promise<LaunchedCcm> {
  const port = await freePort();
  const certDir = upstreamCertDir(ctx.stateDir);
  const env = { ...process.env, ...cloudCcmEnv(ctx) } as Record<string, string>;
  const { process: proc } = await launchProcess({
    exec: ctx.exec,
    name: 'ccm',
    describe: `the upstream CCM (${binary})`,
    command: binary,
    args: [...upstreamArgsFor(ctx, kubeconfig, port), ...ctx.extraArgs],
    env,
    logFile: ccmLogFile(ctx.stateDir),
    ready: () => getUpstreamCcm(port, certDir).then((r) => r.status === 200),
    readyDescription: 'the upstream CCM /healthz',
  });
  return { process: proc, url: `https://127.0.0.1:${port}` };
}

/** The environment of a CCM the user runs: the cloud, the CCM identity's kubeconfig, the cluster. */
export function commandCcmEnv(ctx: Omit<CcmContext, 'exec' | 'extraArgs'>, kubeconfig: string): Record<string, string> {
  return {
    ...cloudCcmEnv(ctx),
    KUBECONFIG: kubeconfig,
    CCM_SANDBOX_CLUSTER_NAME: ctx.clusterName,
    CCM_SANDBOX_CLUSTER_CIDR: ctx.clusterCidr,
    CCM_SANDBOX_CCM_DIR: ccmDir(ctx.stateDir),
  };
}

export async function launchCommandCcm(ctx: CcmContext, command: string, kubeconfig: string): Promise<LaunchedCcm> {
  const started = Date.now();
  const { process: proc } = await launchProcess({
    exec: ctx.exec,
    name: 'ccm',
    describe: `the CCM command \`${command}\``,
    command: '/bin/sh',
    args: ['-c', command],
    env: { ...process.env, ...commandCcmEnv(ctx, kubeconfig) } as Record<string, string>,
    logFile: ccmLogFile(ctx.stateDir),
    cwd: process.cwd(),
    group: true,
    // Its serving, if any, is its own business: up means it did not exit during its first seconds.
    ready: () => Date.now() - started >= COMMAND_STARTUP_MS,
    readyDescription: `the CCM command to stay up for ${COMMAND_STARTUP_MS / 1000} s`,
  });
  return { process: proc, url: null };
}
