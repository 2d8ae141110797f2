/**
 * The journal's record of a change (lowdb-store.ts). A change is written as it is, except a put that only
 * appended to an append-only array field: that one is written as the document without the field plus the
 * field's new tail (`put_tail`), and replay rebuilds the array from the one already in the state.
 *
 * Why: a network's routes were journaled whole for every route added, so adding the thousandth route wrote
 * 100 KB and cost simcloud twice the CPU of the first (and the journal reached its compaction size every
 * few dozen routes). With the tail, a route added writes one route.
 */
import { z } from 'zod';
import { COLLECTIONS, applyChange, type AppliedChange, type Change, type CollectionName, type StateDoc, type StoredDoc } from './state.ts';

/**
 * Array fields whose elements are never changed in place: code adds to them with a new array (`[...a, x]`)
 * and removes with `filter`. A removal is journaled whole.
 */
const APPEND_ONLY: Partial<Record<CollectionName, string>> = { networks: 'routes' };

export type JournalChange = Change | { op: 'put_tail'; coll: CollectionName; doc: StoredDoc; field: string; from: number; tail: unknown[] };

const Coll = z.enum(COLLECTIONS as [CollectionName, ...CollectionName[]]);
const Doc = z.looseObject({ id: z.string() });
const Pools = z.object({ server_public: z.string(), lb_vip: z.string(), ip_block: z.string(), private_networks: z.string(), ip_block_size: z.number() });

/** One journal line: the commit's sequence number and its changes (the records' envelope; their fields are the document's). */
export const JournalRecord = z.object({
  seq: z.number().int(),
  changes: z.array(
    z.discriminatedUnion('op', [
      z.object({ op: z.literal('put'), coll: Coll, doc: Doc }),
      z.object({ op: z.literal('del'), coll: Coll, id: z.string() }),
      z.object({ op: z.literal('meta'), next_id: z.number().int().optional(), pools: Pools.optional() }),
      z.object({ op: z.literal('put_tail'), coll: Coll, doc: Doc, field: z.string(), from: z.number().int().min(0), tail: z.array(z.unknown()) }),
    ]),
  ),
});

/**
 * Encodes changes for the journal, remembering which arrays it wrote and at what length: an array changed in
 * place since (the same array, longer or shorter) is written whole, never as a tail of itself.
 */
export class JournalEncoder {
  readonly #written = new WeakMap<readonly unknown[], number>();

  /** The journal form of `change`, read against `state` before the change is applied. */
  encode(state: StateDoc, change: Change): JournalChange {
    if (change.op !== 'put') return change;
    const field = APPEND_ONLY[change.coll];
    const after = field === undefined ? undefined : change.doc[field];
    if (field === undefined || !Array.isArray(after)) return change;
    const previous = (state[change.coll] as Record<string, StoredDoc | undefined>)[change.doc.id]?.[field];
    const grown = Array.isArray(previous) && previous !== after && this.#written.get(previous) === previous.length && startsWith(after, previous);
    this.#written.set(after, after.length);
    if (!grown) return change;
    const { [field]: _whole, ...rest } = change.doc;
    return { op: 'put_tail', coll: change.coll, doc: rest as StoredDoc, field, from: previous.length, tail: after.slice(previous.length) };
  }
}

const isArray = (v: unknown): v is readonly unknown[] => Array.isArray(v);

function startsWith(array: readonly unknown[], prefix: readonly unknown[]): boolean {
  if (array.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (array[i] !== prefix[i]) return false;
  return true;
}

/** Applies one journal record's change during replay. A tail that does not fit the state is a corrupt journal. */
export function replayChange(state: StateDoc, change: JournalChange, seq: number): AppliedChange | null {
  if (change.op !== 'put_tail') return applyChange(state, change);
  const current: unknown = (state[change.coll] as Record<string, StoredDoc | undefined>)[change.doc.id]?.[change.field];
  if (!isArray(current) || current.length !== change.from) {
    const had = isArray(current) ? `${current.length} elements` : 'no such array';
    throw new Error(`journal record ${seq}: ${change.coll}/${change.doc.id}.${change.field} has ${had}, the record extends ${change.from}`);
  }
  return applyChange(state, { op: 'put', coll: change.coll, doc: { ...change.doc, [change.field]: [...current, ...change.tail] } });
}
