/**
 * The field rows of the parity tables (docs/reference/<persona>-parity.md), generated from the personas'
 * response schemas: every field a schema declares is a row, in the schema's order, and a persona's parity.ts
 * only says how a field differs from the real API (a note per field path). A note for a field the schema does
 * not have is an error, so a renamed or dropped field cannot leave a stale row behind.
 *
 * Paths are dotted (`public_net.ipv4`), with `[]` for the items of a list (`services[].protocol`). A nested
 * object is one row unless a note names one of its fields, then each of its fields is a row.
 */
import type { z } from 'zod';

export const Parity = { emulated: 'emulated', difference: 'emulated with a difference', none: 'not emulated' } as const;
export type Parity = (typeof Parity)[keyof typeof Parity];

export interface ParityEntry {
  status: Parity;
  note?: string;
}

export interface FieldParity extends ParityEntry {
  field: string;
}

export const emulated: ParityEntry = { status: Parity.emulated };
export const differs = (note: string): ParityEntry => ({ status: Parity.difference, note });
export const notEmulated = (note?: string): ParityEntry => ({ status: Parity.none, ...(note === undefined ? {} : { note }) });

/** How fields differ, by field path (`each` gives several fields one note). */
export type FieldNotes = Readonly<Record<string, ParityEntry>>;

/** The same entry for each of `paths`. */
export const each = (paths: readonly string[], entry: ParityEntry): FieldNotes => Object.fromEntries(paths.map((p) => [p, entry]));

type Def = { type: string; innerType?: z.ZodType; element?: z.ZodType; in?: z.ZodType; shape?: Record<string, z.ZodType>; options?: readonly z.ZodType[] };
const defOf = (s: z.ZodType): Def => (s as unknown as { def: Def }).def;

/** The schema under optional, nullable, default and pipe wrappers. */
function unwrap(s: z.ZodType): z.ZodType {
  const d = defOf(s);
  if (d.innerType !== undefined) return unwrap(d.innerType);
  if (d.type === 'pipe' && d.in !== undefined) return unwrap(d.in);
  return s;
}

type Fields = { path: string; shape: Record<string, z.ZodType> };

/** The fields of a union of objects (a target that is a server, a label selector or an IP): each option's, the first naming a field wins. */
function unionFields(options: readonly z.ZodType[], path: string): Fields | undefined {
  const parts = options.map((o) => fieldsOf(o, path));
  if (parts.length === 0 || parts.some((p) => p === undefined)) return undefined;
  const shape: Record<string, z.ZodType> = {};
  for (const part of parts) for (const [key, field] of Object.entries(part!.shape)) shape[key] ??= field;
  return { path: parts[0]!.path, shape };
}

/** The object fields of a schema (an object, a union of objects, or a list of either with `[]` added to the path), else undefined. */
function fieldsOf(s: z.ZodType, path: string): Fields | undefined {
  const d = defOf(unwrap(s));
  if (d.type === 'object' && d.shape !== undefined) return { path, shape: d.shape };
  if (d.type === 'array' && d.element !== undefined) return fieldsOf(d.element, `${path}[]`);
  if (d.type === 'union' && d.options !== undefined) return unionFields(d.options, path);
  return undefined;
}

/** The field paths of an object schema, expanding a nested object where `expand(path)` says so. */
export function schemaFields(schema: z.ZodType, expand: (path: string) => boolean): string[] {
  const walk = (s: z.ZodType, prefix: string): string[] => {
    const fields = fieldsOf(s, prefix);
    if (fields === undefined) return [];
    return Object.entries(fields.shape).flatMap(([key, child]) => {
      const path = fields.path === '' ? key : `${fields.path}.${key}`;
      const nested = fieldsOf(child, path);
      return nested !== undefined && expand(nested.path) ? walk(child, path) : [path];
    });
  };
  return walk(schema, '');
}

/** The parity rows of one object: each field of its schema with its note (emulated when it has none). */
export function fieldParity(schema: z.ZodType, notes: FieldNotes = {}): FieldParity[] {
  const named = Object.keys(notes);
  const fields = schemaFields(schema, (path) => named.some((n) => n.startsWith(`${path}.`)));
  const stale = named.filter((n) => !fields.includes(n));
  if (stale.length > 0) throw new Error(`parity notes for fields the schema does not have: ${stale.join(', ')} (fields: ${fields.join(', ')})`);
  return fields.map((field) => ({ field, ...(notes[field] ?? emulated) }));
}

/** Every object's rows: `{ name: [schema, notes] }` in the order given. */
export function fieldTables(objects: Readonly<Record<string, readonly [z.ZodType, FieldNotes?]>>): Record<string, readonly FieldParity[]> {
  return Object.fromEntries(Object.entries(objects).map(([name, [schema, notes]]) => [name, fieldParity(schema, notes)]));
}
