import { afterEach, describe, expect, it, vi } from 'vitest';
import { mapAtRate, mapWithConcurrency } from './concurrency.ts';

describe('mapWithConcurrency', () => {
  it('keeps at most `limit` in flight and the results in the items order', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapWithConcurrency([5, 1, 3, 2, 4], 2, async (n) => {
      most = Math.max(most, ++inFlight);
      await Promise.resolve();
      inFlight--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 30, 20, 40]);
    expect(most).toBe(2);
  });
});

describe('mapAtRate', () => {
  afterEach(() => vi.useRealTimers());

  it('starts item i at i / perSecond seconds, without waiting for the earlier ones to finish', async () => {
    vi.useFakeTimers();
    const t0 = Date.now();
    const started: number[] = [];
    const never = new Promise<void>(() => undefined);
    const results = mapAtRate(['a', 'b', 'c', 'd'], 4, async (item, i) => {
      started.push(Date.now() - t0);
      // The first item never finishes before the others start: arrivals do not queue behind work.
      if (i === 0) await Promise.race([never, new Promise((r) => setTimeout(r, 2000))]);
      return item.toUpperCase();
    });
    await vi.advanceTimersByTimeAsync(760);
    expect(started).toEqual([0, 250, 500, 750]);
    await vi.advanceTimersByTimeAsync(2000);
    await expect(results).resolves.toEqual(['A', 'B', 'C', 'D']);
  });

  it('rethrows the first rejection and starts none of the items still to come', async () => {
    vi.useFakeTimers();
    const started: number[] = [];
    const results = mapAtRate([0, 1, 2, 3], 10, (n) => {
      started.push(n);
      return n === 1 ? Promise.reject(new Error('create failed')) : Promise.resolve(n);
    });
    const settled = expect(results).rejects.toThrow('create failed');
    await vi.advanceTimersByTimeAsync(1000);
    await settled;
    expect(started).toEqual([0, 1]);
  });

  it('refuses a rate that is not above 0', async () => {
    await expect(mapAtRate([1], 0, (n) => Promise.resolve(n))).rejects.toThrow(/perSecond must be above 0/);
  });
});
