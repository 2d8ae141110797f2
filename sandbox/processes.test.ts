import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createExec } from './exec.ts';
import { launchProcess, LaunchError } from './processes.ts';
import { processAlive } from './state.ts';

const dir = mkdtempSync(join(tmpdir(), 'launcher-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const exec = createExec();

describe('launchProcess', () => {
  it('resolves with the probe value once the process is ready, and stop ends it', async () => {
    const logFile = join(dir, 'ready.log');
    const { process: proc, ready } = await launchProcess({
      exec,
      name: 'ready',
      command: 'sh',
      args: ['-c', 'echo "listening on 4242"; exec sleep 60'],
      env: {},
      logFile,
      ready: () => /listening on (\d+)/.exec(readLog(logFile))?.[1],
      readyDescription: 'the port line',
    });
    expect(ready).toBe('4242');
    expect(proc.isRunning()).toBe(true);
    await proc.stop();
    expect(proc.isRunning()).toBe(false);
  });

  it('reports a process that exits during start-up with its exit and the last lines of its log', async () => {
    const logFile = join(dir, 'bad.log');
    const start = launchProcess({
      exec,
      name: 'bad',
      describe: 'the CCM command `nope`',
      command: 'sh',
      args: ['-c', 'echo first; echo "nope: not found" >&2; exit 127'],
      env: {},
      logFile,
      ready: () => false,
      readyDescription: 'never',
    });
    await expect(start).rejects.toThrow(LaunchError);
    await expect(start).rejects.toThrow(/^the CCM command `nope` exited during start-up \(exit code 127\); last lines of .*bad\.log:\nfirst\nnope: not found$/);
  });

  it('stops a process that is not ready in time and says what it waited for', async () => {
    const logFile = join(dir, 'slow.log');
    let pid = 0;
    const start = launchProcess({
      exec,
      name: 'slow',
      command: 'sh',
      args: ['-c', 'echo $$ starting; exec sleep 60'],
      env: {},
      logFile,
      timeoutMs: 300,
      ready: () => {
        pid = Number(readLog(logFile).split(' ')[0]);
        return false;
      },
      readyDescription: 'a readiness that never comes',
    });
    await expect(start).rejects.toThrow(/^slow did not start: timed out after 300 ms waiting for a readiness that never comes/);
    expect(pid).toBeGreaterThan(0);
    expect(processAlive(pid)).toBe(false);
  });

  it('stops the whole process group of a shell command line, children included', async () => {
    const logFile = join(dir, 'group.log');
    const { process: proc } = await launchProcess({
      exec,
      name: 'group',
      command: 'sh',
      args: ['-c', 'sleep 60 & echo child $!; sleep 60'],
      env: {},
      logFile,
      group: true,
      ready: () => /child (\d+)/.exec(readLog(logFile))?.[1],
      readyDescription: 'the child pid',
    });
    const child = Number(/child (\d+)/.exec(readLog(logFile))?.[1]);
    expect(processAlive(child)).toBe(true);
    await proc.stop();
    expect(processAlive(child)).toBe(false);
    expect(processAlive(proc.pid)).toBe(false);
  });
});

function readLog(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
