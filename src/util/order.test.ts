import { describe, expect, it } from 'vitest';
import { compareStrings } from './order.ts';

describe('compareStrings', () => {
  it('orders by code unit: digits and dashes before letters, upper case before lower, equal is 0', () => {
    expect(['node-b', 'node-10', 'Node-a', 'node-2', 'node-a'].sort(compareStrings)).toEqual(['Node-a', 'node-10', 'node-2', 'node-a', 'node-b']);
    expect(compareStrings('x', 'x')).toBe(0);
  });
});
