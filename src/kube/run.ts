/**
 * Controller run helpers: the worker loop with upstream's three-way retry split and periodic loops
 * (`wait.Until` sliding and `wait.NonSlidingUntil`) on the injected clock.
 */
import { sleepUnlessAborted, type Clock } from './clock.ts';
import type { Logger } from './logger.ts';
import { noopControllerMetrics, SyncResult, type ControllerMetrics } from './metrics.ts';
import type { WorkQueue } from './workqueue/queue.ts';

export interface WorkerOptions {
  readonly controller: string;
  readonly queue: WorkQueue;
  readonly sync: (key: string) => Promise<void>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics?: ControllerMetrics;
  /**
   * Extracts a fixed requeue delay from a sync error (the service controller passes one that finds a
   * cloud `RetryError` through `cause`); `undefined` means exponential backoff.
   */
  readonly retryAfterMs?: (err: unknown) => number | undefined;
}

/**
 * Processes keys until the queue shuts down: `get` → `sync` → `forget` on success, `addAfter` for a
 * RetryError (if honoured), `addRateLimited` otherwise; `done` always.
 */
export async function runWorker(options: WorkerOptions): Promise<void> {
  for (;;) {
    const key = await options.queue.get();
    if (key === undefined) return;
    await processItem(options, key);
  }
}

/** One turn of the worker loop for `key` (exported for tests). */
export async function processItem(options: WorkerOptions, key: string): Promise<SyncResult> {
  const { queue, clock, logger, controller } = options;
  const metrics = options.metrics ?? noopControllerMetrics;
  const started = clock.now();
  let result: SyncResult = SyncResult.Success;
  try {
    await options.sync(key);
    queue.forget(key);
  } catch (err) {
    result = requeue(options, key, err);
    logger.error({ err, key }, `error syncing '${key}': ${err instanceof Error ? err.message : String(err)}, requeuing`);
  } finally {
    queue.done(key);
    metrics.observeSync(controller, result, (clock.now() - started) / 1000);
  }
  return result;
}

function requeue(options: WorkerOptions, key: string, err: unknown): SyncResult {
  const retryAfter = options.retryAfterMs?.(err);
  if (retryAfter !== undefined) {
    options.queue.addAfter(key, retryAfter);
    return SyncResult.Retry;
  }
  options.queue.addRateLimited(key);
  return SyncResult.Error;
}

/**
 * `wait.Until` (sliding: the next run starts `periodMs` after the previous one ends) or, with
 * `sliding: false`, `wait.NonSlidingUntil` (the period starts when a run starts). Runs immediately.
 * Errors from `fn` are logged; the loop ends when `signal` aborts.
 */
export async function runPeriodically(
  fn: () => Promise<void>,
  options: { periodMs: number; sliding: boolean; clock: Clock; logger: Logger },
  signal: AbortSignal,
): Promise<void> {
  const { periodMs, sliding, clock, logger } = options;
  while (!signal.aborted) {
    const start = clock.now();
    try {
      await fn();
    } catch (err) {
      logger.error({ err }, 'periodic run failed');
    }
    const wait = sliding ? periodMs : Math.max(0, periodMs - (clock.now() - start));
    if (!(await sleepUnlessAborted(clock, wait, signal))) return;
  }
}

/** Starts `n` workers and shuts the queue down (draining) when `signal` aborts. */
export async function runWorkers(n: number, options: WorkerOptions, signal: AbortSignal): Promise<void> {
  const onAbort = (): void => void options.queue.shutDownWithDrain();
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();
  const workers = Array.from({ length: Math.max(1, n) }, () => runWorker(options));
  await Promise.all(workers);
  await options.queue.shutDownWithDrain();
}
