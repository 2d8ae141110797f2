/**
 * KubeEventRecorder: records Kubernetes Events like client-go's broadcaster + `EventCorrelator`, and
 * logs the same sentence (hcloud's eventlog habit).
 * - Dedup: an identical event (object, type, reason, message) within the cache patches the existing
 *   Event's `count` and `lastTimestamp` instead of creating a new one.
 * - Aggregation: from the 10th distinct message for the same (object, type, reason) within 10 min,
 *   messages become "(combined from similar events): <message>" and dedup into one Event.
 * - Spam filter: per (source, object) a token bucket of 25 burst refilled 1 per 5 min; extra events
 *   are dropped (still logged).
 * - Queue: at most 1 000 events wait to be written (client-go's broadcaster holds as many per sink and
 *   drops the rest); a burst past that, such as a restart's resync of more Services than the client's QPS
 *   can write in time, loses events instead of memory.
 * Writes are serialised in the background; `event()` never throws or blocks. `flush()` waits for them.
 */
import type { CoreV1Event, V1ObjectReference } from '@kubernetes/client-node';
import { realClock, type Clock } from './clock.ts';
import { EventType, type EventRecorder } from './events.ts';
import { isNotFound } from './errors.ts';
import type { KubePort } from './kube-port.ts';
import type { Logger } from './logger.ts';
import { TokenBucket } from './token-bucket.ts';

export interface KubeEventRecorderOptions {
  /** Only its Event writes are used (the sandbox's controllers give just those). */
  readonly kube: Pick<KubePort, 'createEvent' | 'patchEvent'>;
  /** Event source component, e.g. `EventSource.Service`. */
  readonly component: string;
  /** `source.host` / `reportingInstance` (the hostname). */
  readonly host?: string;
  readonly logger: Logger;
  readonly clock?: Clock;
}

const AggregateWindowMs = 10 * 60_000;
const AggregateThreshold = 10;
const SpamBurst = 25;
const SpamQps = 1 / 300;
const MaxCacheEntries = 4096;
export const MaxQueuedEvents = 1000;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Occurrence {
  object: V1ObjectReference;
  type: EventType;
  reason: string;
  message: string;
  objectKey: string;
}

interface Written {
  name: string;
  namespace: string;
  count: number;
}

export class KubeEventRecorder implements EventRecorder {
  private readonly options: KubeEventRecorderOptions;
  private readonly clock: Clock;
  private readonly written = new Map<string, Written>();
  private readonly similar = new Map<string, { since: number; messages: Set<string> }>();
  private readonly spam = new Map<string, TokenBucket>();
  private chain: Promise<void> = Promise.resolve();
  /** Events queued whose write has not started (the one being written is not counted, as in client-go). */
  private waiting = 0;

  constructor(options: KubeEventRecorderOptions) {
    this.options = options;
    this.clock = options.clock ?? realClock;
  }

  event(object: V1ObjectReference, type: EventType, reason: string, message: string): void {
    const log = this.options.logger;
    const fields = { object: { kind: object.kind, namespace: object.namespace, name: object.name }, type, reason };
    if (type === EventType.Warning) log.warn(fields, message);
    else log.info(fields, message);
    // Dropped before the spam filter, so a lost event takes none of its object's budget.
    if (this.waiting >= MaxQueuedEvents) {
      log.error(fields, `event not recorded: ${MaxQueuedEvents} events already wait to be written`);
      return;
    }
    const objectKeyText = `${object.kind ?? ''}/${object.namespace ?? ''}/${object.name ?? ''}/${object.uid ?? ''}`;
    if (!this.allow(objectKeyText)) {
      log.debug(fields, 'event dropped by the spam filter');
      return;
    }
    const finalMessage = this.aggregate(`${objectKeyText}/${type}/${reason}`, message);
    const occurrence: Occurrence = { object, type, reason, message: finalMessage, objectKey: objectKeyText };
    this.waiting += 1;
    // The write starts on a later turn of the event loop, not a microtask: the caller's next API request
    // takes its rate-limiter token first, as it usually does in client-go, whose sink writes from another
    // goroutine (a status patch then goes out before the event that precedes it in the code).
    this.chain = this.chain
      .then(nextTurn)
      .then(() => {
        this.waiting -= 1;
        return this.write(occurrence);
      })
      .catch((err: unknown) => {
        log.warn({ err, ...fields }, 'failed to record event');
      });
  }

  /** Waits until every queued write finished. */
  flush(): Promise<void> {
    return this.chain;
  }

  private allow(objectKey: string): boolean {
    const key = `${this.options.component}/${objectKey}`;
    let bucket = this.spam.get(key);
    if (!bucket) {
      bucket = new TokenBucket(SpamQps, SpamBurst, this.clock);
      this.spam.set(key, bucket);
    }
    return bucket.tryTake();
  }

  private aggregate(groupKey: string, message: string): string {
    const now = this.clock.now();
    let group = this.similar.get(groupKey);
    if (!group || now - group.since > AggregateWindowMs) {
      group = { since: now, messages: new Set() };
      this.similar.set(groupKey, group);
    }
    group.messages.add(message);
    return group.messages.size >= AggregateThreshold ? `(combined from similar events): ${message}` : message;
  }

  private async write(occurrence: Occurrence): Promise<void> {
    const { objectKey, type, reason, message } = occurrence;
    const key = `${objectKey}/${type}/${reason}/${message}`;
    const now = new Date(this.clock.now());
    const existing = this.written.get(key);
    if (existing) {
      try {
        await this.options.kube.patchEvent(existing.namespace, existing.name, { count: existing.count + 1, lastTimestamp: now, message });
        existing.count += 1;
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    const event = this.newEvent(occurrence, now);
    await this.options.kube.createEvent(event);
    this.remember(key, { name: event.metadata.name ?? '', namespace: event.metadata.namespace ?? 'default', count: 1 });
  }

  private remember(key: string, written: Written): void {
    if (this.written.size >= MaxCacheEntries) {
      const oldest = this.written.keys().next().value;
      if (oldest !== undefined) this.written.delete(oldest);
    }
    this.written.set(key, written);
  }

  private newEvent({ object, type, reason, message }: Occurrence, now: Date): CoreV1Event {
    const namespace = object.namespace || 'default';
    const { component, host } = this.options;
    return {
      metadata: { name: `${object.name ?? 'unknown'}.${(BigInt(now.getTime()) * 1_000_000n).toString(16)}`, namespace },
      involvedObject: object,
      reason,
      message,
      type,
      source: { component, host },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      reportingComponent: component,
      reportingInstance: host ?? '',
    };
  }
}
