// Finds or builds etcd, kube-apiserver, kube-controller-manager and kube-scheduler for the one pinned
// Kubernetes release. Lookup order (envtest's, plus our own cache and build):
//   1. TEST_ASSET_ETCD / TEST_ASSET_KUBE_APISERVER / TEST_ASSET_KUBE_CONTROLLER_MANAGER / TEST_ASSET_KUBE_SCHEDULER
//   2. $KUBEBUILDER_ASSETS/<name>
//   3. the cache: $CCM_SANDBOX_CACHE (default ~/.cache/ccm-sandbox)/control-plane/<version key>/
//   4. a build from the committed wrapper module (sandbox/control-plane/gomod), into the cache.
// The version key includes a hash of go.mod + go.sum, so changing the pin never reuses old binaries.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Exec } from '../exec.ts';
import { compileProgress, fillCacheDir, goAvailable, goEnv, isExecutable, kubernetesLdflags, secondsSince } from '../go-build.ts';
import { withDirLock } from './dir-lock.ts';

export const COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;
export type Component = (typeof COMPONENTS)[number];

export type ControlPlaneBinaries = Readonly<Record<Component, string>>;

export const GOMOD_DIR = fileURLToPath(new URL('./gomod/', import.meta.url));

const TEST_ASSET_VARS: Record<Component, string> = {
  etcd: 'TEST_ASSET_ETCD',
  'kube-apiserver': 'TEST_ASSET_KUBE_APISERVER',
  'kube-controller-manager': 'TEST_ASSET_KUBE_CONTROLLER_MANAGER',
  'kube-scheduler': 'TEST_ASSET_KUBE_SCHEDULER',
};

const BUILD_PACKAGES: Record<Component, string> = {
  etcd: 'go.etcd.io/etcd/server/v3',
  'kube-apiserver': 'k8s.io/kubernetes/cmd/kube-apiserver',
  'kube-controller-manager': 'k8s.io/kubernetes/cmd/kube-controller-manager',
  'kube-scheduler': 'k8s.io/kubernetes/cmd/kube-scheduler',
};

export interface PinnedVersions {
  readonly kubernetes: string;
  readonly etcd: string;
  readonly key: string;
}

export class ControlPlaneBinariesError extends Error {
  override name = 'ControlPlaneBinariesError';
}

/** Reads the pinned versions from the committed wrapper module: go.mod is the single source of truth. */
export function pinnedVersions(gomodDir = GOMOD_DIR): PinnedVersions {
  const mod = readFileSync(join(gomodDir, 'go.mod'), 'utf8');
  const sum = readFileSync(join(gomodDir, 'go.sum'), 'utf8');
  const kubernetes = /^require k8s\.io\/kubernetes (v\S+)/m.exec(mod)?.[1] ?? /\tk8s\.io\/kubernetes (v\S+)/.exec(mod)?.[1];
  const etcd = /\tgo\.etcd\.io\/etcd\/server\/v3 (v\S+)/.exec(mod)?.[1];
  if (!kubernetes || !etcd) throw new ControlPlaneBinariesError(`cannot read the pinned versions from ${gomodDir}go.mod`);
  const hash = createHash('sha256').update(mod).update(sum).digest('hex').slice(0, 12);
  return { kubernetes, etcd, key: `k8s-${kubernetes}-etcd-${etcd}-${process.platform}-${process.arch}-${hash}` };
}

/** The project's per-user cache and lock directory, outside the repo: $CCM_SANDBOX_CACHE or ~/.cache/ccm-sandbox. */
export function cacheBase(env: NodeJS.ProcessEnv = process.env): string {
  return env.CCM_SANDBOX_CACHE ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'ccm-sandbox');
}

export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheBase(env), 'control-plane');
}

export interface Located {
  readonly binaries: Partial<Record<Component, string>>;
  readonly missing: Component[];
  readonly cacheDir: string;
}

/** Steps 1-3 of the lookup order; never builds. */
export function locateBinaries(env: NodeJS.ProcessEnv = process.env, versions = pinnedVersions()): Located {
  const cacheDir = join(cacheRoot(env), versions.key);
  const binaries: Partial<Record<Component, string>> = {};
  for (const component of COMPONENTS) {
    const candidates = [env[TEST_ASSET_VARS[component]], env.KUBEBUILDER_ASSETS && join(env.KUBEBUILDER_ASSETS, component), join(cacheDir, component)];
    const found = candidates.find((c): c is string => Boolean(c) && isExecutable(c as string));
    if (found) binaries[component] = found;
  }
  return { binaries, missing: COMPONENTS.filter((c) => !binaries[c]), cacheDir };
}

