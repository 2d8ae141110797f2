/**
 * `retry.RetryOnConflict` with `wait.Backoff` semantics on the injected clock: up to `steps` attempts,
 * sleeping `durationMs * (1 + random * jitter)` between them (factor 1 in all upstream uses here).
 */
import { sleep, type Clock } from './clock.ts';
import { isConflict } from './errors.ts';

export interface Backoff {
  readonly steps: number;
  readonly durationMs: number;
  readonly jitter: number;
  readonly factor?: number;
}

/** Upstream `UpdateNodeSpecBackoff`: 20 × 50 ms, jitter 1.0 (node initialisation PUT). */
export const UpdateNodeSpecBackoff: Backoff = { steps: 20, durationMs: 50, jitter: 1.0 };
/** client-go `retry.DefaultRetry`: 5 × 10 ms, jitter 0.1. */
export const DefaultRetry: Backoff = { steps: 5, durationMs: 10, jitter: 0.1, factor: 1 };
/** client-go `retry.DefaultBackoff`: 4 steps of 10 ms × 5, jitter 0.1. */
export const DefaultBackoff: Backoff = { steps: 4, durationMs: 10, jitter: 0.1, factor: 5 };
/** Taint, label and condition writes: 5 × 100 ms, jitter 1.0 (`updateNodeStatusBackoff`-style). */
export const NodeWriteBackoff: Backoff = { steps: 5, durationMs: 100, jitter: 1.0 };

export interface RetryOptions {
  readonly clock: Clock;
  /** Injected randomness for jitter (defaults to Math.random). */
  readonly random?: () => number;
  readonly signal?: AbortSignal;
}

/**
 * Runs `fn` until it succeeds, throws a non-conflict error, or `steps` attempts are used up (then the
 * last conflict is thrown). `attempt` is 0 for the first call.
 */
export async function retryOnConflict<T>(backoff: Backoff, fn: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  return retryOn(isConflict, backoff, fn, options);
}

/** Like `retryOnConflict` but retries every error `retriable` accepts. */
export async function retryOn<T>(
  retriable: (err: unknown) => boolean,
  backoff: Backoff,
  fn: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const random = options.random ?? Math.random;
  let duration = backoff.durationMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (!retriable(err) || attempt + 1 >= backoff.steps) throw err;
    }
    const wait = backoff.jitter > 0 ? duration * (1 + random() * backoff.jitter) : duration;
    await sleep(options.clock, wait, options.signal);
    duration *= backoff.factor ?? 1;
  }
}
