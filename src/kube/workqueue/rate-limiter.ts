/**
 * Per-item rate limiters after client-go's `workqueue` package. `when(key)` returns the delay in ms
 * before the key may be retried and counts a failure; `forget(key)` resets it.
 */
import type { Clock } from '../clock.ts';
import { TokenBucket } from '../token-bucket.ts';

export interface RateLimiter {
  when(key: string): number;
  forget(key: string): void;
  numRequeues(key: string): number;
}

/** `ItemExponentialFailureRateLimiter`: base * 2^failures, capped at max. */
export class ItemExponentialFailureRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();
  private readonly baseMs: number;
  private readonly maxMs: number;

  constructor(baseMs: number, maxMs: number) {
    this.baseMs = baseMs;
    this.maxMs = maxMs;
  }
  when(key: string): number {
    const exp = this.failures.get(key) ?? 0;
    this.failures.set(key, exp + 1);
    const delay = this.baseMs * 2 ** exp;
    return Number.isFinite(delay) ? Math.min(delay, this.maxMs) : this.maxMs;
  }
  forget(key: string): void {
    this.failures.delete(key);
  }
  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/** `BucketRateLimiter`: one global token bucket for all keys. */
export class BucketRateLimiter implements RateLimiter {
  private readonly bucket: TokenBucket;
  constructor(qps: number, burst: number, clock: Clock) {
    this.bucket = new TokenBucket(qps, burst, clock);
  }
  when(_key: string): number {
    return this.bucket.reserve();
  }
  forget(_key: string): void {
    // the bucket is global: nothing per key
  }
  numRequeues(_key: string): number {
    return 0;
  }
}

/** `MaxOfRateLimiter`: the longest delay of all limiters (each one counts the failure). */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: readonly RateLimiter[];
  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }
  when(key: string): number {
    return Math.max(0, ...this.limiters.map((l) => l.when(key)));
  }
  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }
  numRequeues(key: string): number {
    return Math.max(0, ...this.limiters.map((l) => l.numRequeues(key)));
  }
}

/** client-go `DefaultControllerRateLimiter`: max(5ms→1000s per item, 10 qps / 100 burst). Node queue. */
export function defaultControllerRateLimiter(clock: Clock): RateLimiter {
  return new MaxOfRateLimiter(new ItemExponentialFailureRateLimiter(5, 1_000_000), new BucketRateLimiter(10, 100, clock));
}

/** The service controller's limiter: 5s→300s per item, no global bucket. */
export function serviceRateLimiter(): RateLimiter {
  return new ItemExponentialFailureRateLimiter(5_000, 300_000);
}
