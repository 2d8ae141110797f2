// `down`: asks the daemon to stop (it collects logs into <state>/artifacts first, then stops the CCM, the
// cluster and simcloud) and waits until it is gone. Idempotent: with nothing running it says so and
// succeeds. A daemon that does not stop in time is killed; its reaper still cleans up what it started.
import { setTimeout as sleep } from 'node:timers/promises';
import { processAlive, readState, SandboxStatus, stateDir, writeState } from '../state.ts';
import type { CliOptions } from './args.ts';

const GRACE_MS = 60_000;

export async function down(o: CliOptions): Promise<number> {
  const dir = stateDir(o.name);
  const state = readState(dir);
  if (!state || !processAlive(state.pid)) {
    console.log(`sandbox "${o.name}" is not running; nothing to stop`);
    if (state && state.status !== SandboxStatus.stopped) writeState(dir, { ...state, status: SandboxStatus.stopped });
    return 0;
  }
  const started = Date.now();
  console.log(`stopping sandbox "${o.name}" (pid ${state.pid}) ...`);
  await stopDaemon(state.pid, started);
  // The daemon's reaper finishes any stragglers within seconds; wait for the processes we know of.
  const pids = [state.simcloud?.pid, state.ccm?.pid].filter((p): p is number => typeof p === 'number');
  while (pids.some(processAlive) && Date.now() - started < GRACE_MS + 10_000) await sleep(200);
  console.log(`stopped in ${((Date.now() - started) / 1000).toFixed(1)} s; logs collected in ${dir}/artifacts`);
  return 0;
}

async function stopDaemon(pid: number, started: number): Promise<void> {
  process.kill(pid, 'SIGTERM');
  while (processAlive(pid) && Date.now() - started < GRACE_MS) await sleep(200);
  if (!processAlive(pid)) return;
  process.kill(pid, 'SIGKILL');
  console.log('the daemon did not stop in time and was killed; its reaper stops the rest');
}
