// CPU seconds and peak RSS of the benchmark's processes, from /proc/<pid>/stat (utime + stime, fields
// 14 and 15, in clock ticks) and /proc/<pid>/status (VmRSS, VmHWM). A sampler reads every process once a
// second; a window (one scenario) reports CPU used between its start and end and the highest RSS meanwhile.
// A once-a-second VmRSS misses a spike shorter than a second (a CCM's start can peak 25 MB above its RSS for
// under 100 ms), so for a process started inside the window the kernel's high-water mark counts too: its
// whole life lies in the window. A process older than the window has only its samples: its mark may predate it.
import { readFileSync } from 'node:fs';
import type { ProcessUsage } from './types.ts';

/** USER_HZ: 100 on every Linux this runs on (sysconf(_SC_CLK_TCK)). */
const CLOCK_TICKS = 100;

export interface ProcSample {
  readonly cpuSeconds: number;
  readonly rssMb: number;
  /** VmHWM: the highest RSS of the process's life, as the kernel counts it. */
  readonly hwmMb?: number;
}

export function readProc(pid: number): ProcSample | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; fields after it start past the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { cpuSeconds: ticks / CLOCK_TICKS, rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

interface WindowState {
  /** The pid of each process running when the window opened: any other pid started inside it. */
  readonly startPids: Map<string, number>;
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
      for (const w of this.#windows) w.peak.set(name, Math.max(w.peak.get(name) ?? 0, peakIn(w, name, pid, s)));
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
    const w: WindowState = {
      startPids: new Map([...this.#last].map(([n, v]) => [n, v.pid])),
      startCpu: new Map([...this.#last].map(([n, v]) => [n, v.sample.cpuSeconds])),
      peak: new Map(),
      doneCpu: new Map(),
    };
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

/** The highest RSS `s` shows for a window: the high-water mark too when the process started inside it. */
function peakIn(w: WindowState, name: string, pid: number, s: ProcSample): number {
  const bornInside = w.startPids.get(name) !== pid;
  return Math.max(s.rssMb, bornInside ? (s.hwmMb ?? 0) : 0);
}
