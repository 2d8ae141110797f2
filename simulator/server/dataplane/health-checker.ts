// Active health checks of one listener: one TargetChecker per target, probing
// `ip:(healthCheck.port ?? destinationPort)` every `intervalMs` (measured from the end of the previous
// check, so checks never overlap), each bounded by `timeoutMs`. Status rules are in health-state.ts.
// Timers come from an injectable Scheduler (unit tests drive it by hand); the real one unrefs them.
import { HealthState, type HealthStatus } from './health-state.ts';
import { probeFor, type Probe, type ProbeTarget } from './probes.ts';
import type { DataPlaneHealthCheck, DataPlaneTarget } from './types.ts';

export interface Scheduler {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realScheduler: Scheduler = {
  set: (fn, ms) => setTimeout(fn, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Floor of the check interval, so a zero or negative interval cannot spin. */
export const MIN_INTERVAL_MS = 10;

export interface TargetCheckerOptions {
  target: ProbeTarget;
  check: DataPlaneHealthCheck;
  initial: HealthStatus;
  probe: Probe;
  scheduler: Scheduler;
  onChange: (status: HealthStatus) => void;
}

export class TargetChecker {
  #opts: TargetCheckerOptions;
  #state: HealthState;
  #timer: unknown = null;
  #timeout: unknown = null;
  #inflight: AbortController | null = null;
  #stopped = false;

  constructor(opts: TargetCheckerOptions) {
    this.#opts = opts;
    this.#state = new HealthState(opts.check.retries, opts.initial);
  }

  get status(): HealthStatus {
    return this.#state.status;
  }

  /** Runs the first check now, then one every interval. */
  start(): void {
    if (!this.#stopped && this.#inflight === null && this.#timer === null) this.#run();
  }

  stop(): void {
    this.#stopped = true;
    this.#clearTimers();
    this.#inflight?.abort();
    this.#inflight = null;
  }

  #clearTimers(): void {
    if (this.#timer !== null) this.#opts.scheduler.clear(this.#timer);
    if (this.#timeout !== null) this.#opts.scheduler.clear(this.#timeout);
    this.#timer = null;
    this.#timeout = null;
  }

  #run(): void {
    this.#timer = null;
    const ac = new AbortController();
    this.#inflight = ac;
    const { probe, scheduler, check, target } = this.#opts;
    this.#timeout = scheduler.set(() => ac.abort(), Math.max(1, check.timeoutMs));
    probe(target, check, ac.signal)
      .catch(() => false)
      .then(
        (ok) => this.#finish(ac, ok && !ac.signal.aborted),
        () => undefined,
      );
  }

  #finish(ac: AbortController, ok: boolean): void {
    if (this.#stopped || ac !== this.#inflight) return;
    this.#inflight = null;
    this.#clearTimers();
    const change = this.#state.record(ok);
    this.#timer = this.#opts.scheduler.set(() => this.#run(), Math.max(MIN_INTERVAL_MS, this.#opts.check.intervalMs));
    if (change !== null) this.#opts.onChange(change);
  }
}

export interface HealthMonitorOptions {
  onChange: (targetId: string, status: HealthStatus) => void;
  scheduler?: Scheduler;
  probeFor?: (check: DataPlaneHealthCheck) => Probe;
}

interface Entry {
  key: string;
  ip: string;
  port: number;
  checker: TargetChecker;
}

function checkKey(ip: string, port: number, c: DataPlaneHealthCheck): string {
  return JSON.stringify([ip, port, c.protocol, c.path, c.intervalMs, c.timeoutMs, c.retries]);
}

/** The checkers of one listener, reconciled against its target list. */
export class HealthMonitor {
  #opts: HealthMonitorOptions;
  #entries = new Map<string, Entry>();

  constructor(opts: HealthMonitorOptions) {
    this.#opts = opts;
  }

  /**
   * Starts checkers for new targets, restarts those whose address or check changed and stops those
   * of removed targets. A changed check keeps the current status; a changed address resets it to
   * unknown (reported when it was known).
   */
  sync(targets: readonly DataPlaneTarget[], check: DataPlaneHealthCheck, destinationPort: number): void {
    const port = check.port ?? destinationPort;
    const wanted = new Set<string>();
    for (const t of targets) {
      wanted.add(t.id);
      this.#syncOne(t, check, port);
    }
    for (const [id, entry] of this.#entries) {
      if (wanted.has(id)) continue;
      entry.checker.stop();
      this.#entries.delete(id);
    }
  }

  #syncOne(t: DataPlaneTarget, check: DataPlaneHealthCheck, port: number): void {
    const key = checkKey(t.ip, port, check);
    const current = this.#entries.get(t.id);
    if (current?.key === key) return;
    let initial: HealthStatus = 'unknown';
    if (current !== undefined) {
      current.checker.stop();
      const sameAddress = current.ip === t.ip && current.port === port;
      if (sameAddress) initial = current.checker.status;
      else if (current.checker.status !== 'unknown') this.#opts.onChange(t.id, 'unknown');
    }
    const checker = new TargetChecker({
      target: { host: t.ip, port },
      check,
      initial,
      probe: (this.#opts.probeFor ?? probeFor)(check),
      scheduler: this.#opts.scheduler ?? realScheduler,
      onChange: (status) => this.#opts.onChange(t.id, status),
    });
    this.#entries.set(t.id, { key, ip: t.ip, port, checker });
    checker.start();
  }

  status(targetId: string): HealthStatus {
    return this.#entries.get(targetId)?.checker.status ?? 'unknown';
  }

  statuses(): [string, HealthStatus][] {
    return [...this.#entries].map(([id, e]) => [id, e.checker.status]);
  }

  stop(): void {
    for (const e of this.#entries.values()) e.checker.stop();
    this.#entries.clear();
  }
}
