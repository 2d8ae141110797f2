// The fuzz suite's generators (fast-check arbitraries): a request value drawn from a route's zod schema (valid
// shapes, numbers at and past each bound, strings at and past each length), mutated at any level into what a
// hostile client sends: prototype keys, wrong types, deep nesting, huge strings, junk addresses. Also hostile path
// ids (malformed %-escapes, prototype names, traversal) and query values. The schema is read, never parsed
// against: a "valid" value is only the starting point.
import fc from 'fast-check';
import type { z } from 'zod';
import { IMAGES, REGIONS, SERVER_TYPES, ZONES } from '../../../simulator/server/resources/catalogue/data.ts';
import { JUNK } from '../invalid-input.gen.ts';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Keys that reach an object's prototype when looked up or assigned on a plain object. */
export const PROTO_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype', 'valueOf', '__defineGetter__'] as const;

/** Path ids no API issued: malformed %-escapes, prototype names, traversal, numbers past every bound. */
export const HOSTILE_IDS: readonly string[] = [
  '%E0%A4%A',
  '%',
  '%zz',
  '%C0%AF',
  '%FF',
  '%u0041',
  '..',
  '%2e%2e',
  '%2F',
  '%00',
  ...PROTO_KEYS,
  '0',
  '-1',
  '1e3',
  '1.5',
  '99999999999999999999',
  'NaN',
  'a1' + '9'.repeat(22),
  'a1' + '0'.repeat(22),
  'srv-00000000',
  'srv-zzzzz',
  'x'.repeat(5000),
  '%F0%9F%92%A9',
  'ünï',
  '00000000-0000-4000-8000-00000000000x',
];

/** A JSON value that fits nowhere, or fits in a way no handler expects. */
const JUNK_VALUES: readonly Json[] = [
  ...JUNK,
  '300.0.0.0/8',
  '10.0.0.0/33',
  'x',
  '::1',
  '::ffff:127.0.0.1',
  '0.0.0.0/0',
  -0,
  2 ** 31,
  2 ** 53 + 1,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  1e-300,
  ...PROTO_KEYS,
  '%E0%A4%A',
  '\u0000',
  '\ud800',
  'a'.repeat(70_000),
];

/** Strings an API takes as they are: the catalogue's names (a request naming them gets past the lookups to the rest). */
const KNOWN_STRINGS: readonly string[] = [
  ...REGIONS.map((r) => r.id),
  ...ZONES.map((z) => z.id),
  ...SERVER_TYPES.map((t) => t.id),
  ...IMAGES.map((i) => i.id),
  'sim-1-a',
  'lb11',
  'tcp',
  'http',
  'TCP',
  '10.20.0.0/24',
  '127.0.0.1',
  'USER_DEFINED',
  'round_robin',
];

/**
 * A placeholder for one of the project's own resource ids, as the API spells them (run.ts puts them in at send
 * time, since they change as the run deletes and makes resources).
 */
export const OWN_ID = /"@own:(\d+)"/g;
const ownId: fc.Arbitrary<Json> = fc.nat(15).map((i) => `@own:${i}`);

/** Junk for a field that holds an address or a CIDR (found by its name: the schema may not say). */
const ADDRESS_JUNK: readonly Json[] = ['300.0.0.0/8', '10.0.0.0/33', 'x', '1.2.3.4/', '10.0.0.0/-1', '::1/64', '999.1.1.1', '10.0.0.256', '', ' 10.0.0.1'];
const ADDRESS_FIELD = /cidr|^ips?$|address|gateway|range|destination|source|^ip_/i;

/**
 * Fields whose name says what they hold: an id (the project's own, most of the time), or a catalogue name. A
 * request that names real things gets past the lookups to the code behind them, where the faults hide.
 */
const NAMED_FIELDS: readonly [RegExp, fc.Arbitrary<Json>][] = [
  [/^id$|_id$|Id$|^(server|network|node|destination|firewall_policy|server_group)$/, ownId],
  [/^(location|region)$/, fc.constantFrom(...REGIONS.map((r) => r.id))],
  [/zone/, fc.constantFrom(...ZONES.map((z) => z.id), 'sim-1-a')],
  [/^(type|size|server_type|plan)$/, fc.constantFrom(...SERVER_TYPES.map((t) => t.id))],
  [/^(os|image)$/, fc.constantFrom(...IMAGES.map((i) => i.id))],
];

