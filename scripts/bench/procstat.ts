// CPU seconds and peak RSS of the benchmark's processes, from /proc/<pid>/stat (utime + stime, fields
// 14 and 15, in clock ticks) and /proc/<pid>/status (VmRSS). A sampler reads every process once a second;
// a window (one scenario) reports CPU used between its start and end and the highest RSS seen meanwhile.
import { readFileSync } from 'node:fs';
import type { ProcessUsage } from './types.ts';

/** USER_HZ: 100 on every Linux this runs on (sysconf(_SC_CLK_TCK)). */
const CLOCK_TICKS = 100;

export interface ProcSample {
  readonly cpuSeconds: number;
  readonly rssMb: number;
}

export function readProc(pid: number): ProcSample | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; fields after it start past the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    return { cpuSeconds: ticks / CLOCK_TICKS, rssMb: rssKb / 1024 };
  } catch {
    return undefined;
  }
}

interface WindowState {
  readonly startCpu: Map<string, number>;
  readonly peak: Map<string, number>;
  /** CPU of processes that ended (or were replaced) during the window. */
  readonly doneCpu: Map<string, number>;
}

export class ProcSampler {
  readonly #pids: () => Readonly<Record<string, number>>;
  readonly #read: (pid: number) => ProcSample | undefined;
  readonly #last = new Map<string, { pid: number; sample: ProcSample }>();
  readonly #windows = new Set<WindowState>();
  #timer: NodeJS.Timeout | undefined;

  /** `pids` is asked on every sample, so restarted processes (a new CCM) are followed. */
  constructor(pids: () => Readonly<Record<string, number>>, read: (pid: number) => ProcSample | undefined = readProc) {
    this.#pids = pids;
    this.#read = read;
  }

  start(intervalMs = 1000): void {
    this.sample();
    this.#timer = setInterval(() => this.sample(), intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  sample(): void {
    const pids = this.#pids();
    for (const [name, prev] of this.#last) {
      // Gone (stopped, not yet restarted): bank its CPU and forget it, so a window opened now does not
      // report the old process's RSS as the next one's peak.
      if (pids[name] === undefined) {
        this.#ended(name, prev.sample.cpuSeconds);
        this.#last.delete(name);
      }
    }
    for (const [name, pid] of Object.entries(pids)) {
      const s = this.#read(pid);
      if (!s) continue;
      const prev = this.#last.get(name);
      if (prev && prev.pid !== pid) this.#ended(name, prev.sample.cpuSeconds);
      this.#last.set(name, { pid, sample: s });
      for (const w of this.#windows) w.peak.set(name, Math.max(w.peak.get(name) ?? 0, s.rssMb));
    }
  }

  /** A process ended or was restarted: bank its CPU in every open window; a new one counts from 0. */
  #ended(name: string, oldCpu: number): void {
    for (const w of this.#windows) {
      w.doneCpu.set(name, (w.doneCpu.get(name) ?? 0) + oldCpu - (w.startCpu.get(name) ?? 0));
      w.startCpu.set(name, 0);
    }
  }

  /** Opens a window; the returned function closes it and reports per-process usage. */
  window(): () => Record<string, ProcessUsage> {
    this.sample();
    const w: WindowState = { startCpu: new Map([...this.#last].map(([n, v]) => [n, v.sample.cpuSeconds])), peak: new Map(), doneCpu: new Map() };
    for (const [n, v] of this.#last) w.peak.set(n, v.sample.rssMb);
    this.#windows.add(w);
    return () => {
      this.sample();
      this.#windows.delete(w);
      const out: Record<string, ProcessUsage> = {};
      for (const name of new Set([...this.#last.keys(), ...w.doneCpu.keys()])) {
        const live = this.#last.get(name)?.sample;
        const cpu = (w.doneCpu.get(name) ?? 0) + (live ? live.cpuSeconds - (w.startCpu.get(name) ?? 0) : 0);
        out[name] = { cpuSeconds: Math.round(cpu * 100) / 100, peakRssMb: Math.round(w.peak.get(name) ?? live?.rssMb ?? 0) };
      }
      return out;
    };
  }
}
