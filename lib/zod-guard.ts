/**
 * Owns the fast path of validating a decoded JSON value against a zod schema: `parseChecked` first runs a
 * predicate compiled from the schema itself, which allocates nothing and copies nothing, and returns the value
 * as it is when the predicate holds; otherwise it runs zod, which decides and explains.
 *
 * Why: zod builds a new value while it checks one (a payload per field, a copy of every object and array). For
 * a load balancer answer with a resolved target per node that was 2.4 ms per answer at 1 000 nodes under the
 * CCM's --jitless, and the garbage it left was as costly again: most of the CCM's CPU in a Service burst.
 *
 * The contract, tested against zod on mutated values: the predicate holds only when zod would accept the value
 * and return one deep-equal to it (the keys may be in another order). So it refuses what zod would strip (a
 * key the schema does not name), and it runs zod's own check objects (formats, bounds, refinements) on a
 * reused scratch payload, so a check means what it means in zod. A schema with anything that changes a value
 * (transform, default, coercion, catch, readonly, pipe, lazy) gets no predicate: zod alone parses it.
 *
 * It reads zod's internals (`_zod`), which zod may change in any release, so package.json pins zod exactly.
 * Before moving the pin: this file's tests check the contract on the new zod, and
 * simulator/api/client/fast-path.test.ts fails when any answer the client reads leaves the fast path.
 */
import type { z } from 'zod';

type Guard = (value: unknown) => boolean;

/** A compiled predicate, and whether it accepts exactly what zod accepts (needed to try union options in order). */
interface Compiled {
  readonly guard: Guard;
  readonly exact: boolean;
}

/** The parts of zod's internals the compiler reads (zod/v4/core `_zod`), typed narrowly. */
interface Internals {
  readonly def: Def;
  readonly traits: ReadonlySet<string>;
  readonly values?: ReadonlySet<unknown>;
  readonly optin?: string;
  readonly optout?: string;
  readonly propValues?: Record<string, ReadonlySet<unknown>>;
  readonly check?: (payload: Payload) => unknown;
}

interface Def {
  readonly type: string;
  readonly check?: string;
  readonly checks?: readonly Node[];
  readonly coerce?: boolean;
  readonly when?: (payload: Payload) => boolean;
  readonly shape?: Record<string, Node>;
  readonly catchall?: Node;
  readonly element?: Node;
  readonly innerType?: Node;
  readonly options?: readonly Node[];
  readonly discriminator?: string;
  readonly unionFallback?: boolean;
  readonly inclusive?: boolean;
  readonly keyType?: Node;
  readonly valueType?: Node;
  readonly mode?: string;
}

interface Node {
  readonly _zod: Internals;
}

interface Payload {
  value: unknown;
  issues: unknown[];
}

/** Not compilable: zod parses such a schema alone. */
const NONE = null;

const compiled = new WeakMap<object, Compiled | typeof NONE>();

/** A plain object, as JSON.parse makes: zod's copy of anything else would be plain, so not equal to it. */
function isPlainRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * zod's `safeParse`, through the compiled predicate when the schema has one: on success the data is the value
 * itself (equal to what zod would have built); on failure zod's own result, with its issues.
 */
export function parseChecked<S extends z.ZodType>(schema: S, value: unknown): z.ZodSafeParseResult<z.output<S>> {
  const c = compile(schema as unknown as Node);
  if (c !== NONE && c.guard(value)) return { success: true, data: value as z.output<S> };
  return schema.safeParse(value);
}

/** Whether `schema` has a compiled predicate (for tests and docs: which answers take the fast path). */
export function hasGuard(schema: z.ZodType): boolean {
  return compile(schema as unknown as Node) !== NONE;
}

/** The compiled predicate alone (tests compare it with zod). */
export function guardOf(schema: z.ZodType): Guard | undefined {
  return compile(schema as unknown as Node)?.guard;
}

function compile(node: Node): Compiled | typeof NONE {
  const known = compiled.get(node);
  if (known !== undefined) return known;
  // A schema that refers to itself is only reachable through z.lazy, which is not compiled: no cycle here.
  const result = withChecks(node, compileType(node));
  compiled.set(node, result);
  return result;
}

