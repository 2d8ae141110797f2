import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { guardOf, hasGuard, parseChecked } from './zod-guard.ts';

const Id = z.string().regex(/^[a-z]{2,5}-[A-Za-z0-9]{1,40}$/);
const Port = z.number().int().min(1).max(65535);
const Target = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('server'), server_id: Id }),
  z.strictObject({ kind: z.literal('ip'), ip: z.ipv4() }),
]);
const Thing = z.object({
  id: Id,
  name: z.string().min(1).max(10),
  labels: z.record(z.string().min(1), z.string()),
  status: z.enum(['active', 'error']),
  zone: z.string().nullable(),
  port: Port.nullable(),
  note: z.string().optional(),
  v6: z.ipv6(),
  created: z.iso.datetime(),
  cidrs: z.array(z.cidrv4()).max(3),
  targets: z.array(Target),
  flag: z.boolean(),
  mixed: z.union([z.string(), z.number()]),
  anything: z.unknown(),
  nested: z.object({ a: z.number(), b: z.array(z.object({ c: z.literal(1) })) }),
  even: z.number().refine((n) => n % 2 === 0),
});
const valid = {
  id: 'srv-0a1b',
  name: 'web',
  labels: { app: 'web', tier: '' },
  status: 'active',
  zone: null,
  port: 80,
  note: 'hi',
  v6: '2001:db8::1',
  created: '2026-01-01T00:00:00Z',
  cidrs: ['10.0.0.0/8'],
  targets: [
    { kind: 'server', server_id: 'srv-1' },
    { kind: 'ip', ip: '10.1.2.3' },
  ],
  flag: true,
  mixed: 3,
  anything: { x: [1] },
  nested: { a: 1.5, b: [{ c: 1 }, { c: 1 }] },
  even: 4,
};

/** A small seeded PRNG: the mutations are the same on every run. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const POOL: unknown[] = [
  null,
  0,
  1,
  -1,
  1.5,
  2,
  65536,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  '',
  'a',
  'srv-2',
  'srv-!',
  'error',
  '10.0.0.1',
  '10.0.0.256',
  '::1',
  '::@1\\',
  '10.0.0.0/8',
  '10.0.0.0/33',
  '2026-01-01T00:00:00Z',
  '2026-13-01T00:00:00Z',
  'a-very-long-name',
  true,
  false,
  [],
  {},
  { kind: 'server', server_id: 'srv-2' },
  { kind: 'ip', ip: '1.2.3.4' },
  { kind: 'ip', ip: '1.2.3' },
  { kind: 'x' },
  { c: 1 },
  { c: 2 },
];

type Container = Record<string, unknown> | unknown[];

/** Every object or array inside `v`, with `v` itself. */
function containers(v: unknown, out: Container[] = []): Container[] {
  if (v !== null && typeof v === 'object') {
    out.push(v as Container);
    for (const child of Object.values(v)) containers(child, out);
  }
  return out;
}

/** One random change somewhere in `root`: a value replaced, a key removed or added, keys reordered, an element added or removed. */
function mutate(root: unknown, rnd: () => number): void {
  const all = containers(root);
  const target = all[Math.floor(rnd() * all.length)]!;
  const pick = (): unknown => structuredClone(POOL[Math.floor(rnd() * POOL.length)]);
  if (Array.isArray(target)) mutateArray(target, rnd, pick);
  else mutateObject(target, rnd, pick);
}

function mutateArray(target: unknown[], rnd: () => number, pick: () => unknown): void {
  const op = rnd();
  const at = Math.floor(rnd() * target.length);
  if (target.length === 0) target.push(pick());
  else if (op < 0.3) target.splice(at, 1);
  else if (op < 0.6) target.push(structuredClone(target[0]));
  else target[at] = pick();
}

function mutateObject(target: Record<string, unknown>, rnd: () => number, pick: () => unknown): void {
  const keys = Object.keys(target);
  const op = rnd();
  const key = keys[Math.floor(rnd() * keys.length)];
  if (op < 0.6 && key !== undefined) target[key] = pick();
  else if (op < 0.75 && key !== undefined) delete target[key];
  // An own `__proto__` key, as JSON.parse makes one (an assignment would set the prototype).
  else if (op < 0.9)
    Object.defineProperty(target, rnd() < 0.5 ? 'extra' : '__proto__', { value: pick(), enumerable: true, writable: true, configurable: true });
  else {
    const entries = Object.entries(target).reverse();
    for (const k of keys) delete target[k];
    for (const [k, v] of entries) target[k] = v;
  }
}

