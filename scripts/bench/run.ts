// Runs the selected scenarios in order on one shared environment (started on first use), measuring each
// scenario's CPU and RSS per process, and writes the JSON and the tables. Used by scripts/bench.ts and
// by the CI smoke test (in-process).
import { cpSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reaper } from '../../sandbox/reaper-client.ts';
import { BenchEnv } from './env.ts';
import { apiTable, limitNotes, processTable, summaryTable, writeResults } from './report.ts';
import type { Scenario, ScenarioContext, Shared } from './scenario.ts';
import { S4, S6, S7 } from './scenarios/cluster.ts';
import { S12, S5 } from './scenarios/lb.ts';
import { S1, S2, S9 } from './scenarios/nodes.ts';
import { S10, S15 } from './scenarios/standalone.ts';
import { S16 } from './scenarios/conformance.ts';
import type { ApiRequestCounts } from './api-audit.ts';
import { PROFILES, type BenchOptions, type Figure, type ProcessUsage, type ScenarioId, type ScenarioResult } from './types.ts';

/** S3 and S8 are measured on S1/S2 runs; asking for them runs S2. */
const RUNNERS: Record<Exclude<ScenarioId, 'S3' | 'S8'>, Scenario> = { S1, S2, S4, S5, S6, S7, S9, S10, S12, S15, S16 };

export function plan(ids: readonly ScenarioId[]): Scenario[] {
  const wanted = new Set<ScenarioId>(ids);
  if (wanted.has('S3') || wanted.has('S8')) wanted.add('S2');
  // Order: bring-up and throughput first, then node arrival (no resident nodes yet), then the cold start
  // that leaves N resident nodes, then what needs them: the 100-LB scenarios, then the 1000-Service bursts,
  // which S12 keeps as its resident Services (nothing after it needs fewer).
  const order: (keyof typeof RUNNERS)[] = ['S15', 'S16', 'S10', 'S1', 'S9', 'S2', 'S4', 'S6', 'S7', 'S5', 'S12'];
  return order.filter((id) => wanted.has(id)).map((id) => RUNNERS[id]);
}

export interface BenchReport {
  readonly results: ScenarioResult[];
  readonly file: string;
  readonly table: string;
}

/** One benchmark environment for a whole invocation: created on first use, stopped and removed at the end. */
export interface Session {
  readonly ctx: ScenarioContext;
  readonly env: () => Promise<BenchEnv>;
}

export async function withSession<T>(opts: BenchOptions, progress: (m: string) => void, body: (s: Session) => Promise<T>): Promise<T> {
  const stateDir = mkdtempSync(join(tmpdir(), 'ccm-bench-'));
  // Throwaway: if the bench is interrupted or dies, its reaper removes the dir with the processes.
  reaper().trackDir(stateDir);
  let env: BenchEnv | undefined;
  const getEnv = async (): Promise<BenchEnv> => {
    env ??= await BenchEnv.start({
      stateDir,
      profile: PROFILES[opts.profile],
      nodes: opts.nodes,
      progress,
      ccmVerbosity: opts.ccmVerbosity,
      ccm: opts.ccm,
      ...(opts.cpuProfDir !== undefined ? { cpuProfDir: opts.cpuProfDir } : {}),
    });
    return env;
  };
  const shared: Shared = { resident: [], residentServices: [] };
  const ctx: ScenarioContext = { opts, env: getEnv, progress, shared, selected: new Set(opts.scenarios) };
  try {
    return await body({ ctx, env: getEnv });
  } finally {
    await env?.stop().catch(() => undefined);
    if (opts.logsDir) keepLogs(stateDir, opts.logsDir, progress);
    rmSync(stateDir, { recursive: true, force: true });
    reaper().untrackDir(stateDir);
  }
}

