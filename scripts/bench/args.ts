// `npm run bench [scenario...] [--nodes N] [--profile parity|tuned] [--runs N] [--out FILE]
//                [--rest-minutes M] [--smoke] [--logs DIR] [--ccm-v N] [--ccm builtin|deployed|upstream] [--compare [--rounds N] [--no-tuned]] [--cpu-prof DIR]`
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError } from '../../lib/usage-error.ts';
import { BENCH_CCMS, COMPARE_SCENARIOS, PROFILES, SCENARIOS, type BenchCcm, type BenchOptions, type ProfileName, type ScenarioId } from './types.ts';

export const USAGE = `usage: npm run bench -- [S1 S2 ... S15] [--nodes N] [--profile parity|tuned] [--runs N] [--out FILE] [--rest-minutes M] [--smoke] [--logs DIR] [--ccm-v N] [--ccm builtin|deployed|upstream] [--compare [--rounds N] [--no-tuned]] [--cpu-prof DIR]
  scenarios   ${SCENARIOS.join(' ')} (default: all; S3 and S8 are measured on the S1/S2 runs)
  --nodes     fleet size (default 1000)
  --profile   parity = upstream defaults (QPS 20/30, 1 worker); tuned = QPS 100/150, 8 node / 5 service workers (default tuned)
  --runs      runs per scenario (default 3; 1 with --smoke; above 200 nodes S1, S2, S7 and the big/slow LB bursts run once unless --runs is given)
  --rest-minutes  S4 window (default 10; 0.25 with --smoke)
  --smoke     CI mode: one run, smaller bursts, no S9/S10 (timings reported, never judged)
  --out       JSON result file (default bench-results/bench-<profile>-<nodes>-<time>.json)
  --logs      keep every process's log (simcloud, control plane, CCM) in DIR (default: removed with the state)
  --ccm-v     the CCM's log verbosity (default 2, which logs what each LB node-sync pass reacts to)
  --ccm       builtin = our CCM as the sandbox runs it (default); deployed = our CCM as deploy/ ships it (the bundle, its
              code cache, the image's Node flags, the Deployment's env); upstream = the Go CCM on k8s.io/cloud-provider
  --cpu-prof  DIR: our CCM writes a V8 CPU profile of each run there (node --cpu-prof; open it in Chrome DevTools)
  --compare   side by side on one fleet: ${COMPARE_SCENARIOS.join(' ')} at the parity profile for ours over each HTTP client
              (http1 as deployed, undici and http2 with the JIT on), each followed by upstream, then ours tuned; each figure
              as a ratio ours / upstream, judged against the parity limits (no --profile or --ccm; scenarios limited to those)
  --rounds    with --compare: run the parity passes N times, alternating (default 1)
  --no-tuned  with --compare: skip the ours-tuned pass`;

