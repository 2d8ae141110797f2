import { describe, expect, it } from 'vitest';
import { FakeClock } from './clock.ts';
import { TokenBucket } from './token-bucket.ts';

describe('TokenBucket', () => {
  it('allows a burst, then paces at qps (kube-api 20 qps / 30 burst)', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(20, 30, clock);
    const delays = Array.from({ length: 32 }, () => bucket.reserve());
    expect(delays.slice(0, 30).every((d) => d === 0)).toBe(true);
    expect(delays.slice(30)).toEqual([50, 100]);
    await clock.advance(1000);
    expect(bucket.tryTake()).toBe(true);
  });

  it('acquire waits on the injected clock', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(1, 1, clock);
    await bucket.acquire();
    let done = false;
    const second = bucket.acquire().then(() => (done = true));
    await clock.advance(999);
    expect(done).toBe(false);
    await clock.advance(1);
    await second;
    expect(done).toBe(true);
  });

  it('waitMs says how long until a token, taking none', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(2, 1, clock);
    expect(bucket.waitMs()).toBe(0);
    expect(bucket.tryTake()).toBe(true);
    expect(bucket.waitMs()).toBe(500);
    await clock.advance(200);
    expect(bucket.waitMs()).toBe(300);
    await clock.advance(300);
    expect(bucket.tryTake()).toBe(true);
  });

  it('tryTake never goes into debt', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(1, 2, clock);
    expect([bucket.tryTake(), bucket.tryTake(), bucket.tryTake()]).toEqual([true, true, false]);
    expect(bucket.reserve()).toBe(1000);
  });
});
