// `up` and its daemon. By default `up` starts a detached daemon that owns every process of the sandbox,
// relays its progress lines, and returns once the sandbox is ready (printing the summary) or has failed
// (printing the reason and the log to read). `--foreground` runs the daemon's work in this process until
// Ctrl-C. `--dry-run` prints the exact commands instead of running them (kind and vagrant).
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { flushCompileCache } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { createExec } from '../exec.ts';
import { resolveRuntime } from '../runtimes/factory.ts';
import type { Sandbox } from '../sandbox.ts';
import { registerCleanup } from '../shutdown.ts';
import { privateDir, processAlive, readState, SandboxStatus, stateDir } from '../state.ts';
import { daemonArgs, DEFAULT_NAME, type CliOptions } from './args.ts';
import { commandHint } from './hint.ts';
import { renderSummary } from './summary.ts';

const CLI = fileURLToPath(new URL('./main.ts', import.meta.url));

export async function up(o: CliOptions): Promise<number> {
  const dir = stateDir(o.name);
  const existing = readState(dir);
  if (existing && processAlive(existing.pid) && existing.status !== SandboxStatus.stopped) {
    console.log(
      `sandbox "${o.name}" is already running (pid ${existing.pid}); \`${commandHint('sandbox:down', o.name === 'ccm-sandbox' ? '' : `--name ${o.name}`)}\` stops it\n`,
    );
    console.log(renderSummary(existing));
    return 0;
  }
  if (o.dryRun) return dryRun(o);
  const runtime = await resolveRuntime(o.runtime, createExec());
  console.log(`ccm-sandbox: bringing up "${o.name}" on the ${runtime} runtime with ${o.workers} worker(s) and the ${o.ccm.kind} CCM; state in ${dir}`);
  if (o.foreground) return foreground(o, runtime);
  return detached(o, runtime, dir);
}

async function detached(o: CliOptions, runtime: string, dir: string): Promise<number> {
  privateDir(dir);
  rmSync(join(dir, 'state.json'), { force: true });
  const log = join(dir, 'daemon.log');
  rmSync(log, { force: true });
  const pid = createExec().spawnDetached(process.execPath, [CLI, ...daemonArgs(o, runtime)], { name: 'ccm-sandbox-daemon', logFile: log });
  // Ctrl-C while waiting means "never mind": the daemon tears down what it started so far.
  const unregister = registerCleanup(async () => {
    console.error('\ninterrupted: stopping the sandbox');
    process.kill(pid, 'SIGTERM');
    while (processAlive(pid)) await sleep(200);
  });
  try {
    return await follow(dir, log, pid);
  } finally {
    unregister();
  }
}

async function follow(dir: string, log: string, pid: number): Promise<number> {
  let printed = 0;
  for (;;) {
    printed = relay(log, printed);
    const state = readState(dir);
    if (state?.status === SandboxStatus.ready) {
      console.log(`\n${renderSummary(state)}`);
      return 0;
    }
    if (state?.status === SandboxStatus.failed || !processAlive(pid)) {
      relay(log, printed);
      // The whole reason: a process that failed to start comes with the last lines of its log.
      const [first, ...rest] = (state?.error ?? 'the daemon exited').split('\n');
      console.error([`\nccm-sandbox: up failed: ${first}`, ...rest.map((l) => `  | ${l}`), `see ${log} (the daemon has cleaned up)`].join('\n'));
      return 1;
    }
    // Short: the summary is printed this long after the daemon is ready at worst; a state file read is cheap.
    await sleep(50);
  }
}

function relay(log: string, printed: number): number {
  if (!existsSync(log)) return printed;
  const lines = readFileSync(log, 'utf8').split('\n');
  const complete = lines.slice(0, -1);
  for (const line of complete.slice(printed)) if (line.startsWith('  ')) console.log(line);
  return complete.length;
}

/**
 * Loaded here, not at the top: the `up` that only follows its daemon never needs the sandbox's machinery.
 * The default sandbox keeps simcloud's own pools (the addresses the README shows); a named one claims a
 * loopback plan of its own for as long as this process lives, so `--name a` and `--name b` side by side
 * never hand out the same node address or VIP (nor bind the same address:port).
 */
async function sandboxFor(o: CliOptions, runtime: string): Promise<Sandbox> {
  const [{ Sandbox }, { claimLoopbackAddressPlan }] = await Promise.all([import('../sandbox.ts'), import('../cloud/address-plan.ts')]);
  const addressPlan = o.name === DEFAULT_NAME ? undefined : claimLoopbackAddressPlan().plan;
  return new Sandbox({
    name: o.name,
    runtime: runtime as 'local',
    workers: o.workers,
    lbStrategy: o.lbStrategy,
    stateDir: stateDir(o.name),
    ...(o.kubeconfig ? { kubeconfig: o.kubeconfig } : {}),
    allowedHosts: o.allowedHosts,
    ...(o.runImages.length > 0 ? { runImages: o.runImages } : {}),
    ...(o.kubeletProviderId ? { kubeletProviderId: true } : {}),
    ccm: o.ccm,
    cloud: o.cloud,
    ...(o.faults ? { simcloudArgs: [`--faults=${o.faults.file}`] } : {}),
    ...(addressPlan ? { addressPlan } : {}),
    progress: (m) => console.log(`  ${m}`),
  });
}

async function foreground(o: CliOptions, runtime: string): Promise<number> {
  const sandbox = await sandboxFor(o, runtime);
  registerCleanup(() => sandbox.down());
  await sandbox.up();
  console.log(`\n${renderSummary(sandbox.state)}\n\nrunning in the foreground; Ctrl-C stops everything`);
  await new Promise(() => undefined);
  return 0;
}

/** The detached daemon: brings the sandbox up, then keeps it running until SIGTERM/SIGINT (from `down`). */
export async function daemon(o: CliOptions): Promise<number> {
  const sandbox = await sandboxFor(o, o.runtime);
  registerCleanup(() => sandbox.down());
  try {
    await sandbox.up();
  } catch (err) {
    console.error(`  up failed: ${err instanceof Error ? err.message : String(err)}`);
    await sandbox.down().catch(() => undefined);
    return 1;
  }
  console.log('  ready');
  // Written now rather than at exit: `down` ends this process with a signal.
  flushCompileCache();
  await new Promise(() => undefined);
  return 0;
}

async function dryRun(o: CliOptions): Promise<number> {
  if (o.runtime !== 'kind' && o.runtime !== 'vagrant') {
    console.error('ccm-sandbox: --dry-run applies to --runtime kind or vagrant (local and existing run no external commands)');
    return 2;
  }
  const { renderDryRun } = await import('../runtimes/dry-run.ts');
  console.log(await renderDryRun(o.runtime, { name: o.name, workers: o.workers, stateDir: stateDir(o.name) }));
  return 0;
}
