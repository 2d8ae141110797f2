import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { findRetryError, RetryError, wrapError } from '../cloud/errors.ts';
import { FakeClock, flushMicrotasks } from './clock.ts';
import { processItem, runPeriodically, runWorkers, type WorkerOptions } from './run.ts';
import { WorkQueue } from './workqueue/queue.ts';
import { serviceRateLimiter } from './workqueue/rate-limiter.ts';

const logger = pino({ level: 'silent' });

function options(clock: FakeClock, sync: (key: string) => Promise<void>): WorkerOptions {
  const queue = new WorkQueue({ name: 'q', rateLimiter: serviceRateLimiter(), clock });
  return { controller: 'c', queue, sync, clock, logger, retryAfterMs: (e) => findRetryError(e)?.retryAfterMs };
}

describe('worker loop', () => {
  it('forgets on success, backs off on error, uses the RetryError delay when wrapped', async () => {
    const clock = new FakeClock();
    const outcomes: Array<Error | undefined> = [new Error('x'), wrapError('failed to ensure load balancer', new RetryError('r', 1234)), undefined];
    const opts = options(clock, () => {
      const next = outcomes.shift();
      return next ? Promise.reject(next) : Promise.resolve();
    });
    opts.queue.add('k');
    expect(await processItem(opts, (await opts.queue.get())!)).toBe('error');
    expect(opts.queue.numRequeues('k')).toBe(1);
    await clock.advance(5000);
    expect(await processItem(opts, (await opts.queue.get())!)).toBe('retry');
    await clock.advance(1234);
    expect(await processItem(opts, (await opts.queue.get())!)).toBe('success');
    expect(opts.queue.numRequeues('k')).toBe(0);
  });

  it('runWorkers drains and stops when the signal aborts', async () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    const opts = options(clock, (k) => (seen.push(k), Promise.resolve()));
    const ac = new AbortController();
    const running = runWorkers(2, opts, ac.signal);
    opts.queue.add('a');
    opts.queue.add('b');
    await flushMicrotasks();
    ac.abort();
    await running;
    expect(seen.sort()).toEqual(['a', 'b']);
  });
});

describe('runPeriodically', () => {
  it('non-sliding keeps the period from the start of each run; sliding waits after the end', async () => {
    const clock = new FakeClock();
    const starts: number[] = [];
    const ac = new AbortController();
    const t0 = clock.now();
    const work = async (): Promise<void> => {
      starts.push(clock.now() - t0);
      await new Promise<void>((resolve) => clock.setTimeout(resolve, 3000));
    };
    const running = runPeriodically(work, { periodMs: 10_000, sliding: false, clock, logger }, ac.signal);
    await clock.advance(25_000);
    ac.abort();
    await clock.advance(10_000);
    await running;
    expect(starts).toEqual([0, 10_000, 20_000]);

    const slidingStarts: number[] = [];
    const ac2 = new AbortController();
    const t1 = clock.now();
    const running2 = runPeriodically(
      async () => {
        slidingStarts.push(clock.now() - t1);
        await new Promise<void>((resolve) => clock.setTimeout(resolve, 3000));
      },
      { periodMs: 10_000, sliding: true, clock, logger },
      ac2.signal,
    );
    await clock.advance(30_000);
    ac2.abort();
    await clock.advance(10_000);
    await running2;
    expect(slidingStarts).toEqual([0, 13_000, 26_000]);
  });
});
