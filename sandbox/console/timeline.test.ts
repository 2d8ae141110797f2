import { describe, expect, it } from 'vitest';
import { Timeline } from './timeline.ts';

describe('Timeline', () => {
  const input = {
    time: '2026-01-01T00:00:00.000Z',
    source: 'cloud-call' as const,
    group: 'Node/w1',
    controller: 'c',
    method: 'InstanceExists',
    title: 'GET x → 200',
    explanation: 'e',
    severity: 'normal' as const,
  };

  it('folds a repeated read into a recent equal step of its group and tells listeners', () => {
    const t = new Timeline();
    const seen: number[] = [];
    t.subscribe((e) => seen.push(e.count));
    t.add({ ...input, foldable: true });
    t.add({ ...input, method: 'InstanceShutdown', foldable: true });
    const again = t.add({ ...input, time: '2026-01-01T00:00:01.000Z', foldable: true });
    expect(again).toMatchObject({ id: 1, count: 2, lastTime: '2026-01-01T00:00:01.000Z' });
    expect(t.list()).toHaveLength(2);
    expect(seen).toEqual([1, 1, 2]);
  });

  it('never folds steps that are not reads, keeps groups apart and stays bounded', () => {
    const t = new Timeline({ max: 3 });
    t.add(input);
    t.add(input);
    expect(t.add({ ...input, group: 'Node/w2', foldable: true }).count).toBe(1);
    t.add(input);
    expect(t.list().map((e) => e.id)).toEqual([2, 3, 4]);
    expect(t.list(3).map((e) => e.id)).toEqual([4]);
  });
});
