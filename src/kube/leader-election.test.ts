import type { V1Lease } from '@kubernetes/client-node';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FakeClock, flushMicrotasks } from './clock.ts';
import { apiError } from './errors.ts';
import { LeaderElector, MicroTime, type LeaseClient } from './leader-election.ts';

const logger = pino({ level: 'silent' });

class MemoryLease implements LeaseClient {
  readonly description = 'kube-system/cloud-controller-manager';
  lease: V1Lease | undefined;
  down = false;
  calls: string[] = [];
  private rv = 1;
  get(): Promise<V1Lease | undefined> {
    this.calls.push('get');
    if (this.down) return Promise.reject(new Error('apiserver down'));
    return Promise.resolve(this.lease ? structuredClone(this.lease) : undefined);
  }
  create(lease: V1Lease): Promise<V1Lease> {
    if (this.lease) return Promise.reject(apiError(409, 'exists'));
    this.lease = { ...lease, metadata: { resourceVersion: String(this.rv++) } };
    return Promise.resolve(structuredClone(this.lease));
  }
  update(lease: V1Lease): Promise<V1Lease> {
    this.calls.push('update');
    if (this.down) return Promise.reject(new Error('apiserver down'));
    if (lease.metadata?.resourceVersion !== this.lease?.metadata?.resourceVersion) return Promise.reject(apiError(409, 'conflict'));
    this.lease = { ...lease, metadata: { resourceVersion: String(this.rv++) } };
    return Promise.resolve(structuredClone(this.lease));
  }
}

/** A lease whose writes, once `hang` is set, never answer until their signal aborts them. */
class HangingLease extends MemoryLease {
  hang = false;
  readonly hung: AbortSignal[] = [];
  override update(lease: V1Lease, signal?: AbortSignal): Promise<V1Lease> {
    if (!this.hang) return super.update(lease);
    if (signal) this.hung.push(signal);
    return new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
  }
}

function elector(lease: MemoryLease, clock: FakeClock, identity: string, log: string[]): LeaderElector {
  return new LeaderElector({
    lease,
    identity,
    clock,
    logger,
    random: () => 0,
    onStartedLeading: () => log.push(`${identity} started`),
    onStoppedLeading: () => log.push(`${identity} stopped`),
  });
}

