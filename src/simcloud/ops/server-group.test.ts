import { describe, expect, it } from 'vitest';
import { memberChanges } from './server-group.ts';

describe('memberChanges (server group members as add/remove requests)', () => {
  it('asks for nothing when the members already match, in any order', () => {
    expect(memberChanges(['s2', 's1'], ['s1', 's2'])).toEqual([]);
  });

  it('sends only the difference, additions before removals', () => {
    expect(memberChanges(['s1', 's2', 's3'], ['s2', 's3', 's4'])).toEqual([
      { op: 'add', servers: ['s4'] },
      { op: 'remove', servers: ['s1'] },
    ]);
  });

  it('splits a difference larger than one request', () => {
    const want = ['a', 'b', 'c', 'd', 'e'];
    expect(memberChanges(['x'], want, 2)).toEqual([
      { op: 'add', servers: ['a', 'b'] },
      { op: 'add', servers: ['c', 'd'] },
      { op: 'add', servers: ['e'] },
      { op: 'remove', servers: ['x'] },
    ]);
  });

  it('keeps one join to one request however large the group is', () => {
    const have = Array.from({ length: 5000 }, (_, i) => `srv-${i}`);
    expect(memberChanges(have, [...have, 'srv-new'])).toEqual([{ op: 'add', servers: ['srv-new'] }]);
  });
});