/** An object with an own `__proto__` key (a literal would set the prototype instead). */
export function withOwnKey(obj: Record<string, Json>, key: string, value: Json): Record<string, Json> {
  const copy: Record<string, Json> = { ...obj };
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

const pollution: fc.Arbitrary<Json> = fc.constantFrom<Json>({ polluted: 'yes' }, { prototype: { polluted: 'yes' } }, 'polluted', 1, null, []);

/** Any of the hostile values, nested deep sometimes (deeper nesting goes as raw text: run.ts's bodies). */
export const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...JUNK_VALUES) },
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 400 }).map((d) => nest(d)) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...PROTO_KEYS), pollution).map(([k, v]) => withOwnKey({}, k, v)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
);

function nest(depth: number): Json {
  let v: Json = 'deep';
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { d: v };
  return v;
}

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
  entries?: Record<string, string | number>;
  values?: unknown[];
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  items?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  getter?: () => z.ZodType;
  coerce?: boolean;
  format?: string;
  pattern?: RegExp;
  checks?: { _zod: { def: { check: string; minimum?: number; maximum?: number; value?: number; inclusive?: boolean; format?: string; pattern?: RegExp } } }[];
}

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

interface Bounds {
  min?: number;
  max?: number;
  patterns: RegExp[];
  int: boolean;
}

type Check = NonNullable<Def['checks']>[number]['_zod']['def'];
/** What each zod check says about a value's bounds. */
const BOUND: Readonly<Record<string, (b: Bounds, k: Check) => void>> = {
  min_length: (b, k) => void (b.min = k.minimum),
  max_length: (b, k) => void (b.max = k.maximum),
  greater_than: (b, k) => void (b.min = k.value),
  less_than: (b, k) => void (b.max = k.value),
  number_format: (b) => void (b.int = true),
  string_format: (b, k) => void (k.pattern === undefined ? undefined : b.patterns.push(k.pattern)),
};

function boundsOf(d: Def): Bounds {
  const b: Bounds = { patterns: d.pattern === undefined ? [] : [d.pattern], int: false };
  for (const c of d.checks ?? []) BOUND[c._zod.def.check]?.(b, c._zod.def);
  return b;
}

function stringArb(d: Def): fc.Arbitrary<Json> {
  const b = boundsOf(d);
  const lengths = [b.min, b.max, b.max === undefined ? undefined : b.max + 1, b.min === undefined || b.min === 0 ? undefined : b.min - 1].filter(
    (n): n is number => n !== undefined,
  );
  const sized = lengths.map((n) => fc.constant('a'.repeat(Math.min(n, 100_000))));
  const pattern = b.patterns[0];
  const matches = pattern === undefined ? [] : [safeMatching(pattern)].filter((a): a is fc.Arbitrary<string> => a !== undefined);
  return fc.oneof(
    ...matches.map((arbitrary) => ({ weight: 6, arbitrary })),
    { weight: 2, arbitrary: fc.string({ maxLength: b.max ?? 20 }) },
    ...sized.map((arbitrary) => ({ weight: 1, arbitrary })),
    { weight: 3, arbitrary: fc.constantFrom(...KNOWN_STRINGS) },
    { weight: 2, arbitrary: ownId },
  );
}

/** Strings matching a pattern, built once per pattern (building one costs milliseconds; many fields share theirs). */
const matching = new Map<string, fc.Arbitrary<string> | undefined>();
function safeMatching(re: RegExp): fc.Arbitrary<string> | undefined {
  const key = `${re.source}/${re.flags}`;
  if (!matching.has(key)) {
    try {
      matching.set(key, fc.stringMatching(re));
    } catch {
      matching.set(key, undefined);
    }
  }
  return matching.get(key);
}

function numberArb(d: Def): fc.Arbitrary<Json> {
  const b = boundsOf(d);
  const min = b.min ?? -1_000_000;
  const max = b.max ?? 1_000_000;
  const edges = [b.min, b.max, b.min === undefined ? undefined : b.min - 1, b.max === undefined ? undefined : b.max + 1, 0, -1, 2 ** 31, 2 ** 53, 1.5].filter(
    (n): n is number => n !== undefined,
  );
  const inRange = b.int
    ? fc.integer({ min: Math.ceil(Math.max(min, -(2 ** 31))), max: Math.floor(Math.min(max, 2 ** 31)) })
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  const inRangeJson: fc.Arbitrary<Json> = inRange;
  return fc.oneof({ weight: 3, arbitrary: inRangeJson }, { weight: 2, arbitrary: fc.constantFrom<Json>(...edges) });
}

