// Shared shapes of the benchmark: options, profiles, one figure (metric) with its target and limit,
// and a scenario's result as written to the JSON file and the summary table.
import type { ApiRequestCounts } from './api-audit.ts';

export const PROFILES = {
  /** Upstream's defaults (cloud-controller-manager flags): QPS 20 / burst 30, one worker per controller. */
  parity: { kubeApiQps: 20, kubeApiBurst: 30, nodeWorkers: 1, serviceWorkers: 1 },
  /** Our defaults, tuned for 1 000 nodes and Services (docs/performance.md). */
  tuned: { kubeApiQps: 100, kubeApiBurst: 150, nodeWorkers: 8, serviceWorkers: 5 },
} as const;
export type ProfileName = keyof typeof PROFILES;
export type Profile = (typeof PROFILES)[ProfileName];

/** The CCMs a benchmark can run: ours (src/) or the upstream Go CCM (go/cmd/upstream-ccm). */
/** builtin: ours as the sandbox runs it (`node src/main.ts`); deployed: ours as deploy/ ships it; upstream: the Go CCM. */
export const BENCH_CCMS = ['builtin', 'deployed', 'upstream'] as const;
export type BenchCcm = (typeof BENCH_CCMS)[number];

/** What the side-by-side mode (`--compare`) runs for both CCMs. */
export const COMPARE_SCENARIOS = ['S1', 'S2', 'S3', 'S5', 'S12'] as const;

export const SCENARIOS = ['S15', 'S1', 'S2', 'S3', 'S8', 'S9', 'S4', 'S5', 'S12', 'S6', 'S7', 'S10', 'S16'] as const;
export type ScenarioId = (typeof SCENARIOS)[number];

export interface BenchOptions {
  readonly scenarios: readonly ScenarioId[];
  readonly nodes: number;
  readonly profile: ProfileName;
  readonly runs: number;
  /**
   * Runs of the heavy parts (S1, S2 and S7 at the full fleet, the 1000-Service burst, the LB-latency burst): --runs when given, else
   * 3 up to 200 nodes and 1 above, so the 1000-node suite fits its 20 minutes on a 2-core machine.
   */
  readonly heavyRuns: number;
  readonly out: string;
  readonly restMinutes: number;
  /** Smoke mode (CI): fewer runs and smaller bursts; timings are reported, never judged by tests. */
  readonly smoke: boolean;
  /** Where to copy every process's log when the run ends (`--logs`); unset: logs go with the state dir. */
  readonly logsDir?: string;
  /** The CCM's `--v` (`--ccm-v`, default 2). */
  readonly ccmVerbosity: number;
  /** Where our CCM writes a V8 CPU profile per run (`--cpu-prof`); unset: none. */
  readonly cpuProfDir?: string;
  /** Which CCM runs (`--ccm`, default builtin). */
  readonly ccm: BenchCcm;
  /** Side by side (`--compare`): the scenarios for both CCMs on one fleet, ours / upstream per figure. */
  readonly compare: boolean;
  /** `--compare`: how many times its parity passes run, alternating (`--rounds`, default 1). */
  readonly rounds: number;
  /** `--compare`: ours tuned runs after the parity passes (default; `--no-tuned` skips it). */
  readonly tuned: boolean;
}

/** How a figure is judged against its target: lower is better (latency, calls) or higher (ratios). */
export type Direction = 'max' | 'min';

export interface Figure {
  readonly scenario: ScenarioId;
  readonly name: string;
  readonly unit: string;
  /** Pooled samples of every run (per node, per Service, or one per run). */
  readonly samples: readonly number[];
  /** The value judged against the target (default: p99 for latencies, else the max of the runs). */
  readonly value: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly target: number | null;
  readonly direction: Direction;
  /** The physical limit for this figure (a floor the design cannot beat), with how it was derived. */
  readonly limit: number | null;
  readonly limitNote: string;
  readonly note?: string;
  /** What the side-by-side table matches it with across CCMs (default `<scenario> <name>`). */
  readonly compareAs?: string;
}

export interface ProcessUsage {
  readonly cpuSeconds: number;
  readonly peakRssMb: number;
}

export interface ScenarioResult {
  readonly id: ScenarioId;
  readonly title: string;
  readonly runs: number;
  readonly durationSeconds: number;
  readonly figures: readonly Figure[];
  readonly processes: Readonly<Record<string, ProcessUsage>>;
  /** The CCM's Kubernetes API requests during the scenario (apiserver audit log), by controller and `verb resource`. */
  readonly apiRequests?: ApiRequestCounts;
  readonly details: Readonly<Record<string, unknown>>;
  readonly error?: string;
}
