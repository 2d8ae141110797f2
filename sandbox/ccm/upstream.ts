// The upstream Go CCM (go/cmd/upstream-ccm: k8s.io/cloud-provider's own controllers over the simcloud
// provider in go/provider/simcloud) for the sandbox: finding or building its binary, and the exact command
// line the sandbox starts it with. Lookup order:
//   1. $UPSTREAM_CCM_BINARY (an existing build, e.g. one under a debugger's control);
//   2. the cache: $CCM_SANDBOX_CACHE (default ~/.cache/ccm-sandbox)/go/<key>/upstream-ccm, where the key hashes
//      go.mod, go.sum, every non-test .go file of the module, the Go version and GOOS/GOARCH;
//   3. `go build` of the module into the cache, under a lock, with progress lines.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Exec } from '../exec.ts';
import { cacheBase } from '../control-plane/binaries.ts';
import { withDirLock } from '../control-plane/dir-lock.ts';
import { compileProgress, fillCacheDir, goAvailable, goEnv, isExecutable, kubernetesLdflags, secondsSince } from '../go-build.ts';

/** The project's Go module (one module for all our Go code; see docs/adr/0005-go-modules.md). */
export const GO_MODULE_DIR = fileURLToPath(new URL('../../go/', import.meta.url));
export const UPSTREAM_CCM_PACKAGE = './cmd/upstream-ccm';
export const UPSTREAM_CCM_BINARY_ENV = 'UPSTREAM_CCM_BINARY';

export class UpstreamCcmError extends Error {
  override name = 'UpstreamCcmError';
}

/** The k8s.io/cloud-provider version the module requires, e.g. `v0.37.1`. */
export function cloudProviderVersion(goMod: string): string {
  const version = /^\s*(?:require\s+)?k8s\.io\/cloud-provider (v\S+)/m.exec(goMod)?.[1];
  if (!version) throw new UpstreamCcmError('cannot read the k8s.io/cloud-provider version from go.mod');
  return version;
}

/** k8s.io staging modules are versioned v0.<minor>.<patch> for Kubernetes v1.<minor>.<patch>. */
export function kubernetesVersionOf(stagingVersion: string): string {
  return stagingVersion.replace(/^v0\./, 'v1.');
}

/**
 * The module's sources the binary is built from, as paths relative to `dir`, sorted: every .go file but
 * tests (_test.go) and nested modules (a directory with its own go.mod, go/contract/<sdk>). The npm
 * package carries exactly these, so a checkout and an installed package share one cached binary.
 */
export function goFiles(dir: string): string[] {
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  const nested = entries.filter((e) => e.isFile() && e.name === 'go.mod' && e.parentPath !== dir).map((e) => `${relative(dir, e.parentPath)}/`);
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.go') && !e.name.endsWith('_test.go'))
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .filter((file) => !nested.some((n) => file.startsWith(n)))
    .sort();
}

export interface GoToolchain {
  /** `go env GOVERSION`, e.g. go1.26.8. */
  readonly version: string;
  readonly goos: string;
  readonly goarch: string;
}

/** The cache key: any change to the module's sources, the toolchain or the target gives a new one. */
export function upstreamCcmKey(moduleDir: string, toolchain: GoToolchain): string {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum', ...goFiles(moduleDir)]) {
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(moduleDir, file)))
      .update('\0');
  }
  const cloudProvider = cloudProviderVersion(readFileSync(join(moduleDir, 'go.mod'), 'utf8'));
  return `upstream-ccm-${cloudProvider}-${toolchain.version}-${toolchain.goos}-${toolchain.goarch}-${hash.digest('hex').slice(0, 12)}`;
}

async function toolchain(exec: Exec, env: NodeJS.ProcessEnv): Promise<GoToolchain> {
  const r = await exec.run('go', ['env', 'GOVERSION', 'GOOS', 'GOARCH'], { env: goEnv(env) });
  const [version = '', goos = '', goarch = ''] = r.stdout
    .trim()
    .split('\n')
    .map((l) => l.trim());
  return { version, goos, goarch };
}

export interface EnsureUpstreamCcmOptions {
  readonly exec: Exec;
  readonly env?: NodeJS.ProcessEnv;
  /** Progress lines for humans. */
  readonly onProgress?: (message: string) => void;
  /** Rebuild into the cache even when a cached binary exists. */
  readonly force?: boolean;
}

