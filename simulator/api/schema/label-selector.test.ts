import { describe, expect, it } from 'vitest';
import { SelectorSyntaxError, formatSelector, matchesSelector, parseSelector } from './label-selector.ts';

const match = (sel: string, labels: Record<string, string>) => matchesSelector(parseSelector(sel), labels);

describe('label selectors', () => {
  it('parses every operator', () => {
    expect(parseSelector('a=b, c!=d,e,!f,g in (h, i),j notin (k),l==m')).toEqual([
      { key: 'a', op: 'eq', values: ['b'] },
      { key: 'c', op: 'neq', values: ['d'] },
      { key: 'e', op: 'exists', values: [] },
      { key: 'f', op: 'absent', values: [] },
      { key: 'g', op: 'in', values: ['h', 'i'] },
      { key: 'j', op: 'notin', values: ['k'] },
      { key: 'l', op: 'eq', values: ['m'] },
    ]);
    expect(parseSelector('')).toEqual([]);
    expect(parseSelector('simcloud.dev/service-uid=abc')).toEqual([{ key: 'simcloud.dev/service-uid', op: 'eq', values: ['abc'] }]);
  });

  it('matches with Kubernetes semantics (missing keys match != and notin)', () => {
    expect(match('a=b', { a: 'b' })).toBe(true);
    expect(match('a=b', {})).toBe(false);
    expect(match('a!=b', {})).toBe(true);
    expect(match('a notin (b)', {})).toBe(true);
    expect(match('a in (b,c)', { a: 'c' })).toBe(true);
    expect(match('!a', { a: '' })).toBe(false);
    expect(match('a,b=c', { a: 'x', b: 'c' })).toBe(true);
  });

  it('rejects malformed selectors', () => {
    for (const bad of ['a in (', 'a in ()', '=b', 'a=b,', 'a b', 'a=b=c', '!']) expect(() => parseSelector(bad), bad).toThrow(SelectorSyntaxError);
  });

  it('formats equality selectors', () => {
    expect(formatSelector({ a: 'b', c: 'd' })).toBe('a=b,c=d');
  });
});
