/**
 * Leader election on a coordination.k8s.io/v1 Lease, after client-go `leaderelection`
 * with upstream's CCM defaults: Lease `kube-system/cloud-controller-manager`, lease 15 s / renew deadline 10 s / retry 2 s,
 * holder identity `<hostname>_<uuid>`.
 *
 * - Acquire: every retry period (jittered ×1.2) try to create/take over the Lease; another holder's
 *   Lease counts as expired when we have not seen its record change for a lease duration (local
 *   observation time, as client-go, so clock skew does not matter).
 * - Renew: every retry period; if no renewal succeeds within the renew deadline, leadership is lost:
 *   the leading signal aborts and `onStoppedLeading` runs. Exiting the process is the caller's job.
 * - `release()` (client-go's ReleaseOnCancel): after leading ended on purpose, empty the holder so a
 *   standby takes over on its next try instead of after a lease duration.
 * - `healthCheck()` is client-go's `HealthzAdaptor` check: failing when leading but the lease has not
 *   been renewed for lease duration + tolerance (20 s).
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { V1Lease, V1ObjectReference } from '@kubernetes/client-node';
import { seg, type KubeClient } from './api-client.ts';
import { realClock, sleepUnlessAborted, type Clock } from './clock.ts';
import { isNotFound } from './errors.ts';
import { EventType, type EventRecorder } from './events.ts';
import type { Logger } from './logger.ts';

/** What leader election needs from the API (one Lease). */
export interface LeaseClient {
  readonly description: string;
  // `signal` aborts a request that outlived its deadline, so a late answer cannot land after the elector gave up on it.
  /** The Lease, or `undefined` when it does not exist. */
  get(signal?: AbortSignal): Promise<V1Lease | undefined>;
  create(lease: V1Lease, signal?: AbortSignal): Promise<V1Lease>;
  /** PUT with `metadata.resourceVersion` (409 on a concurrent write). */
  update(lease: V1Lease, signal?: AbortSignal): Promise<V1Lease>;
}

export interface LeaderElectionConfig {
  readonly lease: LeaseClient;
  /** Holder identity; default `defaultLeaderIdentity()`. */
  readonly identity?: string;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly random?: () => number;
  /** Called once leadership is acquired; `signal` aborts when it is lost or the elector stops. */
  readonly onStartedLeading: (signal: AbortSignal) => void;
  /** Called when leadership ends (lost, or stopped after leading). */
  readonly onStoppedLeading: () => void;
  readonly onNewLeader?: (identity: string) => void;
  /**
   * client-go's `Lock.RecordEvent`: a `LeaderElection` Event on the Lease, "<identity> became leader" and
   * "<identity> stopped leading", which is how `kubectl get events` tells who led when.
   */
  readonly events?: { readonly recorder: EventRecorder; readonly lease: V1ObjectReference };
}

/**
 * A Date that serialises as `metav1.MicroTime` (RFC 3339 with 6 fractional digits): a plain Date goes
 * out via `toJSON()` with milliseconds, which the apiserver rejects ("cannot parse \".802Z\" as
 * \".000000\"").
 */
export class MicroTime extends Date {
  override toJSON(): string {
    return this.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  }
}

export const LeaderElectionDefaults = {
  namespace: 'kube-system',
  name: 'cloud-controller-manager',
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
  healthzToleranceMs: 20_000,
} as const;

