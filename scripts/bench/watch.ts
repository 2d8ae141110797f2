// A client-node informer with restart on error, and a wait on in-memory state. Timestamps in the
// trackers are taken when an event arrives here, so two timestamps of one object share the watch's lag.
import { ADD, DELETE, ERROR, UPDATE, makeInformer, type KubeConfig, type KubernetesListObject, type KubernetesObject } from '@kubernetes/client-node';

export interface WatchHandlers<T> {
  readonly onUpsert: (obj: T, at: number) => void;
  readonly onDelete: (obj: T, at: number) => void;
}

export async function startWatch<T extends KubernetesObject>(kc: KubeConfig, path: string, list: () => Promise<KubernetesListObject<T>>, h: WatchHandlers<T>): Promise<() => void> {
  const informer = makeInformer<T>(kc, path, list);
  let stopped = false;
  informer.on(ADD, (o) => h.onUpsert(o, Date.now()));
  informer.on(UPDATE, (o) => h.onUpsert(o, Date.now()));
  informer.on(DELETE, (o) => h.onDelete(o, Date.now()));
  informer.on(ERROR, () => {
    if (!stopped) setTimeout(() => void informer.start().catch(() => undefined), 1000).unref();
  });
  await informer.start();
  return () => {
    stopped = true;
    void informer.stop();
  };
}

/** Waits (polling in-memory state, not the API) until `done` holds; throws after `timeoutMs`. */
export async function until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs `fn` over items with at most `limit` in flight. */
export async function pool<T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) await fn(items[i] as T, i);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}