describe('zod-guard', () => {
  it('accepts a valid value as it is, without a copy', () => {
    expect(guardOf(Thing)?.(structuredClone(valid))).toBe(true);
    const input = structuredClone(valid);
    const parsed = parseChecked(Thing, input);
    expect(parsed.success && parsed.data).toBe(input);
  });

  it('holds only where zod accepts and returns a value deep-equal to the input, on 20 000 mutated values', () => {
    const guard = guardOf(Thing);
    expect(guard).toBeDefined();
    const rnd = prng(25);
    const tally = { guarded: 0, zodOnly: 0, rejected: 0 };
    for (let i = 0; i < 20_000; i++) {
      const value: unknown = JSON.parse(JSON.stringify(valid));
      const changes = 1 + Math.floor(rnd() * 3);
      for (let c = 0; c < changes; c++) mutate(value, rnd);
      const zod = Thing.safeParse(value);
      if (guard!(value)) {
        tally.guarded++;
        expect(zod.success, JSON.stringify(value)).toBe(true);
        expect(zod.data).toStrictEqual(value);
      } else if (zod.success) tally.zodOnly++;
      else tally.rejected++;
    }
    // Each outcome occurred often, so the comparison covered all three.
    expect(tally.guarded).toBeGreaterThan(1000);
    expect(tally.zodOnly).toBeGreaterThan(500);
    expect(tally.rejected).toBeGreaterThan(1000);
    // About 1 s alone; a loaded 2-core machine running the whole suite has taken 6.
  }, 60_000);

  it('refuses what zod would strip, and leaves the result to zod; takes the keys in any order', () => {
    const guard = guardOf(Thing)!;
    const extra = { ...structuredClone(valid), extra: 1 };
    const reordered = Object.fromEntries(Object.entries(structuredClone(valid)).reverse());
    const withoutNote = structuredClone(valid) as Partial<typeof valid>;
    delete withoutNote.note;
    expect([guard(extra), guard(reordered), guard(withoutNote)]).toEqual([false, true, true]);
    const missing = structuredClone(valid) as Partial<typeof valid>;
    delete missing.zone;
    expect(guard(missing)).toBe(false);
    const parsed = parseChecked(Thing, extra);
    expect(parsed.success && 'extra' in parsed.data).toBe(false);
  });

  it('runs zod’s own checks: formats beyond their pattern, bounds, refinements', () => {
    const guard = guardOf(Thing)!;
    const at = (patch: Partial<Record<keyof typeof valid, unknown>>): boolean => guard({ ...structuredClone(valid), ...patch });
    expect([
      at({ v6: '::@1\\' }),
      at({ port: 65536 }),
      at({ port: 1.5 }),
      at({ even: 3 }),
      at({ cidrs: ['1.0.0.0/8', '1.0.0.0/8', '1.0.0.0/8', '1.0.0.0/8'] }),
    ]).toEqual([false, false, false, false, false]);
    const failed = parseChecked(Thing, { ...structuredClone(valid), even: 3 });
    expect(failed.success).toBe(false);
    expect(failed.error?.issues[0]?.path).toEqual(['even']);
  });

  it('compiles no predicate for a schema that changes its value; zod parses it', () => {
    const changing = [
      z.string().trim(),
      z.object({ a: z.string().default('x') }),
      z.number().transform((n) => n + 1),
      z.coerce.number(),
      z.object({ a: z.string() }).readonly(),
      z.looseObject({ a: z.string() }),
      z.union([z.object({ a: z.string() }), z.object({ a: z.string(), b: z.string() })]),
    ];
    expect(changing.map(hasGuard)).toEqual(changing.map(() => false));
    const trimmed = parseChecked(z.object({ s: z.string().trim() }), { s: ' x ' });
    expect(trimmed.success && trimmed.data).toEqual({ s: 'x' });
  });
});
