import { describe, expect, it } from 'vitest';
import { COMPARE_PASSES, ratios, ratioTable, type PassResults } from './compare.ts';
import { figure } from './stats.ts';
import type { Figure, ScenarioResult } from './types.ts';

const result = (figures: Figure[]): ScenarioResult => ({ id: 'S2', title: 't', runs: 1, durationSeconds: 1, figures, processes: {}, details: {} });
const f = (name: string, value: number, compareAs?: string): Figure => ({ ...figure({ scenario: 'S2', name, unit: 's', samples: [value], limitNote: '' }), ...(compareAs ? { compareAs } : {}) });

describe('side-by-side ratios', () => {
  it('divides ours by upstream per figure, matching by compareAs or name, in the order of our parity pass', () => {
    const [ours, upstream, tuned] = COMPARE_PASSES;
    const passes: PassResults[] = [
      { pass: ours!, results: [result([f('init', 30), f('ours RSS', 120, 'RSS'), f('only ours', 1)])] },
      { pass: upstream!, results: [result([f('upstream RSS', 60, 'RSS'), f('init', 20)])] },
      { pass: tuned!, results: [result([f('init', 10)])] },
    ];
    const rows = ratios(passes);
    expect(rows.map((r) => [r.figure, r.parityRatio, r.tunedRatio])).toEqual([
      ['S2 init', 1.5, 0.5],
      ['RSS', 2, null],
      ['S2 only ours', null, null],
    ]);
    expect(ratioTable(rows)).toMatch(/S2 init\s+s\s+30\.0\s+20\.0\s+1\.50\s+10\.0\s+0\.50/);
  });

  it('has nothing to compare before upstream has run', () => {
    expect(ratios([{ pass: COMPARE_PASSES[0]!, results: [result([f('init', 30)])] }])).toEqual([]);
  });
});
