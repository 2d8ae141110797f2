// `npm run bench -- --compare`: the comparable scenarios (S1, S2 with S3, S5, S12) for our CCM and the
// upstream Go CCM, one after the other on one fleet, each pass starting from the same resident nodes and
// no Services: ours at the parity profile, upstream at the parity profile (its own defaults), ours tuned.
// Each figure is then printed as a ratio ours / upstream (below 1: ours is lower, i.e. faster, fewer
// calls or less memory), and the passes and ratios go to the JSON.
import { ensureNodes, ensureServices } from './resident.ts';
import { apiTable, fmt, processTable, summaryTable, table, writeResults } from './report.ts';
import { runScenarios, withSession, type BenchReport } from './run.ts';
import { PROFILES, type BenchCcm, type BenchOptions, type Figure, type ProfileName, type ScenarioResult } from './types.ts';

export interface ComparePass {
  readonly label: string;
  readonly ccm: BenchCcm;
  readonly profile: ProfileName;
}

export const COMPARE_PASSES: readonly ComparePass[] = [
  // Ours as it ships (the bundle, its code cache, the image's flags, the Deployment's env), as upstream runs
  // as its one binary: the CPU and memory compared are the deployed artefacts'.
  { label: 'ours parity', ccm: 'deployed', profile: 'parity' },
  { label: 'upstream parity', ccm: 'upstream', profile: 'parity' },
  { label: 'ours tuned', ccm: 'deployed', profile: 'tuned' },
];

export interface PassResults {
  readonly pass: ComparePass;
  readonly results: readonly ScenarioResult[];
}

export interface Ratio {
  readonly figure: string;
  readonly unit: string;
  readonly oursParity: number | null;
  readonly upstreamParity: number | null;
  readonly oursTuned: number | null;
  /** ours parity / upstream parity; null when either is missing or upstream's is 0. */
  readonly parityRatio: number | null;
  /** ours tuned / upstream parity. */
  readonly tunedRatio: number | null;
}

const keyOf = (f: Figure): string => f.compareAs ?? `${f.scenario} ${f.name}`;

function byKey(results: readonly ScenarioResult[]): Map<string, Figure> {
  return new Map(results.flatMap((r) => r.figures).map((f) => [keyOf(f), f]));
}

const ratio = (a: number | null, b: number | null): number | null => (a === null || b === null || b === 0 || !Number.isFinite(a) || !Number.isFinite(b) ? null : a / b);

/** One row per figure, in the order of our parity pass, matched across passes by `compareAs` or name. */
export function ratios(passes: readonly PassResults[]): Ratio[] {
  const [ours, upstream, tuned] = passes.map((p) => byKey(p.results));
  if (!ours || !upstream) return [];
  return [...ours].map(([key, f]) => {
    const value = (m: Map<string, Figure> | undefined): number | null => m?.get(key)?.value ?? null;
    const o = value(ours);
    const u = value(upstream);
    const t = value(tuned);
    return { figure: key, unit: f.unit, oursParity: o, upstreamParity: u, oursTuned: t, parityRatio: ratio(o, u), tunedRatio: ratio(t, u) };
  });
}

export function ratioTable(rows: readonly Ratio[]): string {
  const header = ['figure', 'unit', 'ours parity', 'upstream parity', 'ours/upstream', 'ours tuned', 'tuned/upstream'];
  const cells = rows.map((r) => [r.figure, r.unit, fmt(r.oursParity), fmt(r.upstreamParity), fmt(r.parityRatio), fmt(r.oursTuned), fmt(r.tunedRatio)]);
  return `ours / upstream (the judged value of each figure: p99 of latencies, else the highest run)\n${table(header, cells)}`;
}

export async function runCompare(opts: BenchOptions, progress: (m: string) => void): Promise<BenchReport> {
  const startedAt = new Date();
  const passes: PassResults[] = [];
  const save = (): string => {
    const all = passes.flatMap((p) => p.results);
    return writeResults(opts, all, startedAt, { comparison: { passes: passes.map((p) => ({ ...p.pass, scenarios: p.results.map((r) => r.id) })), ratios: ratios(passes) } });
  };
  const record = (pass: ComparePass, results: readonly ScenarioResult[]): void => {
    const entry = { pass, results: [...results] };
    const at = passes.findIndex((p) => p.pass === pass);
    if (at < 0) passes.push(entry);
    else passes[at] = entry;
    save();
  };
  await withSession(opts, progress, async (session) => {
    const env = await session.env();
    // Every pass starts from the same fleet: N Ready nodes (initialised by ours, before any pass) and no Services.
    await ensureNodes(session.ctx, env, opts.nodes);
    for (const pass of COMPARE_PASSES) {
      progress(`=== pass: ${pass.label}`);
      await env.useCcm(pass.ccm, PROFILES[pass.profile]);
      await runScenarios(session, (results) => record(pass, results));
      await ensureServices(session.ctx, env, 0);
    }
  });
  const file = save();
  const sections = passes.flatMap((p) => [`--- ${p.pass.label}`, summaryTable(p.results), '', processTable(p.results), '', apiTable(p.results), '']);
  return { results: passes.flatMap((p) => p.results), file, table: [...sections, ratioTable(ratios(passes))].join('\n') };
}
