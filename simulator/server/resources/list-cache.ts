/**
 * Filtered, sorted list results per (collection, project, query), dropped as soon as that collection
 * changes. Repeated lists (a CCM listing all servers every few seconds, the bench paging) then cost a
 * slice instead of a pass over every record.
 */
import type { CollectionName } from '../store/state.ts';
import type { Store } from '../store/store.ts';

const MAX_ENTRIES_PER_COLLECTION = 64;

export class ListCache {
  readonly #byColl = new Map<CollectionName, Map<string, unknown[]>>();

  constructor(store: Store) {
    store.onChange((applied) => {
      if (applied.length === 0) this.#byColl.clear();
      for (const c of applied) this.#byColl.delete(c.coll);
    });
  }

  get<T>(coll: CollectionName, key: string, compute: () => T[]): T[] {
    let entries = this.#byColl.get(coll);
    if (entries === undefined) this.#byColl.set(coll, (entries = new Map<string, unknown[]>()));
    const hit = entries.get(key);
    if (hit !== undefined) return hit as T[];
    const value = compute();
    if (entries.size >= MAX_ENTRIES_PER_COLLECTION) entries.delete(entries.keys().next().value!);
    entries.set(key, value);
    return value;
  }
}
