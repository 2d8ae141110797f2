// What every Go binary build of the project shares (the control plane, the upstream CCM): the Go
// environment (local toolchain, no cgo), the check that Go is installed, Kubernetes version stamping,
// progress lines while `go build -v` compiles, and filling a cache directory through a staging directory so
// a failed or interrupted build never leaves a half-filled cache entry behind. Locking is dir-lock.ts's.
import { accessSync, constants, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Exec } from './exec.ts';

/**
 * `go` environment of every build: the installed toolchain only, static binaries, go.mod may be updated, and
 * no workspace: an installed package sits below the user's project, whose go.work must not take it over.
 */
export function goEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const defined = Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined);
  return { ...Object.fromEntries(defined), GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOFLAGS: '-mod=mod', GOWORK: 'off' };
}

export async function goAvailable(exec: Exec): Promise<boolean> {
  try {
    const r = await exec.run('go', ['version'], { allowFailure: true });
    return r.exitCode === 0;
  } catch {
    return false;
  }
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function secondsSince(t: number): number {
  return Math.round((Date.now() - t) / 1000);
}

/**
 * `-ldflags` stamping a Kubernetes version into component-base and client-go (what `--version` prints and
 * the user agent carries), stripped of symbols; a fixed build date keeps the binary reproducible.
 */
export function kubernetesLdflags(kubernetesVersion: string): string {
  const [major, minor] = kubernetesVersion.replace(/^v/, '').split('.');
  const stamp = { gitVersion: kubernetesVersion, gitMajor: major ?? '', gitMinor: minor ?? '', gitTreeState: 'clean', buildDate: '1970-01-01T00:00:00Z' };
  const pkgs = ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'];
  return ['-s', '-w', ...pkgs.flatMap((p) => Object.entries(stamp).map(([k, v]) => `-X ${p}.${k}=${v}`))].join(' ');
}

/** An `onLine` for `go build -v`: a progress line every `every` packages compiled. */
export function compileProgress(progress: (message: string) => void, started: number, every = 100): (line: string) => void {
  let compiled = 0;
  return (line) => {
    compiled += 1;
    if (compiled % every === 0) progress(`compiled ${compiled} packages (${secondsSince(started)} s), last: ${line.trim()}`);
  };
}

/** Runs `fill` on a fresh staging directory and moves it to `cacheDir` only when it succeeded. */
export async function fillCacheDir(cacheDir: string, fill: (staging: string) => Promise<void>): Promise<void> {
  const staging = `${cacheDir}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    await fill(staging);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  rmSync(cacheDir, { recursive: true, force: true });
  mkdirSync(join(cacheDir, '..'), { recursive: true });
  renameSync(staging, cacheDir);
}
