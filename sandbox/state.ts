// The sandbox's state directory and state file. One directory per sandbox name holds everything a run
// produces: state.json (what runs where), the kubeconfig, simcloud's data file, every process log, and
// the artifacts collected by `down`. The root: CCM_SANDBOX_STATE_DIR; else, run from a git checkout of
// ccm-sandbox, <checkout>/.sandbox (git-ignored); else, run from an installed package,
// $XDG_STATE_HOME/ccm-sandbox (~/.local/state/ccm-sandbox), never the package's own directory. The
// directory is 0700 and state.json 0600: it holds the simcloud and console tokens while a sandbox runs.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CcmStateField } from './ccm/slot.ts';
import { CLOUDS, DEFAULT_CLOUD, isCloudKind, type CloudKind } from './cloud/registry.ts';
import { RunImage } from './kubelet/images/runnable.ts';

/** Where this code lives: a git checkout of ccm-sandbox or the installed npm package. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

export function stateRoot(env: NodeJS.ProcessEnv = process.env, root = REPO_ROOT): string {
  if (env.CCM_SANDBOX_STATE_DIR) return env.CCM_SANDBOX_STATE_DIR;
  if (existsSync(join(root, '.git'))) return join(root, '.sandbox');
  return join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'ccm-sandbox');
}

export function stateDir(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(stateRoot(env), name);
}

export const SandboxStatus = { starting: 'starting', ready: 'ready', failed: 'failed', stopping: 'stopping', stopped: 'stopped' } as const;
export type SandboxStatus = (typeof SandboxStatus)[keyof typeof SandboxStatus];

export const StepRecord = z.object({ name: z.string(), startedAt: z.string().optional(), durationMs: z.number(), detail: z.string().optional() });
export type StepRecord = z.infer<typeof StepRecord>;

export const SandboxState = z.object({
  name: z.string(),
  runtime: z.string(),
  status: z.enum(SandboxStatus),
  /** The supervising process (the daemon); `down` signals it. */
  pid: z.number().int(),
  startedAt: z.string(),
  readyAt: z.string().nullable(),
  error: z.string().nullable(),
  steps: z.array(StepRecord),
  /** The phases inside the steps (etcd, kube-apiserver, machines created, ...), where the time went; absent in older files. */
  phases: z.array(StepRecord).optional(),
  workers: z.number().int(),
  lbStrategy: z.string(),
  /** The API the cluster was made through and the CCM is given (sandbox/cloud/registry.ts). */
  cloud: z.custom<CloudKind>((v) => typeof v === 'string' && isCloudKind(v), { message: `must be one of ${CLOUDS.join(', ')}` }).default(DEFAULT_CLOUD),
  kubeconfig: z.string().nullable(),
  clusterCidr: z.string().nullable(),
  simcloud: z.object({ url: z.string(), token: z.string(), adminToken: z.string(), pid: z.number().int().nullable() }).nullable(),
  /** The HTTPS interception proxy for the personas' real hostnames (sandbox/intercept/) and its CA's certificate file. */
  intercept: z.object({ url: z.string(), caFile: z.string() }).nullable().default(null),
  /** Images whose containers run as local processes (`--run-image`, sandbox/kubelet/containers/). */
  runImages: z.array(RunImage).default([]),
  /** The CCM slot (sandbox/ccm/slot.ts); files from before the slot read as `builtin`. */
  ccm: CcmStateField.nullable(),
  consoleUrl: z.string().nullable(),
  /** The console's token for state changes (X-Console-Token); its page carries it, scripts read it here. */
  consoleToken: z.string().nullable().default(null),
  logs: z.record(z.string(), z.string()),
});
export type SandboxState = z.infer<typeof SandboxState>;

export function statePath(dir: string): string {
  return join(dir, 'state.json');
}

export function readState(dir: string): SandboxState | undefined {
  const path = statePath(dir);
  if (!existsSync(path)) return undefined;
  const parsed = SandboxState.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  return parsed.success ? parsed.data : undefined;
}

/** Creates `dir` (and missing parents) and makes it 0700: what a sandbox writes there is its owner's alone. */
export function privateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
}

/** Atomic replace, so a reader never sees half a file; 0600 from the first byte. */
export function writeState(dir: string, state: SandboxState): void {
  privateDir(dir);
  const tmp = `${statePath(dir)}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, statePath(dir));
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
