// `npm run bench -- --compare`: the comparable scenarios (S1, S2 with S3, S5, S12) for our CCM and the
// upstream Go CCM, one after the other on one fleet, each pass starting from the same resident nodes and
// no Services. The parity passes are ours over each HTTP client of lib/http-pool (lib/http1 as deployed;
// undici's Pool and node:http2 with the JIT on, which undici's WebAssembly needs), each followed by
// upstream's at its defaults, so every candidate is compared with the upstream pass next to it under the
// same load; `--rounds N` runs that sequence N times, alternating. Ours tuned runs once at the end
// (`--no-tuned` skips it). Each figure is printed as ours / upstream per candidate (below 1: ours is lower,
// i.e. faster, fewer calls or less memory) and judged against the parity limits; passes, the machine's
// load and the ratios go to the JSON.
import { readFileSync } from 'node:fs';
import type { HttpTransport } from '../../lib/http-pool.ts';
import { ensureNodes, ensureServices } from './resident.ts';
import { apiTable, fmt, processTable, summaryTable, table, writeResults } from './report.ts';
import { runScenarios, withSession, type BenchReport } from './run.ts';
import { PROFILES, type BenchCcm, type BenchOptions, type Figure, type ProfileName, type ScenarioResult } from './types.ts';

export interface ComparePass {
  readonly label: string;
  readonly ccm: BenchCcm;
  readonly profile: ProfileName;
  /** Our CCM's HTTP client (`CCM_HTTP_TRANSPORT`); upstream's is Go's. */
  readonly transport?: HttpTransport;
}

export const UPSTREAM_PASS: ComparePass = { label: 'upstream parity', ccm: 'upstream', profile: 'parity' };

/**
 * Ours as it ships (the bundle, its code cache, the image's flags, the Deployment's env), as upstream runs
 * as its one binary: the CPU and memory compared are the deployed artefacts'. The candidates differ only in
 * the HTTP client (and, for undici and http2, no `--jitless`).
 */
export const CANDIDATE_PASSES: readonly ComparePass[] = [
  { label: 'ours http1 parity', ccm: 'deployed', profile: 'parity', transport: 'http1' },
  { label: 'ours undici parity', ccm: 'deployed', profile: 'parity', transport: 'undici' },
  { label: 'ours http2 parity', ccm: 'deployed', profile: 'parity', transport: 'http2' },
];

export const TUNED_PASS: ComparePass = { label: 'ours tuned', ccm: 'deployed', profile: 'tuned', transport: 'http1' };

/** The order of one compare: per round, each candidate then upstream; ours tuned once at the end. */
export function comparePlan(rounds: number, tuned: boolean): { pass: ComparePass; round: number }[] {
  const plan: { pass: ComparePass; round: number }[] = [];
  for (let round = 1; round <= rounds; round++) for (const c of CANDIDATE_PASSES) plan.push({ pass: c, round }, { pass: UPSTREAM_PASS, round });
  if (tuned) plan.push({ pass: TUNED_PASS, round: 1 });
  return plan;
}

export interface PassResults {
  readonly pass: ComparePass;
  readonly round: number;
  readonly results: readonly ScenarioResult[];
  /** `/proc/loadavg`'s 1-minute load when the pass started and ended. */
  readonly load?: { readonly start: number; readonly end: number };
}

/** The parity limits of ours / upstream: time <= 1.0, CPU <= 1.5, peak RSS <= 1.2; other figures none. */
export function parityLimit(key: string, unit: string): number | null {
  if (/CPU/.test(key)) return 1.5;
  if (/peak RSS/.test(key)) return 1.2;
  if (unit === 's') return 1.0;
  return null;
}

export interface CandidateRatio {
  /** Our value (the median over rounds). */
  readonly value: number | null;
  /** ours / upstream per round, each against the upstream pass that followed it. */
  readonly perRound: readonly number[];
  /** The median of `perRound`; null when no round has both. */
  readonly ratio: number | null;
}

export interface Ratio {
  readonly figure: string;
  readonly unit: string;
  /** Upstream's value (the median over rounds). */
  readonly upstream: number | null;
  readonly limit: number | null;
  /** By candidate label; the tuned pass is compared with the first round's upstream. */
  readonly candidates: Readonly<Record<string, CandidateRatio>>;
}

const keyOf = (f: Figure): string => f.compareAs ?? `${f.scenario} ${f.name}`;

function byKey(results: readonly ScenarioResult[]): Map<string, Figure> {
  return new Map(results.flatMap((r) => r.figures).map((f) => [keyOf(f), f]));
}

const ratio = (a: number | null, b: number | null): number | null =>
  a === null || b === null || b === 0 || !Number.isFinite(a) || !Number.isFinite(b) ? null : a / b;

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

const present = (values: readonly (number | null | undefined)[]): number[] =>
  values.filter((v): v is number => v !== null && v !== undefined && Number.isFinite(v));

/** Each candidate pass paired with the upstream pass of its round (the next upstream pass in the list). */
function pairs(passes: readonly PassResults[]): { candidate: PassResults; upstream: PassResults }[] {
  const out: { candidate: PassResults; upstream: PassResults }[] = [];
  passes.forEach((p, i) => {
    if (p.pass.ccm === 'upstream') return;
    const upstream = passes.slice(i + 1).find((q) => q.pass.ccm === 'upstream') ?? passes.findLast((q) => q.pass.ccm === 'upstream');
    if (upstream) out.push({ candidate: p, upstream });
  });
  return out;
}