/** A value shaped like `schema` (at depth `depth`), sometimes mutated at this level into a hostile one. */
export function fromSchema(schema: z.ZodType, depth = 0): fc.Arbitrary<Json> {
  const own = shapeOf(schema, depth);
  return fc.oneof({ weight: depth === 0 ? 12 : 9, arbitrary: own }, { weight: 1, arbitrary: hostileValue });
}

type Builder = (d: Def, depth: number, next: (s: z.ZodType) => fc.Arbitrary<Json>) => fc.Arbitrary<Json>;
const inner: Builder = (d, depth) => shapeOf(d.innerType!, depth);
/** The arbitrary of each zod type; a type not here gets any small JSON value. */
const BUILDERS: Readonly<Record<string, Builder>> = {
  string: (d) => stringArb(d),
  number: (d) => numberArb(d),
  int: (d) => numberArb(d),
  bigint: (d) => numberArb(d),
  boolean: () => fc.boolean(),
  null: () => fc.constant(null),
  literal: (d) => fc.constantFrom(...(d.values as Json[])),
  enum: (d) => fc.constantFrom(...(Object.values(d.entries!) as Json[])),
  optional: inner,
  nullable: inner,
  default: inner,
  prefault: inner,
  readonly: inner,
  catch: inner,
  nonoptional: inner,
  pipe: (d, depth) => shapeOf(defOf(d.in!).type === 'transform' ? d.out! : d.in!, depth),
  lazy: (d, depth) => shapeOf(d.getter!(), depth + 1),
  union: (d, depth) => fc.oneof(...d.options!.map((o) => shapeOf(o, depth))),
  intersection: (d, depth) => shapeOf(d.left!, depth),
  array: (d, _depth, next) => fc.array(next(d.element!), { maxLength: 4 }),
  tuple: (d, _depth, next) => fc.tuple(...d.items!.map(next)),
  record: (d, _depth, next) => recordArb(d, next),
  object: (d, _depth, next) => objectArb(d, next),
};

function shapeOf(schema: z.ZodType, depth: number): fc.Arbitrary<Json> {
  const d = defOf(schema);
  if (depth > 8) return fc.constant(null);
  const build = BUILDERS[d.type];
  return build === undefined ? (fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>) : build(d, depth, (s) => fromSchema(s, depth + 1));
}

function recordArb(d: Def, next: (s: z.ZodType) => fc.Arbitrary<Json>): fc.Arbitrary<Json> {
  const key = fc.oneof({ weight: 4, arbitrary: shapeOf(d.keyType!, 0).map(String) }, { weight: 1, arbitrary: fc.constantFrom(...PROTO_KEYS) });
  return fc
    .array(fc.tuple(key, next(d.valueType!)), { maxLength: 4 })
    .map((pairs) => pairs.reduce<Record<string, Json>>((o, [k, v]) => withOwnKey(o, k, v), {}));
}

/** Every field of the shape, each optional one present or not, and sometimes a prototype key beside them. */
function objectArb(d: Def, next: (s: z.ZodType) => fc.Arbitrary<Json>): fc.Arbitrary<Json> {
  const fields = Object.entries(d.shape ?? {});
  const record = Object.fromEntries(fields.map(([k, s]) => [k, fieldArb(k, next(s))]));
  const base = fields.length === 0 ? fc.constant({}) : fc.record(record, { requiredKeys: fields.filter(([, s]) => !isOptional(s)).map(([k]) => k) });
  const extra = fc.oneof(
    { weight: 6, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...PROTO_KEYS, 'unknown_field'), fc.oneof(pollution, hostileValue)) },
  );
  return fc.tuple(base, extra).map(([o, e]) => (e === null ? (o as Record<string, Json>) : withOwnKey(o as Record<string, Json>, e[0], e[1])));
}

