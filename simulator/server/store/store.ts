/**
 * The Store: typed collections in memory, changed only through `commit`, which applies a list of
 * changes at once (synchronously, so a service's checks and its commit see the same state) and
 * resolves when the changes are durable. Only `store/` knows about files and lowdb.
 */
import type { AppliedChange, Change, CollectionName, Collections, StateDoc } from './state.ts';

export interface StoreStats {
  kind: 'file' | 'memory';
  path: string | null;
  /** Commits acknowledged. */
  writes: number;
  /** Journal flushes and snapshot writes. */
  file_writes: number;
}

export type ChangeListener = (changes: readonly AppliedChange[]) => void;

export interface Store {
  /** The live document. Read it freely; never mutate it. */
  readonly state: StateDoc;
  /**
   * Every record of a collection, in insertion order. Use this, not Object.values(state[coll]):
   * enumerating a 10 000-key object costs milliseconds, this index microseconds.
   */
  all<C extends CollectionName>(coll: C): Collections[C][];
  /** Applies `changes` now; resolves once they survive a crash. */
  commit(changes: Change[]): Promise<void>;
  /** Replaces the whole document (reset, snapshot load, seed). */
  replace(doc: StateDoc): Promise<void>;
  onChange(listener: ChangeListener): () => void;
  stats(): StoreStats;
  close(): Promise<void>;
}