const SMOKE_SCENARIOS: readonly ScenarioId[] = ['S1', 'S2', 'S3', 'S8', 'S4', 'S5', 'S12', 'S6', 'S7'];

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be a positive number, got "${value}"`);
  return n;
}

function verbosity(value: string | undefined): number {
  if (value === undefined) return 2;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 10) throw new UsageError(`--ccm-v must be an integer from 0 to 10, got "${value}"`);
  return n;
}

function scenarios(positionals: readonly string[], smoke: boolean): ScenarioId[] {
  const ids = positionals.map((p) => p.toUpperCase());
  for (const id of ids) if (!(SCENARIOS as readonly string[]).includes(id)) throw new UsageError(`unknown scenario ${id}; one of ${SCENARIOS.join(' ')}`);
  if (ids.length > 0) return ids as ScenarioId[];
  return smoke ? [...SMOKE_SCENARIOS] : [...SCENARIOS];
}

const BENCH_OPTIONS = {
  nodes: { type: 'string' },
  profile: { type: 'string' },
  runs: { type: 'string' },
  out: { type: 'string' },
  'rest-minutes': { type: 'string' },
  smoke: { type: 'boolean', default: false },
  logs: { type: 'string' },
  'ccm-v': { type: 'string' },
  ccm: { type: 'string' },
  compare: { type: 'boolean', default: false },
  rounds: { type: 'string' },
  'no-tuned': { type: 'boolean', default: false },
  'cpu-prof': { type: 'string' },
} as const;

/** node:util's parseArgs, its errors (unknown flag, missing value) turned into usage errors. */
function parseOrUsage(config: { args: string[]; allowPositionals: true; options: typeof BENCH_OPTIONS }): ReturnType<typeof parseArgs<typeof config>> {
  try {
    return parseArgs(config);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) throw new UsageError((err as Error).message);
    throw err;
  }
}

function profileOf(value: string | undefined): ProfileName {
  const profile = value ?? 'tuned';
  if (!(profile in PROFILES)) throw new UsageError(`--profile must be parity or tuned, got "${profile}"`);
  return profile as ProfileName;
}

function ccmOf(value: string | undefined): BenchCcm {
  if (value === undefined) return 'builtin';
  if (!(BENCH_CCMS as readonly string[]).includes(value)) throw new UsageError(`--ccm must be ${BENCH_CCMS.join(', ')}, got "${value}"`);
  return value as BenchCcm;
}

/** --compare runs its own CCMs and profiles, on the comparable scenarios only (default: all of them). */
function compareScenarios(values: { ccm?: string; profile?: string }, positionals: readonly string[]): ScenarioId[] {
  if (values.ccm !== undefined) throw new UsageError('--compare runs both CCMs: drop --ccm');
  if (values.profile !== undefined) throw new UsageError('--compare runs parity for both CCMs and tuned for ours: drop --profile');
  if (positionals.length === 0) return [...COMPARE_SCENARIOS];
  const ids = scenarios(positionals, false);
  const other = ids.filter((id) => !(COMPARE_SCENARIOS as readonly string[]).includes(id));
  if (other.length > 0) throw new UsageError(`--compare runs ${COMPARE_SCENARIOS.join(' ')} only, not ${other.join(' ')}`);
  return ids;
}

/** The result file's label: compare, or the profile (prefixed with upstream- for the Go CCM). */
function runLabel(compare: boolean, ccm: BenchCcm, profile: string): string {
  if (compare) return 'compare';
  return ccm === 'builtin' ? profile : `${ccm}-${profile}`;
}

export function parseBenchArgs(argv: readonly string[], now = new Date()): BenchOptions {
  const { values, positionals } = parseOrUsage({
    args: [...argv],
    allowPositionals: true,
    options: BENCH_OPTIONS,
  });
  const smoke = values.smoke === true;
  const profile = profileOf(values.profile);
  const nodes = Math.round(positive('nodes', values.nodes, 1000));
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const runs = Math.round(positive('runs', values.runs, smoke ? 1 : 3));
  const compare = values.compare === true;
  const ccm = ccmOf(values.ccm);
  return {
    scenarios: compare ? compareScenarios(values, positionals) : scenarios(positionals, smoke),
    nodes,
    profile,
    runs,
    heavyRuns: values.runs !== undefined || nodes <= 200 ? runs : 1,
    out: values.out ?? `bench-results/bench-${runLabel(compare, ccm, profile)}-${nodes}-${stamp}.json`,
    restMinutes: positive('rest-minutes', values['rest-minutes'], smoke ? 0.25 : 10),
    smoke,
    ...(values.logs !== undefined ? { logsDir: values.logs } : {}),
    ...(values['cpu-prof'] !== undefined ? { cpuProfDir: resolve(values['cpu-prof']) } : {}),
    ccmVerbosity: verbosity(values['ccm-v']),
    ccm,
    compare,
    rounds: Math.round(positive('rounds', values.rounds, 1)),
    tuned: values['no-tuned'] !== true,
  };
}