/** The path of a runnable upstream-ccm binary: from $UPSTREAM_CCM_BINARY, the cache, or a fresh build. */
export async function ensureUpstreamCcmBinary(options: EnsureUpstreamCcmOptions): Promise<string> {
  const env = options.env ?? process.env;
  const override = env[UPSTREAM_CCM_BINARY_ENV];
  if (override) {
    if (!isExecutable(override)) throw new UpstreamCcmError(`${UPSTREAM_CCM_BINARY_ENV}=${override} is not an executable file`);
    return override;
  }
  if (!(await goAvailable(options.exec))) {
    throw new UpstreamCcmError(
      `the upstream CCM is built from ${GO_MODULE_DIR} and Go is not installed: install Go >= 1.26, or set ${UPSTREAM_CCM_BINARY_ENV} to an upstream-ccm binary`,
    );
  }
  const key = upstreamCcmKey(GO_MODULE_DIR, await toolchain(options.exec, env));
  const cacheDir = join(cacheBase(env), 'go', key);
  const binary = join(cacheDir, 'upstream-ccm');
  if (!options.force && isExecutable(binary)) return binary;
  await withDirLock(`${cacheDir}.lock`, async () => {
    // Another process may have finished the same build while we waited for the lock.
    if (!options.force && isExecutable(binary)) return;
    await buildUpstreamCcm(options, { key, cacheDir });
  });
  if (!isExecutable(binary)) throw new UpstreamCcmError(`the build finished but ${binary} is missing`);
  return binary;
}

async function buildUpstreamCcm(options: EnsureUpstreamCcmOptions, target: { key: string; cacheDir: string }): Promise<void> {
  const progress = options.onProgress ?? (() => undefined);
  const env = goEnv({ ...process.env, ...options.env });
  const version = kubernetesVersionOf(cloudProviderVersion(readFileSync(join(GO_MODULE_DIR, 'go.mod'), 'utf8')));
  progress(
    `building upstream-ccm (k8s.io/cloud-provider for Kubernetes ${version}) from ${GO_MODULE_DIR}: seconds once the control plane is built (the Go build cache holds nearly all its packages), about 5 minutes from nothing`,
  );
  const started = Date.now();
  await fillCacheDir(target.cacheDir, async (staging) => {
    await options.exec.run('go', ['mod', 'download'], { cwd: GO_MODULE_DIR, env });
    const args = ['build', '-v', '-trimpath', '-ldflags', kubernetesLdflags(version), '-o', join(staging, 'upstream-ccm'), UPSTREAM_CCM_PACKAGE];
    await options.exec.run('go', args, { cwd: GO_MODULE_DIR, env, onLine: compileProgress(progress, started, 50) });
    writeFileSync(
      join(staging, 'build.json'),
      `${JSON.stringify({ key: target.key, kubernetes: version, seconds: secondsSince(started), builtAt: new Date().toISOString() }, null, 2)}\n`,
    );
  });
  progress(`built upstream-ccm into ${target.cacheDir} in ${secondsSince(started)} s`);
  pruneOldBuilds(join(target.cacheDir, '..'));
}

const BUILD_DIR = /^upstream-ccm-.+-[0-9a-f]{12}$/;

/**
 * Every source change gives a new key and a new 70 MB binary: keep the `keep` most recently built, so other
 * checkouts on other commits keep theirs, and delete the rest (never a staging dir or a lock).
 */
