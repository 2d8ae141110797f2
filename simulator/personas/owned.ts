/**
 * Looking up the caller's record behind an id a persona showed, for personas whose ids are strings of their
 * own (Brightbox's `srv-xxxxx`, phoenixNAP's 24 digits): each gives its table of collections (the simcloud id
 * prefix and what its messages call the resource) and how its ids map to simcloud's.
 */
import type { Caller, Sim } from '../server/context.ts';
import { notFound } from '../server/errors.ts';
import { findOwned } from '../server/resources/common.ts';
import type { Collections } from '../server/store/state.ts';

export type OwnedTable = { readonly [C in keyof Collections]?: readonly [prefix: string, what: string] };

/** The caller's record behind an id in a path (or a body's `field`); else 404 naming the id as given. */
export type OwnedBy<T extends OwnedTable> = <C extends keyof T & keyof Collections>(
  sim: Sim,
  caller: Caller,
  coll: C,
  ref: string | { id: string; field: string },
) => Collections[C];

export function ownedResolver<T extends OwnedTable>(table: T, simIdOf: (prefix: string, id: string) => string): OwnedBy<T> {
  return (sim, caller, coll, ref) => {
    const [prefix, what] = table[coll] as readonly [string, string];
    const { id, field } = typeof ref === 'string' ? { id: ref, field: undefined } : ref;
    const rec = findOwned(sim, caller, coll, simIdOf(prefix, id));
    if (rec === undefined) throw notFound(what, id, field);
    return rec;
  };
}