/** The planned scenarios in order; `done` sees the results so far after each one. */
export async function runScenarios(session: Session, done: (results: ScenarioResult[]) => void): Promise<ScenarioResult[]> {
  const { ctx } = session;
  const results: ScenarioResult[] = [];
  for (const scenario of plan(ctx.opts.scenarios)) {
    ctx.progress(`== ${scenario.id}: ${scenario.title}`);
    results.push(await runOne(scenario, ctx, scenario.usesEnv ? await session.env() : undefined));
    done(results);
  }
  return results;
}

export async function runBench(opts: BenchOptions, progress: (m: string) => void): Promise<BenchReport> {
  const startedAt = new Date();
  const results = await withSession(opts, progress, (session) => runScenarios(session, (r) => writeResults(opts, r, startedAt)));
  const file = writeResults(opts, results, startedAt);
  const text = [summaryTable(results), '', processTable(results), '', apiTable(results), '', limitNotes(results)].join('\n');
  return { results, file, table: text };
}

function keepLogs(stateDir: string, to: string, progress: (m: string) => void): void {
  try {
    // Logs only (simcloud and CCM under logs/, the control plane's under its own dir), keeping the layout.
    cpSync(stateDir, to, { recursive: true, filter: (src) => statSync(src).isDirectory() || src.endsWith('.log') });
    progress(`logs kept in ${to}`);
  } catch (err) {
    progress(`could not keep the logs in ${to}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function runOne(scenario: Scenario, ctx: ScenarioContext, env: BenchEnv | undefined): Promise<ScenarioResult> {
  const close = env?.sampler.window();
  const closeApi = env?.audit.window();
  const started = Date.now();
  const base = { id: scenario.id, title: scenario.title };
  const measured = async (): Promise<Pick<ScenarioResult, 'durationSeconds' | 'processes' | 'apiRequests'>> => {
    const durationSeconds = (Date.now() - started) / 1000;
    const processes = usage(close);
    return { durationSeconds, processes, ...(closeApi ? { apiRequests: await closeApi() } : {}) };
  };
  try {
    const out = await scenario.run(ctx);
    const m = await measured();
    const totals = scenario.ownTotals ? [] : [...apiFigure(scenario.id, m.apiRequests), ...cpuFigure(scenario.id, m.processes)];
    return { ...base, runs: out.runs, ...m, figures: [...out.figures, ...totals], details: out.details };
  } catch (err) {
    ctx.progress(`${scenario.id} failed: ${err instanceof Error ? err.message : String(err)}`);
    return { ...base, runs: 0, ...(await measured()), figures: [], details: {}, error: err instanceof Error ? err.message : String(err) };
  }
}

/** The scenario's CCM API request total as a figure, so `--compare` prints it as a ratio too. */
function apiFigure(id: ScenarioId, counts: ApiRequestCounts | undefined): Figure[] {
  if (!counts) return [];
  const n = counts.total;
  return [
    {
      scenario: id,
      name: 'Kubernetes API requests by the CCM (apiserver audit log)',
      unit: 'requests',
      samples: [n],
      value: n,
      p50: n,
      p90: n,
      p99: n,
      max: n,
      target: null,
      direction: 'max',
      limit: null,
      limitNote: '',
    },
  ];
}

/** The CCM's CPU seconds during the scenario as a figure, so `--compare` prints it as a ratio too. */
function cpuFigure(id: ScenarioId, processes: Record<string, ProcessUsage>): Figure[] {
  const cpu = processes.ccm?.cpuSeconds;
  if (cpu === undefined) return [];
  return [
    {
      scenario: id,
      name: 'CCM CPU seconds (utime + stime, /proc)',
      unit: 's',
      samples: [cpu],
      value: cpu,
      p50: cpu,
      p90: cpu,
      p99: cpu,
      max: cpu,
      target: null,
      direction: 'max',
      limit: null,
      limitNote: '',
    },
  ];
}

function usage(close: (() => Record<string, ProcessUsage>) | undefined): Record<string, ProcessUsage> {
  return close ? close() : {};
}
