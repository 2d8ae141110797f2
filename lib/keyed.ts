/**
 * Lookups keyed by client input, the one helper for them. A key a client chose (a resource id, a tag or label
 * name, a token's subject, a filter's field) must never reach an object's prototype: `own` reads only a record's
 * own properties, `dict` makes a record without a prototype, and `protoKeyPath` finds a `__proto__` key anywhere in
 * a parsed body (JSON.parse keeps one as a plain key, but zod and object spreads drop or misread it, so a request
 * carrying one is refused whole rather than half applied).
 */

/** The value under `key` when it is the record's own property; never an inherited one (`constructor`, `toString`). */
export function own<V>(record: Readonly<Record<string, V>> | undefined, key: string): V | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Whether `key` is the record's own property. */
export const hasOwnKey = (record: object, key: string): boolean => Object.hasOwn(record, key);

/** An empty record with no prototype, for keys a client chose. */
export const dict = <V>(): Record<string, V> => Object.create(null) as Record<string, V>;

/** The dotted path of the first `__proto__` key in a JSON value (breadth first, no recursion), else undefined. */
export function protoKeyPath(value: unknown): string | undefined {
  const queue: [unknown, string][] = [[value, '']];
  for (let i = 0; i < queue.length; i++) {
    const [v, path] = queue[i]!;
    if (v === null || typeof v !== 'object') continue;
    for (const k of Object.keys(v)) {
      const at = path === '' ? k : `${path}.${k}`;
      if (k === '__proto__') return at;
      queue.push([(v as Record<string, unknown>)[k], at]);
    }
  }
  return undefined;
}
