/**
 * Simulated time. `now()` runs at `speed` times real time from an anchor; `fastForward(ms)` jumps
 * ahead and fires every timer that falls due, in order. Timers are set in simulated milliseconds.
 * Everything time-dependent in the server (actions, lifecycles, fault windows) uses this clock. `wallNow()` is
 * the wall clock beside it, which time control never moves: what clients outside simcloud compute with (an OAuth2
 * client's token expiry), injectable for tests.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface Clock {
  now(): number;
  /** Runs `fn` once simulated time reaches `at`. */
  setTimer(at: number, fn: () => void): number;
  clearTimer(id: number): void;
}

interface Timer {
  id: number;
  at: number;
  fn: () => void;
}

export interface SimClockOptions {
  realNow?: () => number;
  /** The wall clock (default Date.now); apart from realNow so a test can move it without moving simulated time. */
  wallNow?: () => number;
  speed?: number;
  /** Simulated start time (default: real now). */
  start?: number;
}

export class SimClock implements Clock {
  readonly #realNow: () => number;
  readonly #wallNow: () => number;
  #anchorReal: number;
  #anchorSim: number;
  #speed: number;
  #timers: Timer[] = [];
  #nextId = 1;
  #handle: NodeJS.Timeout | undefined;
  #offset = 0;

  constructor(opts: SimClockOptions = {}) {
    this.#realNow = opts.realNow ?? Date.now;
    this.#wallNow = opts.wallNow ?? Date.now;
    this.#anchorReal = this.#realNow();
    this.#anchorSim = opts.start ?? this.#anchorReal;
    this.#speed = opts.speed ?? 1;
  }

  now(): number {
    return this.#anchorSim + (this.#realNow() - this.#anchorReal) * this.#speed;
  }

  /** The wall clock: fast-forwards and speed leave it alone. */
  wallNow(): number {
    return this.#wallNow();
  }

  get speed(): number {
    return this.#speed;
  }

  /** Total simulated time added by fast-forwards. */
  get offset(): number {
    return this.#offset;
  }

  setSpeed(speed: number): void {
    this.#anchorSim = this.now();
    this.#anchorReal = this.#realNow();
    this.#speed = speed;
    this.#arm();
  }

  fastForward(ms: number): void {
    this.#anchorSim += ms;
    this.#offset += ms;
    this.#fireDue();
  }

  setTimer(at: number, fn: () => void): number {
    const id = this.#nextId++;
    // The callback runs in the async context it was set in, not in whichever one last armed the real timer:
    // work a request started (an action finishing) stays that request's (its resource_change events name it).
    const timer = { id, at, fn: AsyncLocalStorage.bind(fn) };
    const i = this.#timers.findIndex((t) => t.at > at);
    if (i < 0) this.#timers.push(timer);
    else this.#timers.splice(i, 0, timer);
    this.#arm();
    return id;
  }

  clearTimer(id: number): void {
    this.#timers = this.#timers.filter((t) => t.id !== id);
    this.#arm();
  }

  /** Stops the real timer; pending timers never fire. */
  stop(): void {
    clearTimeout(this.#handle);
    this.#timers = [];
  }

  #fireDue(): void {
    const now = this.now();
    while (this.#timers.length > 0 && this.#timers[0]!.at <= now) this.#timers.shift()!.fn();
    this.#arm();
  }

  #arm(): void {
    clearTimeout(this.#handle);
    this.#handle = undefined;
    const first = this.#timers[0];
    if (first === undefined) return;
    const delay = Math.max(0, (first.at - this.now()) / this.#speed);
    this.#handle = setTimeout(() => this.#fireDue(), Math.min(delay, 2 ** 31 - 1));
    this.#handle.unref();
  }
}