/** The node's own checks (a format is its own check), run after its type test as zod runs them. */
function withChecks(node: Node, base: Compiled | typeof NONE): Compiled | typeof NONE {
  if (base === NONE) return NONE;
  const z = node._zod;
  const checks = [...(z.traits.has('$ZodCheck') ? [node] : []), ...(z.def.checks ?? [])];
  if (checks.length === 0) return base;
  // An overwrite check (trim, toLowerCase, ...) changes the value: zod must build the result.
  if (checks.some((c) => c._zod.def.check === 'overwrite' || typeof c._zod.check !== 'function')) return NONE;
  const run = checks.map((c) => ({ check: c._zod.check as (p: Payload) => unknown, when: c._zod.def.when }));
  const inner = base.guard;
  // One payload per node, reused: checks read `value` and push to `issues`, synchronously; a node cannot be
  // re-entered while its checks run (that takes z.lazy, which is not compiled).
  const scratch: Payload = { value: undefined, issues: [] };
  const n = run.length;
  const guard: Guard = (v) => {
    if (!inner(v)) return false;
    scratch.value = v;
    // Indexed loops: the CCM runs --jitless, where an iterator costs more than the check it drives.
    for (let i = 0; i < n; i++) {
      const c = run[i]!;
      if (c.when !== undefined && !c.when(scratch)) continue;
      // An asynchronous check answers a promise: zod decides (and rejects it in a synchronous parse).
      if (c.check(scratch) instanceof Promise || scratch.issues.length > 0) {
        scratch.value = undefined;
        scratch.issues.length = 0;
        return false;
      }
    }
    scratch.value = undefined;
    return true;
  };
  return { guard, exact: base.exact };
}

/** Types whose test is one `typeof` (a coercing one changes its value: zod decides). */
const PRIMITIVES: Readonly<Record<string, Guard>> = {
  string: (v) => typeof v === 'string',
  // zod's number refuses NaN and the infinities.
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
  unknown: () => true,
  any: () => true,
};

/** Types built of others; any type not named here (transform, pipe, default, lazy, ...) is left to zod. */
const COMPOSITES: Readonly<Record<string, (node: Node) => Compiled | typeof NONE>> = {
  enum: compileValues,
  literal: compileValues,
  nullable: (node) => wrap(node._zod.def.innerType, (inner) => (v) => v === null || inner(v)),
  optional: compileOptional,
  array: (node) =>
    wrap(node._zod.def.element, (element) => (v) => {
      if (!Array.isArray(v)) return false;
      for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
      return true;
    }),
  object: (node) => compileObject(node._zod.def),
  record: (node) => compileRecord(node._zod.def),
  union: (node) => (node._zod.traits.has('$ZodDiscriminatedUnion') ? compileDiscriminated(node._zod.def) : compileUnion(node._zod.def)),
};

function compileType(node: Node): Compiled | typeof NONE {
  const def = node._zod.def;
  const primitive = PRIMITIVES[def.type];
  if (primitive) return def.coerce ? NONE : { guard: primitive, exact: true };
  return COMPOSITES[def.type]?.(node) ?? NONE;
}

function compileValues(node: Node): Compiled | typeof NONE {
  const values = node._zod.values;
  return values ? { guard: (v) => values.has(v), exact: true } : NONE;
}

function compileOptional(node: Node): Compiled | typeof NONE {
  const inner = node._zod.def.innerType;
  // exactOptional does not accept undefined itself, and a defaulted inner type substitutes a value.
  if (node._zod.traits.has('$ZodExactOptional') || inner?._zod.optin === 'defaulted') return NONE;
  return wrap(inner, (g) => (v) => v === undefined || g(v));
}

function wrap(inner: Node | undefined, make: (inner: Guard) => Guard): Compiled | typeof NONE {
  const c = inner && compile(inner);
  return c ? { guard: make(c.guard), exact: c.exact } : NONE;
}

