// The sandbox's own long-running processes besides the cluster: the simcloud API server and the CCM.
// Both are started through exec.ts (logged to the state dir, reaped if the sandbox dies) and each is
// "up" only once it answers: simcloud's /_sim/health, the CCM's /healthz.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitSignal, type Exec, type ManagedProcess } from './exec.ts';
import { freePort } from './ports.ts';
import { waitFor } from './wait.ts';

const SIMCLOUD_CLI = fileURLToPath(new URL('../simulator/cli/main.ts', import.meta.url));
const CCM_MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

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
}

export async function startSimcloudProcess(launch: SimcloudLaunch): Promise<SimcloudProcess> {
  const logFile = join(launch.stateDir, 'logs', 'simcloud.log');
  mkdirSync(join(launch.stateDir, 'simcloud'), { recursive: true, mode: 0o700 });
  const args = [
    SIMCLOUD_CLI,
    'serve',
    '--host=127.0.0.1',
    '--port=0',
    `--data=${join(launch.stateDir, 'simcloud', 'db.json')}`,
    ...(launch.extraArgs ?? []),
  ];
  // Tokens travel in the environment: any local user can read a process's arguments (ps), not its environment.
  const env = { ...process.env, NO_COLOR: '1', SIMCLOUD_TOKEN: launch.token, SIMCLOUD_ADMIN_TOKEN: launch.adminToken };
  const proc = launch.exec.spawn(process.execPath, args, { name: 'simcloud', logFile, env });
  const signal = exitSignal(proc, () => `simcloud exited during start-up; ${logFile} says:\n${tail(logFile)}`);
  const url = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(safeRead(logFile))?.[1], {
    timeoutMs: 30_000,
    description: 'simcloud to listen',
    signal,
  });
  await waitFor(async () => (await fetch(`${url}/_sim/health`, { headers: { authorization: `Bearer ${launch.adminToken}` } })).ok, {
    timeoutMs: 15_000,
    description: 'simcloud /_sim/health',
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
  const proc = launch.exec.spawn(process.execPath, args, { name, logFile, env });
  const url = `http://127.0.0.1:${port}`;
  const signal = exitSignal(proc, () => `the CCM exited during start-up; ${logFile} says:\n${tail(logFile)}`);
  // Any answer means it serves; health itself (leader election, controllers) is reported by `status`.
  await waitFor(async () => (await fetch(`${url}/healthz`)).status > 0, { timeoutMs: 30_000, description: 'the CCM /healthz', signal });
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
