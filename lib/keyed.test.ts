import { describe, expect, it } from 'vitest';
import { dict, hasOwnKey, own, protoKeyPath } from './keyed.ts';

const PROTO_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'] as const;

describe('keyed lookups', () => {
  it.each(PROTO_NAMES)('never reads %s from the prototype', (key) => {
    expect(own({ a: 1 }, key)).toBeUndefined();
    expect(hasOwnKey({ a: 1 }, key)).toBe(false);
    expect(own(JSON.parse(`{"${key}": 7}`) as Record<string, number>, key)).toBe(7);
  });

  it.each(PROTO_NAMES)('keeps %s as a plain key of a dict, leaving its prototype alone', (key) => {
    const d = dict<string>();
    d[key] = 'v';
    expect(own(d, key)).toBe('v');
    expect(Object.getPrototypeOf(d)).toBeNull();
    expect(Object.keys(d)).toEqual([key]);
  });

  it('finds a __proto__ key at any depth, and none in an ordinary body', () => {
    expect(protoKeyPath(JSON.parse('{"a":[{"b":1},{"c":{"__proto__":{"x":1}}}]}'))).toBe('a.1.c.__proto__');
    expect(protoKeyPath(JSON.parse('{"__proto__":1}'))).toBe('__proto__');
    expect(protoKeyPath({ constructor: { prototype: 1 }, toString: 'x', labels: { hasOwnProperty: 'y' } })).toBeUndefined();
    expect(protoKeyPath(null)).toBeUndefined();
  });

  it('walks a body nested past any stack without recursion', () => {
    let deep: unknown = { __proto__: null };
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(protoKeyPath(deep)).toBeUndefined();
  });
});