/**
 * An object: every key must be one the shape names, and every field it requires present, as zod would strip
 * (or, strict, refuse) any other key and report a missing one. The order of the keys is the sender's: zod's
 * copy would list them in the shape's order, which nothing here reads (JSON's objects are unordered).
 */
function compileObject(def: Def): Compiled | typeof NONE {
  const shape = def.shape;
  if (!shape) return NONE;
  // A catchall other than `never` (strict) keeps unknown keys: zod decides.
  if (def.catchall !== undefined && def.catchall._zod.def.type !== 'never') return NONE;
  const keys = Object.keys(shape);
  // zod never copies a `__proto__` key: such a shape is left to it.
  if (keys.includes('__proto__')) return NONE;
  const fields: { key: string; guard: Guard; required: boolean }[] = [];
  const index = new Map<string, number>();
  for (const key of keys) {
    const field = shape[key] as Node;
    const c = compile(field);
    if (c === NONE) return NONE;
    index.set(key, fields.length);
    // zod leaves an absent key out only when the field is optional both ways; any other absent key is an issue.
    fields.push({ key, guard: c.guard, required: !(field._zod.optin === 'optional' && field._zod.optout === 'optional') });
  }
  const n = fields.length;
  const required = fields.filter((f) => f.required).length;
  const guard: Guard = (v) => {
    if (!isPlainRecord(v)) return false;
    let position = 0;
    let present = 0;
    for (const key in v) {
      // Most senders write the shape's order: try the next field before the lookup.
      const i = position < n && fields[position]!.key === key ? position : index.get(key);
      // A key the shape does not name: zod's result would lack it.
      if (i === undefined) return false;
      const field = fields[i]!;
      if (!field.guard(v[key])) return false;
      if (field.required) present++;
      position = i + 1;
    }
    return present === required;
  };
  // Stripping makes it refuse values zod accepts: not exact.
  return { guard, exact: false };
}

/** A record keyed by a plain string schema (an enumerated key type makes zod check for every key: zod decides). */
function compileRecord(def: Def): Compiled | typeof NONE {
  if (!def.keyType || !def.valueType || def.keyType._zod.values !== undefined || def.mode === 'loose') return NONE;
  const key = compile(def.keyType);
  const value = compile(def.valueType);
  if (key === NONE || value === NONE) return NONE;
  const guard: Guard = (v) => {
    if (!isPlainRecord(v)) return false;
    for (const k in v) {
      if (k === '__proto__' || !key.guard(k) || !value.guard(v[k])) return false;
    }
    return true;
  };
  return { guard, exact: false };
}

/** A discriminated union: the option named by the discriminator's value decides, as in zod. */
function compileDiscriminated(def: Def): Compiled | typeof NONE {
  const disc = def.discriminator;
  if (disc === undefined || def.unionFallback || !def.options) return NONE;
  const byValue = optionsByValue(def.options, disc);
  if (byValue === NONE) return NONE;
  const guard: Guard = (v) => isPlainRecord(v) && (byValue.get(v[disc])?.(v) ?? false);
  return { guard, exact: false };
}

/** Each discriminator value's option; none when a value is shared, absent or an option is not compilable. */
function optionsByValue(options: readonly Node[], disc: string): Map<unknown, Guard> | typeof NONE {
  const byValue = new Map<unknown, Guard>();
  for (const option of options) {
    const values = option._zod.propValues?.[disc];
    const c = compile(option);
    if (!values || c === NONE) return NONE;
    for (const value of values) {
      if (value === undefined || byValue.has(value)) return NONE;
      byValue.set(value, c.guard);
    }
  }
  return byValue;
}

/**
 * A plain union takes the first option zod accepts, so only options accepting exactly what zod does can be
 * tried in order; an exclusive union (exactly one option) is left to zod.
 */
function compileUnion(def: Def): Compiled | typeof NONE {
  if (!def.options || def.inclusive === false) return NONE;
  const options = def.options.map(compile);
  if (options.some((o) => o === NONE || !o.exact)) return NONE;
  const guards = options.map((o) => (o as Compiled).guard);
  return { guard: (v) => guards.some((g) => g(v)), exact: true };
}
