import { describe, expect, it } from 'vitest';
import { CAPABILITIES, withNeeds } from './capabilities.ts';

describe('the capabilities --only selects', () => {
  it('adds what each named capability needs, in run order', () => {
    expect(withNeeds(['lb-update'])).toEqual(['node-init', 'lb-basic', 'lb-update']);
    expect(withNeeds(['leak', 'routes'])).toEqual(['node-init', 'routes', 'leak']);
    expect(withNeeds([...CAPABILITIES].reverse())).toEqual([...CAPABILITIES]);
  });
});
