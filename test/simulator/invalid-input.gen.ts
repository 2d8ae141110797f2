// A small generator of invalid requests: takes a valid body and its zod schema, and yields variants
// that the schema rejects (wrong types, out-of-range values, missing required fields, unknown fields,
// non-object bodies). The schema is the oracle, so every yielded body must be refused by the server.
import type { z } from 'zod';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export const JUNK: readonly Json[] = [
  null,
  true,
  0,
  -1,
  1.5,
  65536,
  -99999999999,
  1e300,
  '',
  ' ',
  'x'.repeat(300),
  '!!',
  '../../etc',
  '999.999.1.1',
  '10.0.0.0/33',
  '127.0.0.1/8',
  'ünïcödé',
  [],
  [1],
  [null],
  {},
  { a: 1 },
  { '': '' },
];

export const NON_OBJECT_BODIES: readonly string[] = ['null', '[]', '1', '"x"', 'true', '{', '{"a":', '[{}]', 'garbage', '{"a":1}}'];

function paths(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [prefix];
  const entries: [string | number, Json][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  return [prefix, ...entries.flatMap(([k, v]) => paths(v, [...prefix, k]))];
}

function setAt(root: Json, path: (string | number)[], replacement: Json | undefined): Json {
  if (path.length === 0) return replacement ?? null;
  const copy = structuredClone(root) as Record<string | number, Json>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, Json>;
  const last = path.at(-1)!;
  if (replacement === undefined) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else node[last] = replacement;
  return copy;
}

function addUnknown(root: Json, path: (string | number)[]): Json | undefined {
  const copy = structuredClone(root);
  let node = copy as Record<string, Json>;
  for (const key of path) node = node[key] as Record<string, Json>;
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
  node.__unknown_field = 1;
  return copy;
}

/** Every schema-invalid variant of `valid` (deduplicated), as JSON text. */
export function invalidBodies(schema: z.ZodType, valid: Json): string[] {
  const out = new Set<string>();
  const keep = (b: Json | undefined): void => {
    if (b !== undefined && !schema.safeParse(b).success) out.add(JSON.stringify(b));
  };
  for (const p of paths(valid)) {
    for (const junk of JUNK) keep(setAt(valid, p, junk));
    if (p.length > 0) keep(setAt(valid, p, undefined));
    keep(addUnknown(valid, p));
  }
  return [...out];
}

/** Query strings for a list endpoint, keyed by parameter names. */
export function queryVariants(params: readonly string[]): string[] {
  const values = ['0', '-1', 'abc', '1.5', '99999999999', '', 'a in (', '!!!', '=', 'x'.repeat(2000), '%00', 'k=v,', 'desc', 'id:sideways'];
  const out = params.flatMap((p) => values.map((v) => `${encodeURIComponent(p)}=${encodeURIComponent(v)}`));
  out.push('unknown_param=1', 'page=1&page=2', 'per_page[]=1', 'sort=name&sort=id');
  return out;
}
