import { describe, expect, it } from 'vitest';
import { CANDIDATE_PASSES, comparePlan, parityLimit, ratios, ratioTable, TUNED_PASS, UPSTREAM_PASS, verdicts, type PassResults } from './compare.ts';
import { figure } from './stats.ts';
import type { Figure, ScenarioResult } from './types.ts';

const result = (figures: Figure[]): ScenarioResult => ({ id: 'S2', title: 't', runs: 1, durationSeconds: 1, figures, processes: {}, details: {} });
const f = (name: string, value: number, compareAs?: string, unit = 's'): Figure => ({
  ...figure({ scenario: 'S2', name, unit, samples: [value], limitNote: '' }),
  ...(compareAs ? { compareAs } : {}),
});
const [http1, undici, http2] = CANDIDATE_PASSES;

describe('side-by-side ratios', () => {
  it('runs each candidate before an upstream pass, round after round, and ours tuned once at the end', () => {
    expect(comparePlan(2, true).map((p) => `${p.pass.label}#${p.round}`)).toEqual([
      'ours http1 parity#1',
      'upstream parity#1',
      'ours undici parity#1',
      'upstream parity#1',
      'ours http2 parity#1',
      'upstream parity#1',
      'ours http1 parity#2',
      'upstream parity#2',
      'ours undici parity#2',
      'upstream parity#2',
      'ours http2 parity#2',
      'upstream parity#2',
      'ours tuned#1',
    ]);
    expect(comparePlan(1, false).at(-1)?.pass).toBe(UPSTREAM_PASS);
  });

  it('divides each candidate by the upstream pass after it, matching figures by compareAs or name, medians over rounds', () => {
    const passes: PassResults[] = [
      { pass: http1!, round: 1, results: [result([f('init', 30), f('ours RSS', 120, 'S12 CCM peak RSS', 'MB'), f('only ours', 1)])] },
      { pass: UPSTREAM_PASS, round: 1, results: [result([f('upstream RSS', 60, 'S12 CCM peak RSS', 'MB'), f('init', 20)])] },
      { pass: undici!, round: 1, results: [result([f('init', 20)])] },
      { pass: UPSTREAM_PASS, round: 1, results: [result([f('init', 40)])] },
      { pass: http1!, round: 2, results: [result([f('init', 10)])] },
      { pass: UPSTREAM_PASS, round: 2, results: [result([f('init', 20)])] },
      { pass: TUNED_PASS, round: 1, results: [result([f('init', 5)])] },
    ];
    const rows = ratios(passes);
    expect(
      rows.map((r) => [
        r.figure,
        r.upstream,
        r.candidates['ours http1 parity']?.ratio,
        r.candidates['ours undici parity']?.ratio,
        r.candidates['ours tuned']?.ratio,
      ]),
    ).toEqual([
      ['S2 init', 20, 1, 0.5, 0.25],
      ['S12 CCM peak RSS', 60, 2, null, null],
      ['S2 only ours', null, null, null, null],
    ]);
    expect(rows[0]?.candidates['ours http1 parity']?.perRound).toEqual([1.5, 0.5]);
    expect(ratioTable(rows)).toMatch(/S2 init\s+s\s+<= 1\s+20\.0\s+20\.0\s+1\.00 \(0\.50-1\.50\)\s+20\.0\s+0\.50/);
    expect(verdicts(rows)).toEqual([
      'ours http1 parity: misses S12 CCM peak RSS 2.00 > 1.2',
      'ours undici parity: keeps every parity limit (time <= 1.0, CPU <= 1.5, peak RSS <= 1.2 x upstream)',
    ]);
  });

  it('judges time at 1.0, CPU at 1.5 and peak RSS at 1.2 of upstream, counts and calls not at all', () => {
    expect(parityLimit('S2 CCM start -> all nodes initialised', 's')).toBe(1);
    expect(parityLimit('S1 CCM CPU seconds (utime + stime, /proc)', 's')).toBe(1.5);
    expect(parityLimit('S12 CCM peak RSS', 'MB')).toBe(1.2);
    expect(parityLimit('S2 Kubernetes API requests by the CCM (apiserver audit log)', 'requests')).toBeNull();
  });

  it('has nothing to compare before upstream has run', () => {
    expect(ratios([{ pass: http2!, round: 1, results: [result([f('init', 30)])] }])).toEqual([]);
  });
});