/** One row per figure of the first candidate pass, matched across passes by `compareAs` or name. */
export function ratios(passes: readonly PassResults[]): Ratio[] {
  const matched = pairs(passes).map(({ candidate, upstream }) => ({
    label: candidate.pass.label,
    ours: byKey(candidate.results),
    upstream: byKey(upstream.results),
  }));
  const first = matched[0];
  if (!first) return [];
  const upstreams = passes.filter((p) => p.pass.ccm === 'upstream').map((p) => byKey(p.results));
  const labels = [...new Set(matched.map((m) => m.label))];
  return [...first.ours].map(([key, f]) => {
    const candidates: Record<string, CandidateRatio> = {};
    for (const label of labels) {
      const mine = matched.filter((m) => m.label === label);
      const perRound = present(mine.map((m) => ratio(m.ours.get(key)?.value ?? null, m.upstream.get(key)?.value ?? null)));
      candidates[label] = { value: median(present(mine.map((m) => m.ours.get(key)?.value))), perRound, ratio: median(perRound) };
    }
    return { figure: key, unit: f.unit, upstream: median(present(upstreams.map((u) => u.get(key)?.value))), limit: parityLimit(key, f.unit), candidates };
  });
}

const ratioCell = (c: CandidateRatio | undefined): string => {
  if (!c || c.ratio === null) return '-';
  if (c.perRound.length < 2) return fmt(c.ratio);
  return `${fmt(c.ratio)} (${fmt(Math.min(...c.perRound))}-${fmt(Math.max(...c.perRound))})`;
};

/** Whether each parity candidate keeps every limit, judged on its median ratio rounded to two decimals. */
export function verdicts(rows: readonly Ratio[]): string[] {
  const labels = [...new Set(rows.flatMap((r) => Object.keys(r.candidates)))].filter((l) => l.includes('parity'));
  return labels.map((label) => {
    const missed = rows.filter(
      (r) => r.limit !== null && (r.candidates[label]?.ratio ?? null) !== null && Math.round((r.candidates[label]?.ratio ?? 0) * 100) / 100 > r.limit,
    );
    if (missed.length === 0) return `${label}: keeps every parity limit (time <= 1.0, CPU <= 1.5, peak RSS <= 1.2 x upstream)`;
    return `${label}: misses ${missed.map((r) => `${r.figure} ${fmt(r.candidates[label]?.ratio ?? null)} > ${r.limit}`).join('; ')}`;
  });
}

export function ratioTable(rows: readonly Ratio[]): string {
  const labels = [...new Set(rows.flatMap((r) => Object.keys(r.candidates)))];
  const header = ['figure', 'unit', 'limit', 'upstream', ...labels.flatMap((l) => [l, 'ratio'])];
  const cells = rows.map((r) => [
    r.figure,
    r.unit,
    r.limit === null ? '-' : `<= ${r.limit}`,
    fmt(r.upstream),
    ...labels.flatMap((l) => [fmt(r.candidates[l]?.value ?? null), ratioCell(r.candidates[l])]),
  ]);
  return `ours / upstream (the judged value of each figure: p99 of latencies, else the highest run; medians over rounds, each round's ratio against the upstream pass after it, range in brackets)\n${table(header, cells)}\n${verdicts(rows).join('\n')}`;
}

/** The 1-minute load average, as `uptime` prints it. */
export function loadAverage(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}

export async function runCompare(opts: BenchOptions, progress: (m: string) => void): Promise<BenchReport> {
  const startedAt = new Date();
  const passes: PassResults[] = [];
  const save = (): string => {
    const all = passes.flatMap((p) => p.results);
    return writeResults(opts, all, startedAt, {
      comparison: { passes: passes.map((p) => ({ ...p.pass, round: p.round, load: p.load, scenarios: p.results.map((r) => r.id) })), ratios: ratios(passes) },
    });
  };
  await withSession(opts, progress, async (session) => {
    const env = await session.env();
    // Every pass starts from the same fleet: N Ready nodes (initialised by ours, before any pass) and no Services.
    await ensureNodes(session.ctx, env, opts.nodes);
    for (const { pass, round } of comparePlan(opts.rounds, opts.tuned)) {
      const start = loadAverage();
      progress(`=== pass: ${pass.label}, round ${round} (load ${start})`);
      await env.useCcm(pass.ccm, PROFILES[pass.profile], pass.transport);
      const at = passes.push({ pass, round, results: [] }) - 1;
      await runScenarios(session, (results) => {
        passes[at] = { pass, round, results: [...results], load: { start, end: loadAverage() } };
        save();
      });
      await ensureServices(session.ctx, env, 0);
    }
  });
  const file = save();
  const sections = passes.flatMap((p) => [
    `--- ${p.pass.label}, round ${p.round}, load ${p.load ? `${p.load.start} -> ${p.load.end}` : '-'}`,
    summaryTable(p.results),
    '',
    processTable(p.results),
    '',
    apiTable(p.results),
    '',
  ]);
  return { results: passes.flatMap((p) => p.results), file, table: [...sections, ratioTable(ratios(passes))].join('\n') };
}