/** `os.Hostname() + "_" + uuid`, like upstream. */
export function defaultLeaderIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/** A `LeaseClient` over the coordination.k8s.io/v1 API. */
export function coordinationLeaseClient(
  client: KubeClient,
  namespace: string = LeaderElectionDefaults.namespace,
  name: string = LeaderElectionDefaults.name,
): LeaseClient {
  const collection = `/apis/coordination.k8s.io/v1/namespaces/${seg(namespace)}/leases`;
  return {
    description: `${namespace}/${name}`,
    get: async (signal) => {
      try {
        return await client.object<V1Lease>('GET', `${collection}/${seg(name)}`, signal ? { signal } : {});
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    create: (lease, signal) =>
      client.object<V1Lease>('POST', collection, { body: { ...lease, metadata: { ...lease.metadata, name, namespace } }, ...(signal ? { signal } : {}) }),
    update: (lease, signal) => client.object<V1Lease>('PUT', `${collection}/${seg(name)}`, { body: lease, ...(signal ? { signal } : {}) }),
  };
}

export class LeaderElector {
  readonly identity: string;
  private readonly config: LeaderElectionConfig;
  private readonly clock: Clock;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private observedRecord: string | undefined;
  private observedHolder = '';
  private observedTime = 0;
  private leading = false;
  /** The lease as this elector last created or updated it (the fast path's base). */
  private lastWritten: V1Lease | undefined;

  constructor(config: LeaderElectionConfig) {
    this.config = config;
    this.clock = config.clock ?? realClock;
    this.identity = config.identity ?? defaultLeaderIdentity();
    this.leaseDurationMs = config.leaseDurationMs ?? LeaderElectionDefaults.leaseDurationMs;
    this.renewDeadlineMs = config.renewDeadlineMs ?? LeaderElectionDefaults.renewDeadlineMs;
    this.retryPeriodMs = config.retryPeriodMs ?? LeaderElectionDefaults.retryPeriodMs;
    if (this.leaseDurationMs <= this.renewDeadlineMs) throw new Error('leaseDuration must be greater than renewDeadline');
    if (this.renewDeadlineMs <= this.retryPeriodMs * 1.2) throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** The current holder as last observed. */
  getLeader(): string {
    return this.observedHolder;
  }

  private recordEvent(what: string): void {
    const events = this.config.events;
    events?.recorder.event(events.lease, EventType.Normal, 'LeaderElection', `${this.identity} ${what}`);
  }

  /** Healthz: an error message when leading but not renewed for lease duration + tolerance. */
  healthCheck(toleranceMs: number = LeaderElectionDefaults.healthzToleranceMs): string | undefined {
    if (!this.leading) return undefined;
    if (this.clock.now() - this.observedTime > this.leaseDurationMs + toleranceMs) {
      return `failed election to renew leadership on lease ${this.config.lease.description}`;
    }
    return undefined;
  }

  /** Campaigns, leads until the lease is lost or `signal` aborts, then returns. */
  async run(signal: AbortSignal): Promise<void> {
    if (!(await this.acquire(signal))) return;
    const leadership = new AbortController();
    const onAbort = (): void => leadership.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    this.leading = true;
    this.config.logger.info({ lease: this.config.lease.description, identity: this.identity }, 'successfully acquired lease');
    this.recordEvent('became leader');
    this.config.onStartedLeading(leadership.signal);
    await this.renewLoop(signal);
    this.recordEvent('stopped leading');
    signal.removeEventListener('abort', onAbort);
    this.leading = false;
    leadership.abort();
    if (!signal.aborted) this.config.logger.error({ lease: this.config.lease.description }, 'leaderelection lost');
    this.config.onStoppedLeading();
  }

  /**
   * Gives the lease up if this elector still holds it: holder emptied, duration 1 s. Bounded by the renew
   * deadline; false when the lease was not ours or the API did not answer (it then expires as usual).
   */
  async release(): Promise<boolean> {
    if (this.observedHolder !== this.identity) return false;
    try {
      return await this.withTimeout((signal) => this.giveUp(signal), this.renewDeadlineMs);
    } catch (err) {
      this.config.logger.info({ err, lease: this.config.lease.description }, 'failed to release lease');
      return false;
    }
  }

  private async giveUp(signal: AbortSignal): Promise<boolean> {
    const existing = await this.config.lease.get(signal);
    if (!existing || existing.spec?.holderIdentity !== this.identity) return false;
    const now = new MicroTime(this.clock.now());
    const spec = { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: existing.spec.leaseTransitions ?? 0 };
    await this.config.lease.update({ ...existing, spec }, signal);
    this.observe('', 'released');
    this.config.logger.info({ lease: this.config.lease.description }, 'released lease');
    return true;
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    const random = this.config.random ?? Math.random;
    this.config.logger.info({ lease: this.config.lease.description }, 'attempting to acquire leader lease');
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew(this.retryPeriodMs)) return true;
      const wait = this.retryPeriodMs * (1 + random() * 1.2);
      if (!(await sleepUnlessAborted(this.clock, wait, signal))) return false;
    }
    return false;
  }

  /** Renews every retry period; returns when a renewal misses the renew deadline or on abort. */
  private async renewLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const deadline = this.clock.now() + this.renewDeadlineMs;
      let renewed = false;
      while (!renewed && !signal.aborted && this.clock.now() < deadline) {
        renewed = await this.tryAcquireOrRenew(deadline - this.clock.now());
        if (!renewed && !(await sleepUnlessAborted(this.clock, this.retryPeriodMs, signal))) return;
      }
      if (!renewed) {
        this.config.logger.info({ lease: this.config.lease.description }, 'failed to renew lease: timed out waiting for the condition');
        return;
      }
      if (!(await sleepUnlessAborted(this.clock, this.retryPeriodMs, signal))) return;
    }
  }

  /** One attempt, bounded by `timeoutMs`; false on any error or when another holder is valid. */
  private async tryAcquireOrRenew(timeoutMs: number): Promise<boolean> {
    try {
      return await this.withTimeout((signal) => this.attempt(signal), timeoutMs);
    } catch (err) {
      this.config.logger.debug({ err, lease: this.config.lease.description }, 'error acquiring or renewing lease');
      return false;
    }
  }

  private async attempt(signal: AbortSignal): Promise<boolean> {
    const now = new MicroTime(this.clock.now());
    if (await this.renewOptimistically(now, signal)) return true;
    signal.throwIfAborted();
    const existing = await this.config.lease.get(signal);
    if (!existing) {
      this.lastWritten = await this.config.lease.create(this.newLease(undefined, now), signal);
      this.observe(this.identity, 'created');
      return true;
    }
    this.observeLease(existing);
    const holder = existing.spec?.holderIdentity ?? '';
    const expired = this.observedTime + this.leaseDurationMs <= this.clock.now();
    if (holder !== '' && holder !== this.identity && !expired) return false;
    const updated = await this.config.lease.update(this.newLease(existing, now), signal);
    this.lastWritten = updated;
    this.observe(this.identity, JSON.stringify(updated.spec ?? {}));
    return true;
  }

  /**
   * client-go's fast path: a leader whose lease is still valid updates the lease it last wrote without
   * reading it first, one request per renewal instead of two; a conflict (someone else wrote it) or any
   * other error falls back to reading it.
   */
  private async renewOptimistically(now: Date, signal: AbortSignal): Promise<boolean> {
    const last = this.lastWritten;
    if (!this.leading || !last || this.observedTime + this.leaseDurationMs <= this.clock.now()) return false;
    try {
      const updated = await this.config.lease.update(this.newLease(last, now), signal);
      this.lastWritten = updated;
      this.observe(this.identity, JSON.stringify(updated.spec ?? {}));
      return true;
    } catch (err) {
      this.config.logger.debug({ err, lease: this.config.lease.description }, 'failed to update lease optimistically, reading it');
      return false;
    }
  }

  private newLease(existing: V1Lease | undefined, now: Date): V1Lease {
    const spec = existing?.spec ?? {};
    const takingOver = (spec.holderIdentity ?? '') !== this.identity;
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { ...existing?.metadata },
      spec: {
        holderIdentity: this.identity,
        leaseDurationSeconds: Math.round(this.leaseDurationMs / 1000),
        acquireTime: takingOver || !spec.acquireTime ? now : spec.acquireTime,
        renewTime: now,
        leaseTransitions: (spec.leaseTransitions ?? 0) + (existing && takingOver ? 1 : 0),
      },
    };
  }

  private observeLease(lease: V1Lease): void {
    const record = JSON.stringify(lease.spec ?? {});
    if (record !== this.observedRecord) this.observe(lease.spec?.holderIdentity ?? '', record);
  }

  private observe(holder: string, record: string): void {
    if (holder !== this.observedHolder && holder !== '') this.config.onNewLeader?.(holder);
    this.observedHolder = holder;
    this.observedRecord = record;
    this.observedTime = this.clock.now();
  }

  /** Runs `work` with a signal that aborts its requests when `timeoutMs` passes first (client-go cancels its context). */
  private withTimeout<T>(work: (signal: AbortSignal) => Promise<T>, timeoutMs: number): Promise<T> {
    const controller = new AbortController();
    return new Promise<T>((resolve, reject) => {
      const timer = this.clock.setTimeout(
        () => {
          const err = new Error('lease request timed out');
          controller.abort(err);
          reject(err);
        },
        Math.max(0, timeoutMs),
      );
      work(controller.signal).then(
        (v) => {
          this.clock.clearTimeout(timer);
          resolve(v);
        },
        (err: unknown) => {
          this.clock.clearTimeout(timer);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }
}
