import { describe, expect, it } from 'vitest';
import { FakeClock } from '../clock.ts';
import type { WorkQueueMetrics } from '../metrics.ts';
import { WorkQueue } from './queue.ts';
import { defaultControllerRateLimiter, ItemExponentialFailureRateLimiter, serviceRateLimiter } from './rate-limiter.ts';

function queue(clock = new FakeClock(), metrics?: WorkQueueMetrics): WorkQueue {
  return new WorkQueue({ name: 'test', rateLimiter: serviceRateLimiter(), clock, metrics });
}

describe('WorkQueue', () => {
  it('dedupes keys that are waiting', async () => {
    const q = queue();
    q.add('a');
    q.add('a');
    q.add('b');
    expect(q.len()).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
  });

  it('never hands a key being processed to a second worker; a re-add is kept and re-queued on done', async () => {
    const q = queue();
    q.add('a');
    const first = await q.get();
    q.add('a');
    expect(q.len()).toBe(0);
    let second: string | undefined;
    void q.get().then((k) => (second = k));
    await Promise.resolve();
    expect(second).toBeUndefined();
    q.done(first!);
    await Promise.resolve();
    expect(second).toBe('a');
  });

  it('addAfter fires on the injected clock; the earliest delay wins', async () => {
    const clock = new FakeClock();
    const q = queue(clock);
    q.addAfter('a', 1000);
    q.addAfter('a', 500);
    q.addAfter('a', 2000);
    await clock.advance(499);
    expect(q.len()).toBe(0);
    await clock.advance(1);
    expect(q.len()).toBe(1);
    await clock.advance(5000);
    expect(q.len()).toBe(1);
  });

  it('a plain add of a key waiting in backoff makes it ready at once', () => {
    const clock = new FakeClock();
    const q = queue(clock);
    q.addRateLimited('a');
    expect(q.len()).toBe(0);
    q.add('a');
    expect(q.len()).toBe(1);
  });

  it('addRateLimited backs off exponentially per key and forget resets it (service: 5 s → 300 s)', async () => {
    const clock = new FakeClock();
    const q = queue(clock);
    const delays: number[] = [];
    for (let i = 0; i < 8; i++) {
      const start = clock.now();
      q.addRateLimited('a');
      while (q.len() === 0) await clock.advance(1000);
      delays.push(clock.now() - start);
      q.done((await q.get())!);
    }
    expect(delays).toEqual([5000, 10000, 20000, 40000, 80000, 160000, 300000, 300000]);
    expect(q.numRequeues('a')).toBe(8);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
  });

  it('shutDown wakes idle getters, ignores new adds and drops pending delays; queued items are still handed out', async () => {
    const clock = new FakeClock();
    const q = queue(clock);
    q.add('a');
    q.addAfter('b', 100);
    q.shutDown();
    q.add('c');
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBeUndefined();
    expect(clock.pending()).toBe(0);
  });

  it('shutDownWithDrain waits for in-flight items', async () => {
    const q = queue();
    q.add('a');
    const key = await q.get();
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    await Promise.resolve();
    expect(drained).toBe(false);
    q.done(key!);
    await drain;
    expect(drained).toBe(true);
  });

  it('reports client-go style metrics', async () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    const q = queue(clock, {
      add: () => seen.push('add'),
      depth: (n) => seen.push(`depth ${n}`),
      latency: (s) => seen.push(`latency ${s}`),
      workDuration: (s) => seen.push(`work ${s}`),
      retry: () => seen.push('retry'),
    });
    q.add('a');
    await clock.advance(2000);
    const k = await q.get();
    await clock.advance(500);
    q.done(k!);
    q.addRateLimited('a');
    expect(seen).toEqual(['add', 'depth 1', 'depth 0', 'latency 2', 'work 0.5', 'retry']);
  });
});

describe('rate limiters', () => {
  it('node controller limiter is the max of 5 ms → 1000 s per item and a 10 qps / 100 burst bucket', () => {
    const clock = new FakeClock();
    const limiter = defaultControllerRateLimiter(clock);
    expect(limiter.when('a')).toBe(5);
    expect(limiter.when('a')).toBe(10);
    for (let i = 0; i < 98; i++) limiter.when(`k${i}`);
    // 100 tokens used: the bucket now dictates the delay for a fresh key
    expect(limiter.when('fresh')).toBe(100);
    expect(limiter.when('fresh2')).toBe(200);
  });

  it('per-item exponential limiter caps at the maximum', () => {
    const limiter = new ItemExponentialFailureRateLimiter(5, 1_000_000);
    const delays = Array.from({ length: 30 }, () => limiter.when('a'));
    expect(delays[0]).toBe(5);
    expect(delays.at(-1)).toBe(1_000_000);
  });
});
