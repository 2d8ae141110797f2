// `npm run bench [scenario...] [--nodes N] [--profile parity|tuned] [--runs N] [--out FILE]
//                [--rest-minutes M] [--smoke]`
import { parseArgs } from 'node:util';
import { PROFILES, SCENARIOS, type BenchOptions, type ProfileName, type ScenarioId } from './types.ts';

export const USAGE = `usage: npm run bench -- [S1 S2 ... S15] [--nodes N] [--profile parity|tuned] [--runs N] [--out FILE] [--rest-minutes M] [--smoke]
  scenarios   ${SCENARIOS.join(' ')} (default: all; S3 and S8 are measured on the S1/S2 runs)
  --nodes     fleet size (default 1000)
  --profile   parity = upstream defaults (QPS 20/30, 1 worker); tuned = QPS 100/150, 8 node / 5 service workers (default tuned)
  --runs      runs per scenario (default 3; 1 with --smoke; above 200 nodes S1, S2, S7 and the big/slow LB bursts run once unless --runs is given)
  --rest-minutes  S4 window (default 10; 0.25 with --smoke)
  --smoke     CI mode: one run, smaller bursts, no S9/S10 (timings reported, never judged)
  --out       JSON result file (default bench-results/bench-<profile>-<nodes>-<time>.json)`;

export class UsageError extends Error {}

const SMOKE_SCENARIOS: readonly ScenarioId[] = ['S1', 'S2', 'S3', 'S8', 'S4', 'S5', 'S12', 'S6', 'S7'];

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be a positive number, got "${value}"`);
  return n;
}

function scenarios(positionals: readonly string[], smoke: boolean): ScenarioId[] {
  const ids = positionals.map((p) => p.toUpperCase());
  for (const id of ids) if (!(SCENARIOS as readonly string[]).includes(id)) throw new UsageError(`unknown scenario ${id}; one of ${SCENARIOS.join(' ')}`);
  if (ids.length > 0) return ids as ScenarioId[];
  return smoke ? [...SMOKE_SCENARIOS] : [...SCENARIOS];
}

export function parseBenchArgs(argv: readonly string[], now = new Date()): BenchOptions {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      nodes: { type: 'string' },
      profile: { type: 'string' },
      runs: { type: 'string' },
      out: { type: 'string' },
      'rest-minutes': { type: 'string' },
      smoke: { type: 'boolean', default: false },
    },
  });
  const smoke = values.smoke === true;
  const profile = values.profile ?? 'tuned';
  if (!(profile in PROFILES)) throw new UsageError(`--profile must be parity or tuned, got "${profile}"`);
  const nodes = Math.round(positive('nodes', values.nodes, 1000));
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const runs = Math.round(positive('runs', values.runs, smoke ? 1 : 3));
  return {
    scenarios: scenarios(positionals, smoke),
    nodes,
    profile: profile as ProfileName,
    runs,
    heavyRuns: values.runs !== undefined || nodes <= 200 ? runs : 1,
    out: values.out ?? `bench-results/bench-${profile}-${nodes}-${stamp}.json`,
    restMinutes: positive('rest-minutes', values['rest-minutes'], smoke ? 0.25 : 10),
    smoke,
  };
}
