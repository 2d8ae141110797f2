import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kube/clock.ts';
import { createExec } from '../exec.ts';
import { launchProcess } from '../processes.ts';
import { waitFor } from '../wait.ts';
import { CcmSupervisor, restartDelay, type SupervisedCcm } from './supervisor.ts';

const dir = mkdtempSync(join(tmpdir(), 'supervisor-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const exec = createExec();
const backoff = { initialMs: 1000, maxMs: 8000, resetAfterMs: 60_000 };

/** A real process running `script`; ready at once, or (ready: false) only by exiting during start-up. */
const launcher =
  (script: () => string, ready = () => true) =>
  async () => {
    const { process } = await launchProcess({
      exec,
      name: 'ccm',
      command: 'sh',
      args: ['-c', script()],
      env: {},
      logFile: join(dir, 'ccm.log'),
      ready,
      readyDescription: 'start',
    });
    return { process, url: null };
  };

describe('restartDelay', () => {
  it('doubles from the initial delay up to the maximum', () => {
    expect([1, 2, 3, 4, 5, 9].map((n) => restartDelay(backoff, n))).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
  });
});

describe('CcmSupervisor', () => {
  it('restarts an exiting CCM after 1 s, 2 s, 4 s on its clock, recording restarts and the last exit', async () => {
    const clock = new FakeClock();
    const changes: SupervisedCcm[] = [];
    const logs: string[] = [];
    const supervisor = await CcmSupervisor.start({
      launch: launcher(() => 'exit 3'),
      clock,
      backoff,
      onChange: (s) => changes.push(s),
      log: (m) => logs.push(m),
    });
    // The restart timer is set with the exit's log line.
    const exited = (n: number) =>
      waitFor(() => logs.filter((l) => l.startsWith('the CCM exited')).length >= n, { timeoutMs: 10_000, description: `${n} exits` });
    await exited(1);
    expect(supervisor.state).toMatchObject({ restarts: 0, lastExit: { code: 3, signal: null } });
    await clock.advance(999);
    expect(supervisor.state.restarts).toBe(0);
    await clock.advance(1);
    await exited(2);
    expect(supervisor.state.restarts).toBe(1);
    await clock.advance(1999);
    expect(supervisor.state.restarts).toBe(1);
    await clock.advance(1);
    await exited(3);
    expect(supervisor.state.restarts).toBe(2);
    expect(clock.pending()).toBe(1);
    expect(logs.filter((l) => l.startsWith('the CCM exited'))).toEqual([1, 2, 4].map((s) => `the CCM exited (exit code 3); restarting it in ${s} s`));
    expect(changes.at(-1)).toMatchObject({ restarts: 2, lastExit: { code: 3 } });
    await supervisor.stop();
    expect(clock.pending()).toBe(0);
  });

  it('keeps a running CCM, and stop ends it without a restart', async () => {
    const clock = new FakeClock();
    const supervisor = await CcmSupervisor.start({ launch: launcher(() => 'exec sleep 60'), clock, backoff });
    const proc = supervisor.process!;
    expect(proc.isRunning()).toBe(true);
    await supervisor.stop();
    expect(proc.isRunning()).toBe(false);
    await clock.advance(60_000);
    expect(supervisor.state).toMatchObject({ restarts: 0, lastExit: null });
  });

  it('tries again with a longer delay when a restart itself fails', async () => {
    const clock = new FakeClock();
    let attempt = 0;
    const logs: string[] = [];
    const launch = launcher(
      () => (attempt++ === 0 ? 'exec sleep 60' : 'echo broken; exit 1'),
      () => attempt === 1,
    );
    const supervisor = await CcmSupervisor.start({ launch, clock, backoff, log: (m) => logs.push(m) });
    process.kill(supervisor.process!.pid, 'SIGTERM');
    await waitFor(() => logs.length === 1, { timeoutMs: 10_000, description: 'the first exit' });
    expect(supervisor.state.lastExit).toMatchObject({ signal: 'SIGTERM' });
    await clock.advance(1000);
    await waitFor(() => logs.length === 3, { timeoutMs: 10_000, description: 'the failed restart' });
    expect(logs).toEqual([
      'the CCM exited (signal SIGTERM); restarting it in 1 s',
      'the CCM did not start again: ccm exited during start-up (exit code 1); last lines of ' + join(dir, 'ccm.log') + ':',
      'the CCM exited (signal SIGTERM); restarting it in 2 s',
    ]);
    expect(supervisor.state.restarts).toBe(0);
    await supervisor.stop();
  });
});
