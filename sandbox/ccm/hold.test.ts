import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../wait.ts';
import { CcmHold, HOLD_MAX_MS } from './hold.ts';

/** The scheduler state of a process: T stopped, S sleeping. */
const stateOf = (pid: number): string => /\) (\S) /.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1] ?? '?';
const becomes = (pid: number, state: string): Promise<string> =>
  waitFor(() => (stateOf(pid) === state ? state : undefined), { timeoutMs: 5000, intervalMs: 20, description: `pid ${pid} in state ${state}` });

let child: ChildProcess | undefined;
afterEach(() => {
  if (child?.pid) process.kill(-child.pid, 'SIGKILL');
  child = undefined;
});

describe('holding the CCM', () => {
  it('stops its whole process group and lets it run again', async () => {
    child = spawn('/bin/sh', ['-c', 'sleep 30 & wait'], { detached: true, stdio: 'ignore' });
    const pid = child.pid!;
    await becomes(pid, 'S');
    const hold = new CcmHold();
    hold.hold(pid);
    expect(hold.held).toBe(true);
    expect(await becomes(pid, 'T')).toBe('T');
    hold.release();
    expect(hold.held).toBe(false);
    expect(await becomes(pid, 'S')).toBe('S');
    hold.release();
  });

  it('lets go by itself after its longest hold', async () => {
    child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    const pid = child.pid!;
    const timers: Array<{ fn: () => void; ms: number }> = [];
    const hold = new CcmHold((fn, ms) => {
      timers.push({ fn, ms });
      return () => undefined;
    });
    hold.hold(pid);
    await becomes(pid, 'T');
    expect(timers.map((t) => t.ms)).toEqual([HOLD_MAX_MS]);
    timers[0]!.fn();
    expect(await becomes(pid, 'S')).toBe('S');
    expect(hold.held).toBe(false);
  });

  it('refuses a CCM that is not running', () => {
    expect(() => new CcmHold().hold(2 ** 22 + 7)).toThrow(/is not running/);
  });
});
