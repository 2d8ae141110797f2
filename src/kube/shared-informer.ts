/**
 * The informer port the controllers use (client-go's `SharedIndexInformer` + lister, reduced to what
 * the CCM needs). `SupervisedInformer` (informer.ts) implements it over client-node; `MemoryInformer`
 * implements it in memory for controller unit tests.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey } from './keys.ts';

/** Handlers get `(old, new)` on update; a periodic resync delivers `onUpdate(obj, obj)`. */
export interface EventHandlers<T> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

export interface SharedInformer<T> {
  /**
   * Registers handlers. `resyncPeriodMs` (per handler, like client-go's
   * `AddEventHandlerWithResyncPeriod`) delivers `onUpdate(obj, obj)` for every cached object that often.
   */
  addEventHandler(handlers: EventHandlers<T>, resyncPeriodMs?: number): void;
  /** Cached object by key (`namespace/name` or `name`). */
  get(key: string): T | undefined;
  /** Every cached object (order unspecified, like informer listers). */
  list(): T[];
  hasSynced(): boolean;
  /** Resolves true once synced, false if `signal` aborts first. */
  waitForSync(signal: AbortSignal): Promise<boolean>;
}

/** An in-memory informer for tests: `upsert`/`remove` update the cache and fire the handlers. */
export class MemoryInformer<T extends KubernetesObject> implements SharedInformer<T> {
  private readonly objects = new Map<string, T>();
  private readonly handlers: Array<EventHandlers<T>> = [];
  synced = true;

  constructor(initial: readonly T[] = []) {
    for (const obj of initial) this.objects.set(objectKey(obj), obj);
  }
  addEventHandler(handlers: EventHandlers<T>, _resyncPeriodMs?: number): void {
    this.handlers.push(handlers);
  }
  get(key: string): T | undefined {
    return this.objects.get(key);
  }
  list(): T[] {
    return [...this.objects.values()];
  }
  hasSynced(): boolean {
    return this.synced;
  }
  waitForSync(_signal: AbortSignal): Promise<boolean> {
    return Promise.resolve(this.synced);
  }
  /** Stores `obj` and fires add or update(old, new). */
  upsert(obj: T): void {
    const key = objectKey(obj);
    const old = this.objects.get(key);
    this.objects.set(key, obj);
    for (const h of this.handlers) {
      if (old) h.onUpdate?.(old, obj);
      else h.onAdd?.(obj);
    }
  }
  /** Stores `obj` without firing handlers (an apiserver write the watch has not delivered yet). */
  set(obj: T): void {
    this.objects.set(objectKey(obj), obj);
  }
  /** Removes the object and fires delete. */
  remove(key: string): void {
    const old = this.objects.get(key);
    if (!old) return;
    this.objects.delete(key);
    for (const h of this.handlers) h.onDelete?.(old);
  }
  /** Fires update(obj, obj) for every object, like a periodic resync. */
  resync(): void {
    for (const obj of this.objects.values()) for (const h of this.handlers) h.onUpdate?.(obj, obj);
  }
}
