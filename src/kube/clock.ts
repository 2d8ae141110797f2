/**
 * The injected clock. Everything time-based in the CCM (queues, limiters, periodic loops, leader
 * election) takes a `Clock`, so unit tests drive time with `FakeClock` instead of sleeping.
 */

/** Opaque timer handle. */
export interface TimerHandle {
  readonly id: number;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** Resolves after `ms` on `clock`, or rejects with the abort reason when `signal` aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const onAbort = (): void => {
      clock.clearTimeout(handle);
      reject(abortError(signal));
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Like `sleep` but resolves `false` instead of rejecting when aborted. */
export async function sleepUnlessAborted(clock: Clock, ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(clock, ms, signal);
    return true;
  } catch {
    return false;
  }
}

function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('aborted');
}

class RealClock implements Clock {
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private nextId = 1;
  now(): number {
    return Date.now();
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    const timer = setTimeout(
      () => {
        this.timers.delete(id);
        fn();
      },
      Math.max(0, ms),
    );
    this.timers.set(id, timer);
    return { id };
  }
  clearTimeout(handle: TimerHandle): void {
    const timer = this.timers.get(handle.id);
    if (timer) clearTimeout(timer);
    this.timers.delete(handle.id);
  }
}

/** The wall clock. */
export const realClock: Clock = new RealClock();

interface FakeTimer {
  id: number;
  at: number;
  fn: () => void;
}

/**
 * A manual clock for tests: `advance(ms)` fires due timers in time order (ties in creation order)
 * and lets awaiting code run between them (`await clock.advance(...)`).
 */
export class FakeClock implements Clock {
  private current: number;
  private timers: FakeTimer[] = [];
  private nextId = 1;

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }
  now(): number {
    return this.current;
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { id: this.nextId++, at: this.current + Math.max(0, ms), fn };
    this.timers.push(timer);
    return { id: timer.id };
  }
  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((t) => t.id !== handle.id);
  }
  /** Number of pending timers. */
  pending(): number {
    return this.timers.length;
  }
  /** Moves time forward by `ms`, firing every timer that falls due, flushing microtasks between. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    await flushMicrotasks();
    for (;;) {
      const next = this.nextDue(target);
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.current = Math.max(this.current, next.at);
      next.fn();
      await flushMicrotasks();
    }
    this.current = target;
    await flushMicrotasks();
  }
  private nextDue(target: number): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers) {
      if (t.at <= target && (!best || t.at < best.at)) best = t;
    }
    return best;
  }
}

/**
 * Time as fast as the test goes: a timer fires on the next turn of the event loop and moves `now` on by its
 * delay, so a test of code that polls (e.g. the
 * provider's action waits, once a second) against a real server does not wait in real time.
 */
export class HurriedClock implements Clock {
  #offset = 0;
  #next = 1;
  readonly #cleared = new Set<number>();
  now(): number {
    return Date.now() + this.#offset;
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.#next++;
    this.#offset += Math.max(0, ms);
    setImmediate(() => {
      if (!this.#cleared.delete(id)) fn();
    });
    return { id };
  }
  clearTimeout(handle: TimerHandle): void {
    this.#cleared.add(handle.id);
  }
}

/** Lets pending promise callbacks run (a few macrotask turns). */
export async function flushMicrotasks(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
