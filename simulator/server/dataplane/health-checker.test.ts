import { describe, expect, it } from 'vitest';
import { HealthMonitor, TargetChecker, type Scheduler } from './health-checker.ts';
import type { HealthStatus } from './health-state.ts';
import type { Probe } from './probes.ts';
import type { DataPlaneHealthCheck } from './types.ts';

interface Timer {
  fn: () => void;
  ms: number;
  live: boolean;
}

function fakeScheduler(): Scheduler & { timers: Timer[]; fire(ms: number): void; live(): Timer[] } {
  const timers: Timer[] = [];
  return {
    timers,
    set: (fn, ms) => {
      const t = { fn, ms, live: true };
      timers.push(t);
      return t;
    },
    clear: (h) => {
      (h as Timer).live = false;
    },
    live: () => timers.filter((t) => t.live),
    fire(ms) {
      const t = timers.find((x) => x.live && x.ms === ms);
      if (!t) throw new Error(`no live ${ms} ms timer`);
      t.live = false;
      t.fn();
    },
  };
}

/** A probe whose calls are settled by the test. */
function manualProbe(): Probe & { calls: { host: string; port: number; settle(ok: boolean): void; signal: AbortSignal }[] } {
  const calls: { host: string; port: number; settle(ok: boolean): void; signal: AbortSignal }[] = [];
  const probe = ((target, _check, signal) =>
    new Promise<boolean>((resolve) => {
      calls.push({ host: target.host, port: target.port, settle: resolve, signal });
      signal.addEventListener('abort', () => resolve(false));
    })) as Probe & { calls: typeof calls };
  probe.calls = calls;
  return probe;
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};
const check: DataPlaneHealthCheck = { protocol: 'tcp', port: null, path: '/', intervalMs: 100, timeoutMs: 30, retries: 2 };

describe('TargetChecker', () => {
  function checkerSetup() {
    const sched = fakeScheduler();
    const probe = manualProbe();
    const changes: HealthStatus[] = [];
    const c = new TargetChecker({
      target: { host: '127.0.0.9', port: 80 },
      check,
      initial: 'unknown',
      probe,
      scheduler: sched,
      onChange: (s) => changes.push(s),
    });
    return { sched, probe, changes, c };
  }

  it('probes immediately, then every interval, reporting transitions', async () => {
    const { sched, probe, changes, c } = checkerSetup();
    c.start();
    expect(probe.calls).toHaveLength(1);
    probe.calls[0]!.settle(true);
    await flush();
    expect(changes).toEqual(['healthy']);
    expect(sched.live().map((t) => t.ms)).toEqual([100]);
    for (let i = 1; i <= 2; i++) {
      sched.fire(100);
      probe.calls[i]!.settle(false);
      await flush();
    }
    expect(changes).toEqual(['healthy', 'unhealthy']);
    expect(c.status).toBe('unhealthy');
    c.stop();
    expect(sched.live()).toEqual([]);
  });

  it('counts a timeout as a failure and aborts the probe', async () => {
    const { sched, probe, changes, c } = checkerSetup();
    c.start();
    sched.fire(30);
    await flush();
    expect(probe.calls[0]!.signal.aborted).toBe(true);
    expect(changes).toEqual(['unhealthy']);
    c.stop();
  });

  it('ignores a result that arrives after stop()', async () => {
    const { sched, probe, changes, c } = checkerSetup();
    c.start();
    c.stop();
    probe.calls[0]!.settle(true);
    await flush();
    expect(changes).toEqual([]);
    expect(sched.live()).toEqual([]);
  });
});

describe('HealthMonitor', () => {
  function setup() {
    const sched = fakeScheduler();
    const probe = manualProbe();
    const changes: [string, HealthStatus][] = [];
    const m = new HealthMonitor({ scheduler: sched, probeFor: () => probe, onChange: (id, s) => changes.push([id, s]) });
    return { sched, probe, changes, m };
  }

  it('probes health-check port or destination port per target', () => {
    const { probe, m } = setup();
    m.sync([{ id: 'a', ip: '127.0.0.10' }], check, 8080);
    m.sync(
      [
        { id: 'a', ip: '127.0.0.10' },
        { id: 'b', ip: '127.0.0.11' },
      ],
      check,
      8080,
    );
    expect(probe.calls.map((c) => `${c.host}:${c.port}`)).toEqual(['127.0.0.10:8080', '127.0.0.11:8080']);
    m.sync([{ id: 'a', ip: '127.0.0.10' }], { ...check, port: 9000 }, 8080);
    expect(probe.calls.at(-1)).toMatchObject({ host: '127.0.0.10', port: 9000 });
    expect(probe.calls[1]!.signal.aborted).toBe(true);
    expect(m.statuses().map(([id]) => id)).toEqual(['a']);
    m.stop();
  });

  it('keeps status when only the check changes and resets it when the address changes', async () => {
    const { probe, changes, m } = setup();
    m.sync([{ id: 'a', ip: '127.0.0.10' }], check, 80);
    probe.calls[0]!.settle(true);
    await flush();
    m.sync([{ id: 'a', ip: '127.0.0.10' }], { ...check, intervalMs: 50 }, 80);
    expect(m.status('a')).toBe('healthy');
    m.sync([{ id: 'a', ip: '127.0.0.12' }], check, 80);
    expect(m.status('a')).toBe('unknown');
    expect(changes).toEqual([
      ['a', 'healthy'],
      ['a', 'unknown'],
    ]);
    expect(m.status('nope')).toBe('unknown');
    m.stop();
  });

  it('stop() clears every timer', () => {
    const { sched, m } = setup();
    m.sync(
      [
        { id: 'a', ip: '127.0.0.10' },
        { id: 'b', ip: '127.0.0.11' },
      ],
      check,
      80,
    );
    expect(sched.live()).toHaveLength(2);
    m.stop();
    expect(sched.live()).toEqual([]);
    expect(m.statuses()).toEqual([]);
  });
});
