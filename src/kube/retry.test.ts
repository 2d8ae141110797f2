import { describe, expect, it } from 'vitest';
import { FakeClock } from './clock.ts';
import { apiError } from './errors.ts';
import { NodeWriteBackoff, retryOnConflict, UpdateNodeSpecBackoff } from './retry.ts';

describe('retryOnConflict', () => {
  it('retries conflicts with the backoff duration plus jitter', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const result = retryOnConflict(
      NodeWriteBackoff,
      () => {
        calls++;
        return calls < 3 ? Promise.reject(apiError(409, 'conflict')) : Promise.resolve('ok');
      },
      { clock, random: () => 0.5 },
    );
    await clock.advance(149);
    expect(calls).toBe(1);
    await clock.advance(1);
    expect(calls).toBe(2);
    await clock.advance(150);
    expect(await result).toBe('ok');
  });

  it('gives up after the configured steps and never retries other errors', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const conflict = retryOnConflict(UpdateNodeSpecBackoff, () => (calls++, Promise.reject(apiError(409, 'conflict'))), { clock, random: () => 0 });
    const settled = conflict.catch((e: unknown) => e);
    await clock.advance(20 * 50);
    expect(await settled).toMatchObject({ code: 409 });
    expect(calls).toBe(20);
    await expect(retryOnConflict(NodeWriteBackoff, () => Promise.reject(new Error('boom')), { clock })).rejects.toThrow('boom');
  });
});