export interface EnsureOptions {
  readonly exec: Exec;
  readonly env?: NodeJS.ProcessEnv;
  /** Progress lines for humans (the build takes minutes). */
  readonly onProgress?: (message: string) => void;
  /** Rebuild into the cache even if binaries are found. */
  readonly force?: boolean;
}

export async function ensureBinaries(options: EnsureOptions): Promise<ControlPlaneBinaries> {
  const env = options.env ?? process.env;
  const versions = pinnedVersions();
  const located = locateBinaries(env, versions);
  if (located.missing.length === 0 && !options.force) return located.binaries as ControlPlaneBinaries;
  await withDirLock(`${located.cacheDir}.lock`, async () => {
    // Another process may have finished the build while we waited for the lock.
    if (!options.force && locateBinaries(env, versions).missing.length === 0) return;
    await buildIntoCache(options, versions, located.cacheDir);
  });
  const after = locateBinaries(env, versions);
  if (after.missing.length > 0) throw new ControlPlaneBinariesError(`build finished but ${after.missing.join(', ')} missing from ${after.cacheDir}`);
  return after.binaries as ControlPlaneBinaries;
}

async function buildIntoCache(options: EnsureOptions, versions: PinnedVersions, cacheDir: string): Promise<void> {
  const progress = options.onProgress ?? (() => undefined);
  if (!(await goAvailable(options.exec))) {
    throw new ControlPlaneBinariesError(
      'etcd, kube-apiserver, kube-controller-manager and kube-scheduler not found and Go is not installed: install Go >= 1.26 and run `npm run controlplane:build`, or set KUBEBUILDER_ASSETS (or TEST_ASSET_ETCD, TEST_ASSET_KUBE_APISERVER, TEST_ASSET_KUBE_CONTROLLER_MANAGER, TEST_ASSET_KUBE_SCHEDULER) to existing binaries',
    );
  }
  progress(
    `building Kubernetes ${versions.kubernetes} (kube-apiserver, kube-controller-manager, kube-scheduler) and etcd ${versions.etcd} from Go modules; a cold build takes 10-30 minutes`,
  );
  const started = Date.now();
  await fillCacheDir(cacheDir, async (staging) => {
    await compileInto(staging, options, versions, started);
    writeFileSync(join(staging, 'versions.json'), `${JSON.stringify({ ...versions, builtAt: new Date().toISOString() }, null, 2)}\n`);
  });
  progress(`built into ${cacheDir} in ${secondsSince(started)} s`);
}

async function compileInto(staging: string, options: EnsureOptions, versions: PinnedVersions, started: number): Promise<void> {
  const progress = options.onProgress ?? (() => undefined);
  const env = goEnv({ ...process.env, ...options.env });
  await options.exec.run('go', ['mod', 'download'], { cwd: GOMOD_DIR, env });
  progress(`modules downloaded (${secondsSince(started)} s); compiling`);
  const onLine = compileProgress(progress, started);
  // etcd gets its own invocation: `go build -o dir/` would name it after its module path ("server").
  const builds: [string[], string][] = [
    [[BUILD_PACKAGES['kube-apiserver'], BUILD_PACKAGES['kube-controller-manager'], BUILD_PACKAGES['kube-scheduler']], `${staging}/`],
    [[BUILD_PACKAGES.etcd], join(staging, 'etcd')],
  ];
  for (const [packages, output] of builds) {
    await options.exec.run('go', ['build', '-v', '-trimpath', '-ldflags', kubernetesLdflags(versions.kubernetes), '-o', output, ...packages], {
      cwd: GOMOD_DIR,
      env,
      onLine,
    });
  }
}

/** `kube-apiserver --version` prints "Kubernetes v1.37.1"; etcd prints "etcd Version: 3.7.0". */
export async function binaryVersions(exec: Exec, binaries: ControlPlaneBinaries): Promise<Record<Component, string>> {
  const out = {} as Record<Component, string>;
  for (const component of COMPONENTS) {
    const r = await exec.run(binaries[component], ['--version'], { allowFailure: true });
    out[component] = (r.stdout || r.stderr).trim().split('\n')[0] ?? '';
  }
  return out;
}

export function cacheExists(env: NodeJS.ProcessEnv = process.env): boolean {
  return existsSync(join(cacheRoot(env), pinnedVersions().key));
}
