import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { nodesRegion, serverIdsForNodes } from './targets.ts';

const node = (name: string, providerID?: string, region?: string): V1Node => ({
  metadata: { name, labels: region ? { 'topology.kubernetes.io/region': region } : {} },
  spec: providerID ? { providerID } : {},
});

describe('serverIdsForNodes', () => {
  it('uses providerIDs without listing servers', async () => {
    let listed = 0;
    const ids = await serverIdsForNodes([node('a', 'simcloud://srv-2'), node('b', 'simcloud://srv-1')], () => {
      listed++;
      return Promise.resolve([]);
    });
    expect(ids).toEqual(['srv-1', 'srv-2']);
    expect(listed).toBe(0);
  });

  it('resolves nodes without providerID by name once, skipping foreign and unknown nodes', async () => {
    let listed = 0;
    const ids = await serverIdsForNodes([node('a'), node('b'), node('c', 'aws:///i-1'), node('zzz')], () => {
      listed++;
      return Promise.resolve([
        { id: 'srv-a', name: 'a' },
        { id: 'srv-b', name: 'b' },
      ]);
    });
    expect(ids).toEqual(['srv-a', 'srv-b']);
    expect(listed).toBe(1);
  });
});

describe('nodesRegion', () => {
  it('takes the first region label', () => {
    expect(nodesRegion([node('a'), node('b', undefined, 'sim-1')])).toBe('sim-1');
    expect(nodesRegion([node('a')])).toBeUndefined();
  });
});
