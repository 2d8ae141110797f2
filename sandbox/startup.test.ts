import { describe, expect, it } from 'vitest';
import { FakeClock } from '../src/kube/clock.ts';
import type { StepRecord } from './state.ts';
import { settleAll, spanMs, startInOrder, timed } from './startup.ts';

/** A promise settled by the test, and whether its step has been started. */
function gate<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: Error) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every settled promise's reactions run. */
const drain = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('timed', () => {
  it('records the name, the start on its clock, the duration and the detail of what the step returned', async () => {
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:00.000Z'));
    const records: StepRecord[] = [];
    const value = await timed(
      'etcd',
      async () => {
        await clock.advance(1500);
        return 3;
      },
      (r) => records.push(r),
      { clock, detail: (n) => `${n} nodes` },
    );
    expect(value).toBe(3);
    expect(records).toEqual([{ name: 'etcd', startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1500, detail: '3 nodes' }]);
  });

  it('records nothing for a step that fails, and passes the failure on', async () => {
    const records: StepRecord[] = [];
    await expect(
      timed(
        'simcloud',
        () => Promise.reject(new Error('no port')),
        (r) => records.push(r),
      ),
    ).rejects.toThrow('no port');
    expect(records).toEqual([]);
  });
});

describe('settleAll', () => {
  it('resolves with every value in order', async () => {
    await expect(settleAll([Promise.resolve(1), Promise.resolve('a')] as const)).resolves.toEqual([1, 'a']);
  });

  it('fails with the first failure in the order given, only once every branch has settled', async () => {
    const slow = gate<number>();
    let settled = false;
    const all = settleAll([Promise.reject(new Error('first')), slow.promise, Promise.reject(new Error('second'))]).catch((e: unknown) => {
      settled = true;
      throw e;
    });
    await drain();
    expect(settled).toBe(false);
    slow.resolve(1);
    await expect(all).rejects.toThrow('first');
  });
});

describe('spanMs', () => {
  it('counts overlapping records once: first start to last end', () => {
    expect(
      spanMs([
        { name: 'a', startedAt: '2026-01-01T00:00:00.000Z', durationMs: 3000 },
        { name: 'b', startedAt: '2026-01-01T00:00:00.500Z', durationMs: 1000 },
        { name: 'c', startedAt: '2026-01-01T00:00:02.000Z', durationMs: 2000 },
      ]),
    ).toBe(4000);
  });

  it('sums records without a start (state files from before steps overlapped)', () => {
    expect(
      spanMs([
        { name: 'a', durationMs: 500 },
        { name: 'b', durationMs: 700 },
      ]),
    ).toBe(1200);
  });
});

describe('startInOrder', () => {
  type Access = { readonly api: string };
  function steps(withPrestart: boolean, ccmNeedsCluster = false) {
    const started: string[] = [];
    const g = { prestart: gate<Access>(), simcloud: gate<void>(), cluster: gate<Access>(), ccm: gate<void>() };
    const step =
      <T>(name: keyof typeof g, p: Promise<T>) =>
      () => {
        started.push(name);
        return p;
      };
    const run = startInOrder<Access>({
      ...(withPrestart ? { prestart: step('prestart', g.prestart.promise) } : {}),
      simcloud: step('simcloud', g.simcloud.promise),
      cluster: step('cluster', g.cluster.promise),
      ccm: (access) => {
        started.push(`ccm@${access.api}`);
        return g.ccm.promise;
      },
      ccmNeedsCluster,
    });
    return { started, g, run };
  }

  it('boots the prestart with simcloud, the cluster after simcloud, the CCM once simcloud and the API are there', async () => {
    const { started, g, run } = steps(true);
    await drain();
    expect(started).toEqual(['prestart', 'simcloud']);
    g.simcloud.resolve();
    await drain();
    expect(started).toEqual(['prestart', 'simcloud', 'cluster']);
    g.prestart.resolve({ api: 'early' });
    await drain();
    // The CCM does not wait for the machines and their kubelets.
    expect(started).toEqual(['prestart', 'simcloud', 'cluster', 'ccm@early']);
    let done = false;
    void run.then(() => (done = true));
    g.ccm.resolve();
    await drain();
    expect(done).toBe(false);
    g.cluster.resolve({ api: 'late' });
    await run;
  });

  it('without a prestart, starts the CCM once the whole cluster is up', async () => {
    const { started, g, run } = steps(false);
    g.simcloud.resolve();
    await drain();
    expect(started).toEqual(['simcloud', 'cluster']);
    g.cluster.resolve({ api: 'cluster' });
    await drain();
    expect(started).toEqual(['simcloud', 'cluster', 'ccm@cluster']);
    g.ccm.resolve();
    await run;
  });

  it('starts a CCM that needs the whole cluster once the cluster step is done, prestart or not', async () => {
    const { started, g, run } = steps(true, true);
    g.simcloud.resolve();
    g.prestart.resolve({ api: 'early' });
    await drain();
    expect(started).toEqual(['prestart', 'simcloud', 'cluster']);
    g.cluster.resolve({ api: 'cluster' });
    await drain();
    expect(started).toEqual(['prestart', 'simcloud', 'cluster', 'ccm@cluster']);
    g.ccm.resolve();
    await run;
  });

  it('when simcloud fails, starts neither the cluster nor the CCM and fails once the prestart has settled', async () => {
    const { started, g, run } = steps(true);
    let failed = false;
    const outcome = run.catch((e: unknown) => {
      failed = true;
      return e;
    });
    g.simcloud.reject(new Error('simcloud exited'));
    await drain();
    expect(failed).toBe(false);
    g.prestart.resolve({ api: 'early' });
    expect(((await outcome) as Error).message).toBe('simcloud exited');
    expect(started).toEqual(['prestart', 'simcloud']);
  });

  it('when the prestart fails, starts no CCM, lets the cluster step settle and fails with the prestart error', async () => {
    const { started, g, run } = steps(true);
    const outcome = run.catch((e: unknown) => e);
    g.simcloud.resolve();
    g.prestart.reject(new Error('kube-apiserver failed to start'));
    await drain();
    g.cluster.reject(new Error('the control plane did not start'));
    expect(((await outcome) as Error).message).toBe('kube-apiserver failed to start');
    expect(started).toEqual(['prestart', 'simcloud', 'cluster']);
  });
});
