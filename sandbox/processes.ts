// The sandbox's one process launcher, and its own long-running processes besides the cluster: the
// simcloud API server and our CCM (the upstream and command CCMs are in ccm/). Every one is started through
// launchProcess: exec.ts's spawn (logged to the state dir, reaped if the sandbox dies), then a readiness
// probe that ends at once, with the log's last lines, if the process exits during start-up.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitSignal, type Exec, type ExitInfo, type ManagedProcess, type SpawnOptions } from './exec.ts';
import { freePort } from './ports.ts';
import { waitFor } from './wait.ts';

const SIMCLOUD_CLI = fileURLToPath(new URL('../simulator/cli/main.ts', import.meta.url));
const CCM_MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

export class LaunchError extends Error {
  override name = 'LaunchError';
}

export interface ProcessLaunch<T> {
  readonly exec: Exec;
  /** Short name for logs and errors, e.g. "simcloud", "ccm". */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** The whole environment (default: this process's). */
  readonly env?: Record<string, string>;
  readonly logFile: string;
  /** How many of the log's last lines a start-up failure shows (default 20). */
  readonly tailLines?: number;
  readonly cwd?: string;
  /** Signal the whole process group on stop (a shell command line and whatever it starts). */
  readonly group?: boolean;
  /** `env` is the whole environment, nothing of this process's added (a container's). */
  readonly cleanEnv?: boolean;
  /** A value once the process is ready; undefined/false (or a throw) while it is not yet. */
  readonly ready: () => Promise<T | undefined | false> | T | undefined | false;
  /** What `ready` waits for, for the timeout message. */
  readonly readyDescription: string;
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
  /** Called at once with the spawned process, so a caller starting several can stop them all if one fails. */
  readonly onSpawned?: (process: ManagedProcess) => void;
  /** How the process is named in a start-up failure (default: its name). */
  readonly describe?: string;
}

export interface LaunchedProcess<T> {
  readonly process: ManagedProcess;
  readonly ready: T;
}

/**
 * Spawns a long-running process and waits until `ready` answers. A process that exits first, or is not
 * ready in time, is stopped and reported with its exit and the last lines of its log; nothing is left.
 */
export async function launchProcess<T>(launch: ProcessLaunch<T>): Promise<LaunchedProcess<T>> {
  const { exec, name, logFile } = launch;
  const what = launch.describe ?? name;
  const proc = exec.spawn(launch.command, launch.args, spawnOptions(launch));
  launch.onSpawned?.(proc);
  const signal = exitSignal(proc, () => `${what} exited`);
  try {
    const ready = await waitFor(launch.ready, {
      timeoutMs: launch.timeoutMs ?? 30_000,
      ...(launch.intervalMs ? { intervalMs: launch.intervalMs } : {}),
      description: launch.readyDescription,
      signal,
    });
    return { process: proc, ready };
  } catch (err) {
    const exitedEarly = signal.aborted;
    await proc.stop();
    const why = exitedEarly ? `exited during start-up (${exitText(await proc.exited)})` : `did not start: ${err instanceof Error ? err.message : String(err)}`;
    throw new LaunchError(`${what} ${why}; last lines of ${logFile}:\n${tail(logFile, launch.tailLines)}`);
  }
}

/**
 * The probe for a process its caller watches itself (one expected to exit, or whose readiness is its own
 * business): launched once spawned, still logged, reaped and stopped like any other.
 */
export const SPAWNED = { ready: (): true => true, readyDescription: 'the process to be spawned' } as const;

function spawnOptions({ name, logFile, env, cwd, group, cleanEnv }: ProcessLaunch<unknown>): SpawnOptions {
  return { name, logFile, ...(env ? { env } : {}), ...(cwd ? { cwd } : {}), ...(group ? { group } : {}), ...(cleanEnv ? { cleanEnv } : {}) };
}

/** "exit code 127" or "signal SIGKILL". */
export function exitText(info: ExitInfo): string {
  return info.signal ? `signal ${info.signal}` : `exit code ${info.code ?? '?'}`;
}

export interface SimcloudProcess {
  readonly process: ManagedProcess;
  readonly url: string;
  readonly token: string;
  readonly adminToken: string;
}

export interface SimcloudLaunch {
  readonly exec: Exec;
  readonly stateDir: string;
  readonly token: string;
  readonly adminToken: string;
  /** Extra `simcloud serve` arguments (pools, seed, rate limit). */
  readonly extraArgs?: readonly string[];
  /** The state file (default: simcloud/db.json in the state dir); null keeps the state in memory. */
  readonly dataPath?: string | null;
  /** Extra environment for simcloud alone. */
  readonly env?: Readonly<Record<string, string>>;
}

export async function startSimcloudProcess(launch: SimcloudLaunch): Promise<SimcloudProcess> {
  for (const dir of ['simcloud', 'logs']) mkdirSync(join(launch.stateDir, dir), { recursive: true, mode: 0o700 });
  const dataPath = launch.dataPath === undefined ? join(launch.stateDir, 'simcloud', 'db.json') : launch.dataPath;
  const args = [SIMCLOUD_CLI, 'serve', '--host=127.0.0.1', '--port=0', ...(dataPath === null ? [] : [`--data=${dataPath}`]), ...(launch.extraArgs ?? [])];
  const logFile = join(launch.stateDir, 'logs', 'simcloud.log');
  const healthy = async (url: string): Promise<boolean> =>
    (await fetch(`${url}/_sim/health`, { headers: { authorization: `Bearer ${launch.adminToken}` } })).ok;
  const { process: proc, ready: url } = await launchProcess({
    exec: launch.exec,
    name: 'simcloud',
    command: process.execPath,
    args,
    logFile,
    // Tokens travel in the environment: any local user can read a process's arguments (ps), not its environment.
    env: { ...process.env, NO_COLOR: '1', SIMCLOUD_TOKEN: launch.token, SIMCLOUD_ADMIN_TOKEN: launch.adminToken, ...launch.env },
    ready: async () => {
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(safeRead(logFile))?.[1];
      return url && (await healthy(url)) ? url : undefined;
    },
    readyDescription: 'simcloud to listen and answer /_sim/health',
  });
  return { process: proc, url, token: launch.token, adminToken: launch.adminToken };
}

export interface CcmLaunch {
  readonly exec: Exec;
  readonly stateDir: string;
  readonly kubeconfig: string;
  readonly clusterName: string;
  readonly clusterCidr: string;
  readonly simcloud: { readonly url: string; readonly token: string };
  readonly network: string;
  readonly lbStrategy: string;
  /** Extra flags (e.g. --kube-api-qps for benchmarks). */
  readonly extraArgs?: readonly string[];
  /** Log name suffix when several replicas run. */
  readonly replica?: string;
  /** Entry point: `src/main.ts` (default) or a bundle built by scripts/build.ts. */
  readonly main?: string;
  /** Environment for the CCM alone (e.g. the Deployment's NODE_OPTIONS and MALLOC_ARENA_MAX). */
  readonly env?: Readonly<Record<string, string>>;
  /** Node/V8 flags before the entry point (e.g. the image ENTRYPOINT's, which NODE_OPTIONS may not carry). */
  readonly nodeArgs?: readonly string[];
}

export interface CcmProcess {
  readonly process: ManagedProcess;
  readonly url: string;
}

export async function startCcmProcess(launch: CcmLaunch): Promise<CcmProcess> {
  const port = await freePort();
  const name = `ccm${launch.replica ? `-${launch.replica}` : ''}`;
  const logFile = join(launch.stateDir, 'logs', `${name}.log`);
  const args = [
    ...(launch.nodeArgs ?? []),
    launch.main ?? CCM_MAIN,
    '--cloud-provider=simcloud',
    `--kubeconfig=${launch.kubeconfig}`,
    `--cluster-name=${launch.clusterName}`,
    `--cluster-cidr=${launch.clusterCidr}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    '--insecure-http=true',
    '--v=2',
    ...(launch.extraArgs ?? []),
  ];
  const env = {
    ...process.env,
    SIMCLOUD_ENDPOINT: launch.simcloud.url,
    SIMCLOUD_TOKEN: launch.simcloud.token,
    SIMCLOUD_NETWORK: launch.network,
    SIMCLOUD_LOAD_BALANCER_STRATEGY: launch.lbStrategy,
    ...launch.env,
  } as Record<string, string>;
  const url = `http://127.0.0.1:${port}`;
  const { process: proc } = await launchProcess({
    exec: launch.exec,
    name,
    command: process.execPath,
    args,
    logFile,
    env,
    // Any answer means it serves; health itself (leader election, controllers) is reported by `status`.
    ready: async () => (await fetch(`${url}/healthz`)).status > 0,
    readyDescription: 'the CCM /healthz',
  });
  return { process: proc, url };
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

export function tail(file: string, lines = 20): string {
  return safeRead(file).trimEnd().split('\n').slice(-lines).join('\n');
}
