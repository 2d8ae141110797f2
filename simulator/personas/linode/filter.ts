/**
 * Linode's X-Filter header: a JSON object whose keys are fields (a value means equal; for a list field,
 * containing) or operators: `+and`/`+or` over nested filters, `+eq`, `+neq`, `+contains`, `+gt`, `+gte`,
 * `+lt`, `+lte` on one field, and `+order_by`/`+order` to sort. Evaluated over the persona's JSON views.
 */
import { z } from 'zod';
import { own, protoKeyPath } from '../../../lib/keyed.ts';
import { invalidField } from '../../server/errors.ts';

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };
export type Filter = Record<string, Json>;
type Row = Record<string, unknown>;

const FIELD = 'X-Filter';

export const FilterHeader = z
  .string()
  .max(8192)
  .transform((s, ctx): Filter => {
    try {
      const v = JSON.parse(s) as unknown;
      // Field and operator names are looked up as own keys; a `__proto__` one is refused outright, as in a body.
      if (typeof v === 'object' && v !== null && !Array.isArray(v) && protoKeyPath(v) === undefined) return v as Filter;
    } catch {
      // reported below
    }
    ctx.addIssue({ code: 'custom', message: 'must be a JSON object without __proto__ keys' });
    return z.NEVER;
  });

const scalar = (v: unknown): string | number | boolean | null => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : null);

type Scalar = string | number | boolean;
const ordered =
  (f: (a: Scalar, b: Scalar) => boolean) =>
  (actual: unknown, want: Json): boolean => {
    const a = scalar(actual);
    return a !== null && want !== null && typeof want !== 'object' && f(a, want);
  };
const listOf = (actual: unknown): unknown[] => (Array.isArray(actual) ? (actual as unknown[]) : [actual]);

/**
 * Equality; a string sent for a numeric field is read as numbers, comma-separated for any of them: Linode's
 * CCM filters VPC addresses with `{"subnet_id":"101,102"}` (one string of ids), which Linode's API answers.
 */
function equal(x: unknown, want: Json): boolean {
  if (typeof x === 'number' && typeof want === 'string') return want.split(',').some((p) => /^\s*-?\d+\s*$/.test(p) && Number(p) === x);
  return x === want;
}

const OPERATORS: Record<string, (actual: unknown, want: Json) => boolean> = {
  '+eq': (actual, want) => listOf(actual).some((x) => equal(x, want)),
  '+neq': (actual, want) => !listOf(actual).some((x) => equal(x, want)),
  '+contains': (actual, want) => listOf(actual).some((x) => typeof x === 'string' && typeof want === 'string' && x.includes(want)),
  '+gt': ordered((a, b) => a > b),
  '+gte': ordered((a, b) => a >= b),
  '+lt': ordered((a, b) => a < b),
  '+lte': ordered((a, b) => a <= b),
};

function compare(op: string, actual: unknown, want: Json): boolean {
  const f = own(OPERATORS, op);
  if (f === undefined) throw invalidField(FIELD, `unknown operator ${op}`);
  return f(actual, want);
}

function fieldMatches(row: Row, key: string, cond: Json): boolean {
  if (typeof cond !== 'object' || cond === null || Array.isArray(cond)) return compare('+eq', own(row, key), cond);
  return Object.entries(cond).every(([op, want]) => compare(op, own(row, key), want));
}

function nested(v: Json, op: string): Filter[] {
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'object' || x === null || Array.isArray(x))) throw invalidField(FIELD, `${op} takes a list of filters`);
  return v as Filter[];
}

export function matches(row: Row, f: Filter): boolean {
  return Object.entries(f).every(([key, cond]) => {
    if (key === '+order_by' || key === '+order') return true;
    if (key === '+and') return nested(cond, key).every((g) => matches(row, g));
    if (key === '+or') return nested(cond, key).some((g) => matches(row, g));
    if (key.startsWith('+')) throw invalidField(FIELD, `unknown operator ${key}`);
    return fieldMatches(row, key, cond);
  });
}

function sorted<T extends Row>(rows: T[], f: Filter): T[] {
  const by = f['+order_by'];
  if (by === undefined) return rows;
  if (typeof by !== 'string') throw invalidField(FIELD, '+order_by must be a field name');
  const dir = f['+order'] === 'desc' ? -1 : 1;
  const key = (r: T): string | number => {
    const v = scalar(own(r, by));
    return typeof v === 'number' ? v : String(v ?? '');
  };
  return rows.sort((a, b) => (key(a) < key(b) ? -dir : key(a) > key(b) ? dir : 0));
}

export function applyFilter<T extends Row>(rows: readonly T[], f: Filter | undefined): T[] {
  return f === undefined
    ? [...rows]
    : sorted(
        rows.filter((r) => matches(r, f)),
        f,
      );
}