export function pruneOldBuilds(goCacheDir: string, keep = 5): string[] {
  const builds = readdirSync(goCacheDir)
    .filter((name) => BUILD_DIR.test(name))
    .map((name) => ({ name, mtime: statSync(join(goCacheDir, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  const removed = builds.slice(keep).map((b) => b.name);
  for (const name of removed) rmSync(join(goCacheDir, name), { recursive: true, force: true });
  return removed;
}

export interface UpstreamCcmArgsOptions {
  /** Kubeconfig of the CCM's identity; also used for delegated authentication and authorization. */
  readonly kubeconfig: string;
  readonly clusterName: string;
  /** Pod network; the route controller programs routes only inside it. */
  readonly clusterCidr: string;
  /** Routes need a simcloud network (SIMCLOUD_NETWORK); without one upstream would only log a warning. */
  readonly configureCloudRoutes: boolean;
  /** HTTPS port for /healthz and /metrics on 127.0.0.1 (0 = no serving at all). */
  readonly securePort: number;
  /** Where the self-signed serving certificate is written. */
  readonly certDir: string;
  readonly leaderElect?: boolean;
  /** Lease name (default cloud-controller-manager, in kube-system). */
  readonly leaseName?: string;
  /** Lease timings, Go durations (upstream's defaults: 15s, 10s, 2s). */
  readonly lease?: { readonly duration: string; readonly renewDeadline: string; readonly retryPeriod: string };
  /** Period of the node-lifecycle check (upstream's default 5s). */
  readonly nodeMonitorPeriod?: string;
  /** Period of the route reconciliation (upstream's default 10s). */
  readonly routeReconciliationPeriod?: string;
  /** klog verbosity (default 2). */
  readonly verbosity?: number;
  /** The provider (go/provider/<name>): simcloud (/v1, default) or a persona's. */
  readonly cloudProvider?: string;
  /** Flags the provider needs (e.g. hcloud's --allow-untagged-cloud: a persona's resources carry no cluster id). */
  readonly providerArgs?: readonly string[];
  /** `--controllers` (default: upstream's `*`). */
  readonly controllers?: readonly string[];
}

/**
 * The upstream command line for a local run. Node CIDRs are allocated by kube-controller-manager (so
 * `--allocate-node-cidrs=false`); serving binds to loopback with a self-signed certificate; delegated
 * authentication uses the CCM's kubeconfig and skips the extension-apiserver-authentication lookup (no
 * front proxy calls a local CCM); /healthz, /readyz, /livez (upstream's always-allow paths) and /metrics need
 * no credentials, like our CCM's, so a benchmark scrapes both alike. HTTPS with a certificate no browser
 * trusts keeps a DNS-rebound web page out.
 */
export function upstreamCcmArgs(o: UpstreamCcmArgsOptions): string[] {
  const lease = o.lease ?? { duration: '15s', renewDeadline: '10s', retryPeriod: '2s' };
  const provider = o.cloudProvider ?? 'simcloud';
  return [
    `--cloud-provider=${provider}`,
    ...(o.providerArgs ?? []),
    `--kubeconfig=${o.kubeconfig}`,
    `--authentication-kubeconfig=${o.kubeconfig}`,
    `--authorization-kubeconfig=${o.kubeconfig}`,
    '--authentication-skip-lookup=true',
    '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics',
    `--cluster-name=${o.clusterName}`,
    `--cluster-cidr=${o.clusterCidr}`,
    '--allocate-node-cidrs=false',
    `--configure-cloud-routes=${o.configureCloudRoutes}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${o.securePort}`,
    `--cert-dir=${o.certDir}`,
    `--leader-elect=${o.leaderElect ?? true}`,
    `--leader-elect-resource-name=${o.leaseName ?? 'cloud-controller-manager'}`,
    '--leader-elect-resource-namespace=kube-system',
    `--leader-elect-lease-duration=${lease.duration}`,
    `--leader-elect-renew-deadline=${lease.renewDeadline}`,
    `--leader-elect-retry-period=${lease.retryPeriod}`,
    `--node-monitor-period=${o.nodeMonitorPeriod ?? '5s'}`,
    `--route-reconciliation-period=${o.routeReconciliationPeriod ?? '10s'}`,
    ...(o.controllers ? [`--controllers=${o.controllers.join(',')}`] : []),
    `--v=${o.verbosity ?? 2}`,
  ];
}

export interface UpstreamCcmEnvOptions {
  readonly endpoint: string;
  readonly token: string;
  /** simcloud network for routes; none = no Routes capability. */
  readonly network?: string;
  /** Default lb. */
  readonly loadBalancerStrategy?: 'lb' | 'ip-block';
}

/** The CCM's environment: the same variables as our TypeScript CCM reads (docs/reference/env.md). */
export function upstreamCcmEnv(o: UpstreamCcmEnvOptions): Record<string, string> {
  return {
    SIMCLOUD_ENDPOINT: o.endpoint,
    SIMCLOUD_TOKEN: o.token,
    SIMCLOUD_LOAD_BALANCER_STRATEGY: o.loadBalancerStrategy ?? 'lb',
    ...(o.network ? { SIMCLOUD_NETWORK: o.network } : {}),
  };
}

/** The self-signed serving certificate (and its CA) the CCM writes into --cert-dir at start. */
export function upstreamCcmServingCert(certDir: string): string {
  return join(certDir, 'cloud-controller-manager.crt');
}

/**
 * GET https://127.0.0.1:<port><path> of a running upstream CCM, verified against the certificate it wrote
 * (e.g. /healthz, which upstream always allows). Rejects while the CCM does not serve yet.
 */
export function getUpstreamCcm(port: number, certDir: string, path = '/healthz'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let ca: Buffer;
    try {
      ca = readFileSync(upstreamCcmServingCert(certDir));
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    const req = request({ host: '127.0.0.1', port, path, ca, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from 127.0.0.1:${port}${path} within 5 s`)));
    req.on('error', reject);
    req.end();
  });
}
