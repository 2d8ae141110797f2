// checkToEnd (run.ts): the fuzz run's fc.check, which resolves only once the run fast-check's time limit
// interrupted has ended, so the one-store comparison after it reads a store no batch writes to.
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkToEnd } from './run.ts';

const UNTIL_THE_LIMIT = { seed: 1, numRuns: Number.MAX_SAFE_INTEGER, interruptAfterTimeLimit: 20, markInterruptAsFailure: false } as const;

describe('checkToEnd', () => {
  it("fast-check's own check returns at its time limit while the run under way goes on", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let ended = false;
    let run: Promise<void> | undefined;
    const details = await fc.check(
      fc.asyncProperty(fc.nat(), (_n) => {
        run ??= gate.then(() => {
          ended = true;
        });
        return run;
      }),
      UNTIL_THE_LIMIT,
    );
    expect(details.interrupted).toBe(true);
    expect(ended).toBe(false);
    open();
    await run;
    expect(ended).toBe(true);
  });

  it('resolves once the interrupted run has ended, and returns the failure fast-check never saw', async () => {
    let runs = 0;
    let ended = false;
    const { details, late } = await checkToEnd(
      fc.nat(),
      async (n) => {
        if (++runs === 1) return;
        // The second run: a batch longer than the time limit, which fails.
        await sleep(200);
        ended = true;
        throw new Error(`batch ${n} failed`);
      },
      UNTIL_THE_LIMIT,
    );
    expect(details.failed).toBe(false);
    expect(details.numRuns).toBe(1);
    expect(details.interrupted).toBe(true);
    expect(ended).toBe(true);
    expect((late?.error as Error | undefined)?.message).toMatch(/^batch \d+ failed$/);
  });

  it('leaves a failure fast-check saw to its report, shrunk', async () => {
    const { details, late } = await checkToEnd(fc.nat(), (n) => (n > 5 ? Promise.reject(new Error('too big')) : Promise.resolve()), { seed: 1, numRuns: 200 });
    expect(details.failed).toBe(true);
    expect(details.counterexample).toEqual([6]);
    expect(late).toBeUndefined();
  });
});