describe('LeaderElector', () => {
  it('sends lease times as MicroTime (6 fractional digits)', () => {
    expect(JSON.stringify({ t: new MicroTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678)) })).toBe('{"t":"2026-01-02T03:04:05.678000Z"}');
  });

  it('acquires a free lease and renews it', async () => {
    const clock = new FakeClock();
    const lease = new MemoryLease();
    const log: string[] = [];
    const a = elector(lease, clock, 'host-a_1', log);
    const ac = new AbortController();
    const running = a.run(ac.signal);
    await flushMicrotasks();
    expect(log).toEqual(['host-a_1 started']);
    expect(lease.lease?.spec).toMatchObject({ holderIdentity: 'host-a_1', leaseDurationSeconds: 15, leaseTransitions: 0 });
    await clock.advance(10_000);
    expect(lease.lease?.spec?.renewTime?.getTime()).toBeGreaterThan(clock.now() - 3_000);
    expect(a.healthCheck()).toBeUndefined();
    ac.abort();
    await running;
    expect(log).toEqual(['host-a_1 started', 'host-a_1 stopped']);
  });

  it('renews with one update while leading, and reads the lease again after a conflict', async () => {
    const clock = new FakeClock();
    const lease = new MemoryLease();
    const a = elector(lease, clock, 'host-a_1', []);
    const ac = new AbortController();
    const running = a.run(ac.signal);
    await flushMicrotasks();
    lease.calls = [];
    await clock.advance(2_000);
    await clock.advance(2_000);
    expect(lease.calls).toEqual(['update', 'update']);
    // Someone else wrote the lease: the optimistic update conflicts, then a read and an update renew it.
    lease.lease = { ...lease.lease, metadata: { resourceVersion: '99' } };
    lease.calls = [];
    await clock.advance(2_000);
    expect(lease.calls).toEqual(['update', 'get', 'update']);
    expect(lease.lease?.spec?.holderIdentity).toBe('host-a_1');
    ac.abort();
    await running;
  });

  it('records LeaderElection Events on the Lease when it becomes leader and when it stops leading', async () => {
    const clock = new FakeClock();
    const events: string[] = [];
    const recorder = {
      event: (o: { kind?: string; name?: string }, type: string, reason: string, message: string) =>
        events.push(`${o.kind}/${o.name} ${type} ${reason}: ${message}`),
    };
    const ac = new AbortController();
    const running = new LeaderElector({
      lease: new MemoryLease(),
      identity: 'host-a_1',
      clock,
      logger,
      random: () => 0,
      onStartedLeading: () => undefined,
      onStoppedLeading: () => undefined,
      events: { recorder, lease: { kind: 'Lease', namespace: 'kube-system', name: 'cloud-controller-manager' } },
    }).run(ac.signal);
    await flushMicrotasks();
    expect(events).toEqual(['Lease/cloud-controller-manager Normal LeaderElection: host-a_1 became leader']);
    ac.abort();
    await running;
    expect(events).toEqual([
      'Lease/cloud-controller-manager Normal LeaderElection: host-a_1 became leader',
      'Lease/cloud-controller-manager Normal LeaderElection: host-a_1 stopped leading',
    ]);
  });

  it('a standby takes over only after the holder stops renewing for a lease duration', async () => {
    const clock = new FakeClock();
    const lease = new MemoryLease();
    const log: string[] = [];
    const leaderStop = new AbortController();
    const standbyStop = new AbortController();
    const leader = elector(lease, clock, 'a', log).run(leaderStop.signal);
    await flushMicrotasks();
    const standby = elector(lease, clock, 'b', log).run(standbyStop.signal);
    await clock.advance(30_000);
    expect(log).toEqual(['a started']);
    leaderStop.abort();
    await leader;
    await clock.advance(14_000);
    expect(log).toEqual(['a started', 'a stopped']);
    await clock.advance(4_000);
    expect(log).toEqual(['a started', 'a stopped', 'b started']);
    expect(lease.lease?.spec?.leaseTransitions).toBe(1);
    standbyStop.abort();
    await standby;
  });

  it('loses leadership when renewals fail past the renew deadline', async () => {
    const clock = new FakeClock();
    const lease = new MemoryLease();
    const log: string[] = [];
    const a = elector(lease, clock, 'a', log);
    const running = a.run(new AbortController().signal);
    await flushMicrotasks();
    lease.down = true;
    await clock.advance(12_000);
    await running;
    expect(log).toEqual(['a started', 'a stopped']);
    expect(a.isLeader()).toBe(false);
  });

  it('aborts a lease write that outlives its deadline, so its late answer cannot land', async () => {
    const clock = new FakeClock();
    const lease = new HangingLease();
    const log: string[] = [];
    const a = elector(lease, clock, 'a', log);
    const running = a.run(new AbortController().signal);
    await flushMicrotasks();
    lease.hang = true;
    // A renewal at 2 s hangs until its deadline (12 s), then the loop's retry wait ends past it.
    await clock.advance(16_000);
    await running;
    expect(log).toEqual(['a started', 'a stopped']);
    // Every write that hung was cancelled when its attempt timed out: none is left in flight.
    expect(lease.hung.length).toBeGreaterThan(0);
    expect(lease.hung.every((s) => s.aborted)).toBe(true);
  });

  it('healthCheck reports a leader that has not renewed within lease duration + tolerance', async () => {
    const clock = new FakeClock();
    const lease = new MemoryLease();
    const a = new LeaderElector({
      lease,
      identity: 'a',
      clock,
      logger,
      random: () => 0,
      renewDeadlineMs: 10_000,
      onStartedLeading: () => undefined,
      onStoppedLeading: () => undefined,
    });
    const ac = new AbortController();
    const running = a.run(ac.signal);
    await flushMicrotasks();
    expect(a.healthCheck(20_000)).toBeUndefined();
    expect(a.healthCheck(-20_000)).toBe('failed election to renew leadership on lease kube-system/cloud-controller-manager');
    ac.abort();
    await running;
  });

  it('a released lease is taken over by a standby on its next try, not after a lease duration', async () => {
    const clock = new FakeClock();
    const lease = new MemoryLease();
    const log: string[] = [];
    const leaderStop = new AbortController();
    const standbyStop = new AbortController();
    const a = elector(lease, clock, 'a', log);
    const leader = a.run(leaderStop.signal);
    await flushMicrotasks();
    const standby = elector(lease, clock, 'b', log).run(standbyStop.signal);
    await clock.advance(4_000);
    leaderStop.abort();
    await leader;
    expect(await a.release()).toBe(true);
    expect(lease.lease?.spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    await clock.advance(5_000);
    expect(log).toEqual(['a started', 'a stopped', 'b started']);
    expect(await a.release()).toBe(false);
    expect(lease.lease?.spec?.holderIdentity).toBe('b');
    standbyStop.abort();
    await standby;
  });
});
