import { describe, expect, it } from 'vitest';
import { enabledControllers } from './controllers.ts';

describe('enabledControllers', () => {
  it('enables everything with *', () => {
    expect([...enabledControllers(['*'])].sort()).toEqual([
      'cloud-node-controller',
      'cloud-node-lifecycle-controller',
      'node-route-controller',
      'service-lb-controller',
    ]);
  });
  it('disables with -name and accepts aliases', () => {
    expect([...enabledControllers(['*', '-route', '-cloud-node-lifecycle-controller'])].sort()).toEqual(['cloud-node-controller', 'service-lb-controller']);
    expect([...enabledControllers(['service'])]).toEqual(['service-lb-controller']);
  });
  it('names unknown controllers', () => {
    expect(() => enabledControllers(['*', 'nodeipam', '-bogus'])).toThrow(/unknown controller\(s\) nodeipam, -bogus/);
  });
});
