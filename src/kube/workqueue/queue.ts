/**
 * A work queue with client-go semantics (`workqueue.TypedRateLimitingInterface`) on an injected clock.
 *
 * - Dedupe: a key waits in the queue at most once (`dirty` set).
 * - Exclusivity: a key handed out by `get` is in `processing` until `done`; it is never handed to a
 *   second worker meanwhile. An `add` during processing is remembered and re-queued by `done`.
 * - Delays: `addAfter(key, ms)` arms a timer on the clock (earliest wins); `addRateLimited` asks the
 *   per-key limiter for the delay; `forget` resets the limiter; `numRequeues` reports it.
 *   A plain `add` of a key waiting in backoff makes it ready at once (the later timer re-adds it,
 *   which is deduplicated or causes one more sync, as in client-go).
 * - Shutdown: `shutDown` ignores further adds and drops pending delays; `get` still hands out what is
 *   queued, then resolves `undefined`. `shutDownWithDrain` also waits for in-flight items to be `done`.
 */
import { realClock, type Clock, type TimerHandle } from '../clock.ts';
import { noopWorkQueueMetrics, type WorkQueueMetrics } from '../metrics.ts';
import type { RateLimiter } from './rate-limiter.ts';

export interface WorkQueueOptions {
  /** Queue name (metrics label), e.g. `Nodes`, `service`, `node`. */
  readonly name: string;
  readonly rateLimiter: RateLimiter;
  readonly clock?: Clock;
  readonly metrics?: WorkQueueMetrics;
}

export class WorkQueue {
  readonly name: string;
  private readonly limiter: RateLimiter;
  private readonly clock: Clock;
  private readonly metrics: WorkQueueMetrics;
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly addedAt = new Map<string, number>();
  private readonly startedAt = new Map<string, number>();
  private readonly waiting = new Map<string, { at: number; handle: TimerHandle }>();
  private readonly getters: Array<(key: string | undefined) => void> = [];
  private drainWaiters: Array<() => void> = [];
  private shuttingDown = false;

  constructor(options: WorkQueueOptions) {
    this.name = options.name;
    this.limiter = options.rateLimiter;
    this.clock = options.clock ?? realClock;
    this.metrics = options.metrics ?? noopWorkQueueMetrics;
  }

  /** Marks `key` as needing processing. */
  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.metrics.add();
    this.dirty.add(key);
    this.addedAt.set(key, this.clock.now());
    if (this.processing.has(key)) return;
    this.enqueue(key);
  }

  /** Adds `key` after `ms` on the clock; with several pending delays the earliest wins. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.clock.now() + ms;
    const existing = this.waiting.get(key);
    if (existing && existing.at <= at) return;
    if (existing) this.clock.clearTimeout(existing.handle);
    const handle = this.clock.setTimeout(() => {
      this.waiting.delete(key);
      this.add(key);
    }, ms);
    this.waiting.set(key, { at, handle });
  }

  /** Re-adds `key` after the rate limiter's delay (counts as a retry). */
  addRateLimited(key: string): void {
    if (this.shuttingDown) return;
    this.metrics.retry();
    this.addAfter(key, this.limiter.when(key));
  }

  /** Resets the per-key backoff (call after a successful sync). */
  forget(key: string): void {
    this.limiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.limiter.numRequeues(key);
  }

  /** Waits for the next key; `undefined` once shut down and empty. Call `done(key)` when finished. */
  get(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) return Promise.resolve(this.handOut(key));
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Finishes processing `key`; re-queues it if it was added meanwhile. */
  done(key: string): void {
    const started = this.startedAt.get(key);
    if (started !== undefined) this.metrics.workDuration((this.clock.now() - started) / 1000);
    this.startedAt.delete(key);
    this.processing.delete(key);
    if (this.dirty.has(key)) this.enqueue(key);
    if (this.processing.size === 0) this.resolveDrain();
  }

  /** Keys waiting (not processing, not delayed). */
  len(): number {
    return this.queue.length;
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Stops accepting adds, drops pending delays and wakes idle `get` callers. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const { handle } of this.waiting.values()) this.clock.clearTimeout(handle);
    this.waiting.clear();
    for (const resolve of this.getters.splice(0)) resolve(undefined);
  }

  /** `shutDown`, then waits until every handed-out key is `done`. */
  async shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return;
    await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
  }

  private enqueue(key: string): void {
    const getter = this.getters.shift();
    if (getter) {
      getter(this.handOut(key));
      return;
    }
    this.queue.push(key);
    this.metrics.depth(this.queue.length);
  }

  private handOut(key: string): string {
    this.metrics.depth(this.queue.length);
    const added = this.addedAt.get(key);
    if (added !== undefined) this.metrics.latency((this.clock.now() - added) / 1000);
    this.addedAt.delete(key);
    this.processing.add(key);
    this.dirty.delete(key);
    this.startedAt.set(key, this.clock.now());
    return key;
  }

  private resolveDrain(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
