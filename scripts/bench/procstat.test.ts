import { describe, expect, it } from 'vitest';
import { ProcSampler, type ProcSample } from './procstat.ts';

/** A fake process table: name -> pid, pid -> current sample. */
function table() {
  const pids: Record<string, number> = {};
  const samples = new Map<number, ProcSample>();
  const sampler = new ProcSampler(
    () => ({ ...pids }),
    (pid) => samples.get(pid),
  );
  return {
    sampler,
    run(name: string, pid: number, cpuSeconds: number, rssMb: number): void {
      pids[name] = pid;
      samples.set(pid, { cpuSeconds, rssMb });
    },
    /** Sets the running process's high-water mark, as the kernel reports it (VmHWM). */
    highWater(name: string, hwmMb: number): void {
      const pid = pids[name]!;
      samples.set(pid, { ...samples.get(pid)!, hwmMb });
    },
    stop(name: string): void {
      const pid = pids[name];
      delete pids[name];
      if (pid !== undefined) samples.delete(pid);
    },
  };
}

describe('ProcSampler', () => {
  it('reports CPU used during a window and the highest RSS seen in it', () => {
    const t = table();
    t.run('ccm', 1, 10, 100);
    t.sampler.sample();
    const close = t.sampler.window();
    t.run('ccm', 1, 12, 300);
    t.sampler.sample();
    t.run('ccm', 1, 15, 200);
    expect(close()).toEqual({ ccm: { cpuSeconds: 5, peakRssMb: 300 } });
  });

  it('does not count a stopped process as the peak of one started after the window opened', () => {
    const t = table();
    t.run('ccm', 1, 50, 450);
    t.sampler.sample();
    t.stop('ccm');
    const close = t.sampler.window();
    t.run('ccm', 2, 1, 120);
    t.sampler.sample();
    t.run('ccm', 2, 3, 180);
    expect(close()).toEqual({ ccm: { cpuSeconds: 3, peakRssMb: 180 } });
  });

  it('adds the CPU of a process replaced during a window to its successor', () => {
    const t = table();
    t.run('ccm', 1, 10, 100);
    const close = t.sampler.window();
    t.run('ccm', 1, 14, 400);
    t.sampler.sample();
    t.stop('ccm');
    t.sampler.sample();
    t.run('ccm', 2, 2, 150);
    expect(close()).toEqual({ ccm: { cpuSeconds: 6, peakRssMb: 400 } });
  });

  it('keeps the usage of a process that ended during the window', () => {
    const t = table();
    t.run('simcloud', 7, 1, 80);
    const close = t.sampler.window();
    t.run('simcloud', 7, 4, 90);
    t.sampler.sample();
    t.stop('simcloud');
    expect(close()).toEqual({ simcloud: { cpuSeconds: 3, peakRssMb: 90 } });
  });

  it('counts the high-water mark of a process started inside the window: a spike between samples', () => {
    const t = table();
    const close = t.sampler.window();
    t.run('ccm', 3, 1, 80);
    t.highWater('ccm', 110);
    t.sampler.sample();
    t.run('ccm', 3, 2, 85);
    t.highWater('ccm', 110);
    expect(close()).toEqual({ ccm: { cpuSeconds: 2, peakRssMb: 110 } });
  });

  it('ignores the high-water mark of a process older than the window: its peak may predate it', () => {
    const t = table();
    t.run('apiserver', 4, 30, 300);
    t.highWater('apiserver', 900);
    const close = t.sampler.window();
    t.run('apiserver', 4, 31, 320);
    t.highWater('apiserver', 900);
    expect(close()).toEqual({ apiserver: { cpuSeconds: 1, peakRssMb: 320 } });
  });
});
