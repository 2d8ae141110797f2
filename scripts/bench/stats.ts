// Percentiles (nearest-rank, as Prometheus-free tools report them) and figure building.
import type { Direction, Figure, ScenarioId } from './types.ts';

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? Number.NaN;
}

export interface FigureSpec {
  readonly scenario: ScenarioId;
  readonly name: string;
  readonly unit: string;
  readonly samples: readonly number[];
  readonly target?: number | null;
  readonly direction?: Direction;
  /** Which statistic is judged: p50, p99 or max (default max). */
  readonly judge?: 'p50' | 'p99' | 'max';
  readonly limit?: number | null;
  readonly limitNote?: string;
  readonly note?: string;
}

const round = (n: number): number => (Number.isFinite(n) ? Math.round(n * 1000) / 1000 : n);

export function figure(input: FigureSpec): Figure {
  const spec = { ...input, samples: input.samples.filter((v) => Number.isFinite(v)) };
  const stats = {
    p50: round(percentile(spec.samples, 50)),
    p90: round(percentile(spec.samples, 90)),
    p99: round(percentile(spec.samples, 99)),
    max: round(percentile(spec.samples, 100)),
  };
  const direction = spec.direction ?? 'max';
  const judged = direction === 'min' ? round(Math.min(...spec.samples)) : stats[spec.judge ?? 'max'];
  return {
    scenario: spec.scenario,
    name: spec.name,
    unit: spec.unit,
    samples: spec.samples.map(round),
    value: judged,
    ...stats,
    target: spec.target ?? null,
    direction,
    limit: spec.limit === undefined || spec.limit === null ? null : round(spec.limit),
    limitNote: spec.limitNote ?? '',
    ...(spec.note ? { note: spec.note } : {}),
  };
}

/** met / missed / n/a (no target or no samples). */
export function verdict(f: Figure): 'met' | 'MISSED' | 'n/a' {
  if (f.target === null || !Number.isFinite(f.value)) return 'n/a';
  return (f.direction === 'max' ? f.value <= f.target : f.value >= f.target) ? 'met' : 'MISSED';
}

/** Seconds between two epoch-ms times. */
export const secondsBetween = (from: number, to: number): number => (to - from) / 1000;
