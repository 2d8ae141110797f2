/**
 * How many run at once, or when each starts: `mapWithConcurrency` is a concurrency limit (upstream's
 * `workqueue.ParallelizeUntil`): `fn` runs over `items` with at most `limit` in flight, each worker taking the
 * next item when it is done; results keep the items' order. A rejection stops the workers from taking new
 * items and is rethrown.
 */
export async function mapWithConcurrency<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < items.length; index = next++) results[index] = await fn(items[index] as T, index);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

/**
 * An arrival schedule: item `i` starts `i / perSecond` seconds after the call, whatever the earlier ones are
 * still doing (no bound on concurrency); results keep the items' order. A rejection is rethrown at once, and
 * the items not started yet never start.
 */
export async function mapAtRate<T, R>(items: readonly T[], perSecond: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  if (!(perSecond > 0)) throw new Error(`mapAtRate: perSecond must be above 0, got ${perSecond}`);
  const start = Date.now();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  try {
    return await Promise.all(
      items.map(async (item, index) => {
        const wait = start + (index * 1000) / perSecond - Date.now();
        if (wait > 0) await new Promise<void>((resolve) => timers.add(setTimeout(resolve, wait)));
        return fn(item, index);
      }),
    );
  } finally {
    for (const timer of timers) clearTimeout(timer);
  }
}
