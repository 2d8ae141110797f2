/**
 * SupervisedInformer: a `SharedInformer` over a ListWatch session source (the CCM's `ListWatch`, or
 * client-node's `makeInformer` in the sandbox's tools) that adds what a single session lacks:
 * - restart after `error` with capped exponential backoff (1 s → 30 s, reset after a healthy session);
 * - relist when nothing (no event, no watch reconnect) arrived for `silenceLimitMs`;
 * - `(old, new)` on update from an own last-seen map; a relist after a restart reports vanished
 *   objects as deletes and known ones as updates;
 * - per-handler periodic resync delivering `onUpdate(obj, obj)`;
 * - `hasSynced`/`waitForSync` and a cache (`get`/`list`) that survives restarts.
 *
 * Each session uses a fresh ListWatch (a fresh list), so a restart always sees the full state.
 * Cached objects carry no `metadata.managedFields` (upstream's controller managers trim them with an
 * informer transform: no controller reads them, and they are a large share of a Node's size).
 */
import type { Informer, KubernetesObject, V1Node, V1Service } from '@kubernetes/client-node';
import type { KubeClient } from './api-client.ts';
import { ListWatch } from './list-watch.ts';
import { realClock, sleepUnlessAborted, type Clock, type TimerHandle } from './clock.ts';
import { objectKey } from './keys.ts';
import type { Logger } from './logger.ts';
import type { EventHandlers, SharedInformer } from './shared-informer.ts';

/** The part of a ListWatch session the supervisor drives (client-node's `Informer` has the same shape). */
export type ListWatchSource<T extends KubernetesObject> = Pick<Informer<T>, 'on' | 'start' | 'stop'>;

export interface SupervisedInformerOptions<T extends KubernetesObject> {
  /** For logs, e.g. `nodes`. */
  readonly name: string;
  /** Builds a fresh (not started) ListWatch for each session. */
  readonly makeListWatch: () => ListWatchSource<T>;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** Restart backoff (default 1 s doubling to 30 s). */
  readonly backoffInitialMs?: number;
  readonly backoffMaxMs?: number;
  /** Relist when silent this long (default 5 min; the CCM's watch sees a bookmark about every minute, client-node's reconnects every ~30 s). */
  readonly silenceLimitMs?: number;
}

type SessionEnd = 'error' | 'silent' | 'aborted';

interface HandlerEntry<T> {
  readonly handlers: EventHandlers<T>;
  readonly resyncPeriodMs: number;
  timer?: TimerHandle;
}

export class SupervisedInformer<T extends KubernetesObject> implements SharedInformer<T> {
  private readonly options: SupervisedInformerOptions<T>;
  private readonly clock: Clock;
  private readonly lastSeen = new Map<string, T>();
  private readonly entries: Array<HandlerEntry<T>> = [];
  private readonly syncWaiters: Array<() => void> = [];
  private synced = false;
  private lastActivity = 0;
  private stopped = false;

  constructor(options: SupervisedInformerOptions<T>) {
    this.options = options;
    this.clock = options.clock ?? realClock;
  }

  addEventHandler(handlers: EventHandlers<T>, resyncPeriodMs = 0): void {
    const entry: HandlerEntry<T> = { handlers, resyncPeriodMs };
    this.entries.push(entry);
    for (const obj of this.lastSeen.values()) this.dispatch(entry, (h) => h.onAdd?.(obj));
    if (this.synced) this.scheduleResync(entry);
  }

  get(key: string): T | undefined {
    return this.lastSeen.get(key);
  }

  list(): T[] {
    return [...this.lastSeen.values()];
  }

  hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(signal: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = (): void => resolve(false);
      signal.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      });
    });
  }

  /** Supervises sessions until `signal` aborts. Resolves when stopped. */
  async run(signal: AbortSignal): Promise<void> {
    const { backoffInitialMs = 1_000, backoffMaxMs = 30_000, logger, name } = this.options;
    let delay = backoffInitialMs;
    while (!signal.aborted) {
      const started = this.clock.now();
      const end = await this.runSession(signal);
      if (end === 'aborted') break;
      if (this.clock.now() - started > backoffMaxMs) delay = backoffInitialMs;
      logger.warn({ informer: name, reason: end, delayMs: delay }, `informer ${name} ${end === 'silent' ? 'silent too long' : 'failed'}, relisting`);
      if (!(await sleepUnlessAborted(this.clock, delay, signal))) break;
      delay = Math.min(delay * 2, backoffMaxMs);
    }
    this.stopped = true;
    for (const entry of this.entries) if (entry.timer) this.clock.clearTimeout(entry.timer);
  }

  private runSession(signal: AbortSignal): Promise<SessionEnd> {
    const lw = this.options.makeListWatch();
    const seen = new Set<string>();
    let finish: (end: SessionEnd) => void = () => undefined;
    const ended = new Promise<SessionEnd>((resolve) => (finish = resolve));
    let done = false;
    const end = (why: SessionEnd): void => {
      if (!done) finish(why);
      done = true;
    };
    this.lastActivity = this.clock.now();
    lw.on('add', (obj) => !done && this.upsert(obj, seen));
    lw.on('update', (obj) => !done && this.upsert(obj, seen));
    lw.on('delete', (obj) => !done && this.remove(obj));
    lw.on('connect', () => this.touch());
    lw.on('error', (err?: unknown) => {
      this.options.logger.debug({ err, informer: this.options.name }, 'list/watch error');
      end('error');
    });
    const onAbort = (): void => end('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    const watchdog = this.watchSilence(() => end('silent'));
    lw.start().then(
      () => !done && this.markSynced(seen),
      () => end('error'),
    );
    return ended.finally(() => {
      signal.removeEventListener('abort', onAbort);
      watchdog.stop();
      void lw.stop();
    });
  }

  private watchSilence(onSilent: () => void): { stop(): void } {
    const limit = this.options.silenceLimitMs ?? 5 * 60_000;
    let handle: TimerHandle | undefined;
    const check = (): void => {
      const idle = this.clock.now() - this.lastActivity;
      if (idle >= limit) {
        onSilent();
        return;
      }
      handle = this.clock.setTimeout(check, limit - idle);
    };
    handle = this.clock.setTimeout(check, limit);
    return { stop: () => handle && this.clock.clearTimeout(handle) };
  }

  private touch(): void {
    this.lastActivity = this.clock.now();
  }

  private upsert(obj: T, seen: Set<string>): void {
    this.touch();
    trimManagedFields(obj);
    const key = objectKey(obj);
    seen.add(key);
    const old = this.lastSeen.get(key);
    this.lastSeen.set(key, obj);
    for (const entry of this.entries) {
      this.dispatch(entry, (h) => (old ? h.onUpdate?.(old, obj) : h.onAdd?.(obj)));
    }
  }

  private remove(obj: T): void {
    this.touch();
    const key = objectKey(obj);
    const old = this.lastSeen.get(key) ?? obj;
    this.lastSeen.delete(key);
    for (const entry of this.entries) this.dispatch(entry, (h) => h.onDelete?.(old));
  }

  /** After a fresh list: objects not listed vanished while disconnected. */
  private markSynced(listed: Set<string>): void {
    for (const [key, obj] of [...this.lastSeen]) if (!listed.has(key)) this.remove(obj);
    if (this.synced) return;
    this.synced = true;
    for (const resolve of this.syncWaiters.splice(0)) resolve();
    for (const entry of this.entries) this.scheduleResync(entry);
  }

  private scheduleResync(entry: HandlerEntry<T>): void {
    if (entry.resyncPeriodMs <= 0 || this.stopped) return;
    entry.timer = this.clock.setTimeout(() => {
      for (const obj of this.lastSeen.values()) this.dispatch(entry, (h) => h.onUpdate?.(obj, obj));
      this.scheduleResync(entry);
    }, entry.resyncPeriodMs);
  }

  private dispatch(entry: HandlerEntry<T>, call: (h: EventHandlers<T>) => void): void {
    try {
      call(entry.handlers);
    } catch (err) {
      this.options.logger.error({ err, informer: this.options.name }, 'event handler failed');
    }
  }
}

/** Options shared by the resource factories. */
export interface InformerFactoryOptions {
  /** The (rate-limited) client the lists and watches go through (upstream: the shared informer factory's). */
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly silenceLimitMs?: number;
}

function factory<T extends KubernetesObject>(name: string, path: string, options: InformerFactoryOptions): SupervisedInformer<T> {
  const { client, logger, clock, silenceLimitMs } = options;
  // Each session lists from where the last one got to (the first from the apiserver's cache), as client-go's Reflector relists.
  let last: ListWatch<T> | undefined;
  const makeListWatch = (): ListWatch<T> => (last = new ListWatch<T>({ path, client, resourceVersion: last?.resourceVersion ?? '0' }));
  return new SupervisedInformer<T>({ name, makeListWatch, logger, clock, silenceLimitMs });
}

/** Informer over `/api/v1/nodes`. */
export function nodeInformer(options: InformerFactoryOptions): SupervisedInformer<V1Node> {
  return factory<V1Node>('nodes', '/api/v1/nodes', options);
}

/** Informer over `/api/v1/services` (all namespaces). */
export function serviceInformer(options: InformerFactoryOptions): SupervisedInformer<V1Service> {
  return factory<V1Service>('services', '/api/v1/services', options);
}

/** Drops `metadata.managedFields` in place (the ListWatch's own cache holds the same object). */
export function trimManagedFields(obj: KubernetesObject): void {
  if (obj.metadata?.managedFields !== undefined) delete obj.metadata.managedFields;
}
