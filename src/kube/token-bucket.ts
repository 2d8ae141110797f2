/**
 * A token bucket on the injected clock (golang.org/x/time/rate semantics: `qps` tokens per second,
 * at most `burst` saved). Used by the node queue's global limiter and the Kubernetes API limiter
 * (`--kube-api-qps` / `--kube-api-burst`).
 */
import { sleep, type Clock } from './clock.ts';

export class TokenBucket {
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: Clock;
  private tokens: number;
  private last: number;

  constructor(qps: number, burst: number, clock: Clock) {
    if (!(qps > 0) || !(burst >= 1)) throw new Error(`invalid token bucket: qps=${qps} burst=${burst}`);
    this.qps = qps;
    this.burst = burst;
    this.clock = clock;
    this.tokens = burst;
    this.last = clock.now();
  }

  /**
   * Takes one token now, going into debt if needed, and returns how long the caller must wait before
   * acting (rate.Limiter's `Reserve().Delay()`): 0 while tokens remain.
   */
  reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }

  /** Takes a token if one is available now (rate.Limiter's `Allow()`); never goes into debt. */
  tryTake(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Milliseconds until a token is available (0: one is now); takes nothing. */
  waitMs(): number {
    this.refill();
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.qps) * 1000);
  }

  /** Waits (on the clock) until a token is available. */
  async acquire(signal?: AbortSignal): Promise<void> {
    const delay = this.reserve();
    if (delay > 0) await sleep(this.clock, delay, signal);
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last) / 1000;
    this.last = now;
    this.tokens = Math.min(this.burst, this.tokens + elapsed * this.qps);
  }
}
