// A client-node informer with restart on error. Timestamps in the
// trackers are taken when an event arrives here, so two timestamps of one object share the watch's lag.
import { ADD, DELETE, ERROR, UPDATE, makeInformer, type KubeConfig, type KubernetesListObject, type KubernetesObject } from '@kubernetes/client-node';

export interface WatchHandlers<T> {
  readonly onUpsert: (obj: T, at: number) => void;
  readonly onDelete: (obj: T, at: number) => void;
}

export async function startWatch<T extends KubernetesObject>(
  kc: KubeConfig,
  path: string,
  list: () => Promise<KubernetesListObject<T>>,
  h: WatchHandlers<T>,
): Promise<() => void> {
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