function fieldArb(key: string, own: fc.Arbitrary<Json>): fc.Arbitrary<Json> {
  const named = NAMED_FIELDS.find(([re]) => re.test(key))?.[1];
  const shaped = named === undefined ? own : fc.oneof({ weight: 2, arbitrary: named }, { weight: 1, arbitrary: own });
  return ADDRESS_FIELD.test(key) ? addressField(shaped) : shaped;
}

/** An address field: its own shape, or junk that looks like an address (at any depth, in a list or alone). */
const addressField = (own: fc.Arbitrary<Json>): fc.Arbitrary<Json> =>
  fc.oneof(
    { weight: 2, arbitrary: own },
    { weight: 1, arbitrary: fc.constantFrom(...ADDRESS_JUNK) },
    { weight: 1, arbitrary: fc.constantFrom(...ADDRESS_JUNK).map((j) => [j]) },
  );

const isOptional = (s: z.ZodType): boolean =>
  ['optional', 'default', 'prefault'].includes(defOf(s).type) || (s as { isOptional?: () => boolean }).isOptional?.() === true;

/** The keys of an object schema (a route's query), for query strings. */
export function objectKeys(schema: z.ZodType | undefined): string[] {
  if (schema === undefined) return [];
  const d = defOf(schema);
  if (d.type === 'object') return Object.keys(d.shape ?? {});
  if (d.type === 'pipe') return objectKeys(d.in);
  if (['optional', 'default', 'prefault', 'nullable'].includes(d.type)) return objectKeys(d.innerType);
  if (d.type === 'union') return [...new Set(d.options!.flatMap(objectKeys))];
  return [];
}

/** A query string over the route's parameters (values from their schema or hostile), sometimes with prototype names. */
export function queryArb(schema: z.ZodType | undefined): fc.Arbitrary<string> {
  const d = schema === undefined ? undefined : defOf(schema);
  const shape = d?.type === 'object' ? (d.shape ?? {}) : {};
  const names = Object.keys(shape);
  const pair = fc.oneof(
    ...(names.length === 0 ? [] : [{ weight: 4, arbitrary: fc.constantFrom(...names).chain((n) => fc.tuple(fc.constant(n), queryValue(shape[n]!))) }]),
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...PROTO_KEYS, 'unknown', 'page[]'), fc.constantFrom(...PROTO_KEYS, '1', '')) },
  );
  return fc.array(pair, { maxLength: 3 }).map((pairs) => pairs.map(([k, v]) => `${escapeSome(k)}=${escapeSome(v)}`).join('&'));
}

function queryValue(schema: z.ZodType): fc.Arbitrary<string> {
  return fc.oneof(
    // Kept under Node's 16 KiB request head, which Node itself refuses (431) before any API sees the request.
    { weight: 3, arbitrary: fromSchema(schema, 1).map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? '')).slice(0, 2000)) },
    { weight: 2, arbitrary: fc.constantFrom(...PROTO_KEYS) },
    { weight: 1, arbitrary: fc.constantFrom(...PROTO_KEYS.map((k) => `${k}.x`), '%E0%A4%A', '0', '-1', '99999999999', '', 'a in (', '=') },
  );
}

/** Encodes a query part (a lone surrogate as U+FFFD), except a malformed %-escape stays raw (as a hostile client sends it). */
const escapeSome = (s: string): string =>
  s
    .split('%E0%A4%A')
    .map((p) => encodeURIComponent(p.replace(/\p{Cs}/gu, '\ufffd')))
    .join('%E0%A4%A');

/** A linode X-Filter header: JSON filters with prototype keys, operators and nesting (under Node's 16 KiB request head). */
export const filterHeader: fc.Arbitrary<string> = fc
  .oneof(
    fc
      .tuple(
        fc.constantFrom(...PROTO_KEYS, 'label', 'tags', 'id', 'region', '+or', '+and', '+order_by'),
        fromSchema({ _zod: { def: { type: 'unknown' } } } as unknown as z.ZodType),
      )
      .map(([k, v]) => JSON.stringify(withOwnKey({}, k, v))),
    fc.constantFrom('{', '[]', 'null', '{"label":{"+contains":{}}}', '{"+or":[{"__proto__":{"x":1}}]}', '{"constructor":"Object"}', '{"tags":"toString"}'),
    fc.integer({ min: 100, max: 1500 }).map((d) => `${'{"a":'.repeat(d)}1${'}'.repeat(d)}`),
  )
  .map((h) => h.slice(0, 12_000));
