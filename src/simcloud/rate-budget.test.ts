import { describe, expect, it } from 'vitest';
import { FakeClock, flushMicrotasks } from '../kube/clock.ts';
import { RateBudget } from './rate-budget.ts';

describe('RateBudget', () => {
  it('lets one call find out the budget, then admits what the server allows, then waits for the reset', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget(clock);
    const admitted: number[] = [];
    await budget.admit();
    const waiting = [1, 2, 3].map((i) => budget.admit().then(() => admitted.push(i)));
    await flushMicrotasks();
    expect(admitted).toEqual([]);
    budget.answered(1, 1000);
    await flushMicrotasks();
    expect(admitted).toEqual([1]);
    await clock.advance(1000);
    expect(admitted).toEqual([1, 2]);
    budget.answered(0, 1000);
    await clock.advance(1000);
    expect(admitted).toEqual([1, 2, 3]);
    await Promise.all(waiting);
  });

  it('a 429 holds every call until Retry-After', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget(clock);
    await budget.admit();
    budget.limited(2000);
    let done = false;
    void budget.admit().then(() => (done = true));
    await clock.advance(1999);
    expect(done).toBe(false);
    await clock.advance(1);
    expect(done).toBe(true);
  });

  it('without RateLimit headers nothing waits after the first answer', async () => {
    const budget = new RateBudget(new FakeClock());
    await budget.admit();
    budget.answered(null, null);
    await Promise.all(Array.from({ length: 50 }, () => budget.admit()));
  });
});
