// The summary table (each figure with its target, its physical limit and a verdict), the per-process
// CPU/RSS table, and the JSON result file.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { verdict } from './stats.ts';
import type { BenchOptions, Figure, ScenarioResult } from './types.ts';

export const fmt = (n: number | null): string => (n === null || !Number.isFinite(n) ? '-' : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

function row(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
}

export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [row(header, widths), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((r) => row(r, widths))].join('\n');
}

function figureRow(f: Figure): string[] {
  const target = f.target === null ? '-' : `${f.direction === 'max' ? '<=' : '>='} ${fmt(f.target)}`;
  return [f.scenario, `${f.name} [${f.unit}]`, fmt(f.p50), fmt(f.p90), fmt(f.p99), fmt(f.max), target, fmt(f.limit), verdict(f)];
}

export function summaryTable(results: readonly ScenarioResult[]): string {
  const rows = results.flatMap((r) =>
    r.error ? [[r.id, `FAILED: ${r.error.split('\n')[0] ?? ''}`, '', '', '', '', '', '', 'MISSED']] : r.figures.map(figureRow),
  );
  return table(['id', 'figure', 'p50', 'p90', 'p99', 'max', 'target', 'limit', 'verdict'], rows);
}

export function processTable(results: readonly ScenarioResult[]): string {
  const names = [...new Set(results.flatMap((r) => Object.keys(r.processes)))];
  const rows = results.map((r) => [
    r.id,
    `${r.durationSeconds.toFixed(0)} s`,
    ...names.map((n) => (r.processes[n] ? `${fmt(r.processes[n].cpuSeconds)} / ${fmt(r.processes[n].peakRssMb)}` : '-')),
  ]);
  return `CPU seconds / peak RSS MB per process\n${table(['id', 'wall', ...names], rows)}`;
}

/** The CCM's API requests per scenario, by controller and `verb resource` (from the apiserver's audit log). */
export function apiTable(results: readonly ScenarioResult[]): string {
  const rows = results.flatMap((r) =>
    Object.entries(r.apiRequests?.byController ?? {}).flatMap(([controller, ops]) => Object.entries(ops).map(([op, n]) => [r.id, controller, op, String(n)])),
  );
  return `Kubernetes API requests by the CCM (apiserver audit log; informer watches not attributed)\n${table(['id', 'controller', 'verb resource', 'requests'], rows)}`;
}

export function limitNotes(results: readonly ScenarioResult[]): string {
  return results
    .flatMap((r) => r.figures)
    .filter((f) => f.limitNote || f.note)
    .map((f) => `${f.scenario} ${f.name}: ${[f.limitNote && `limit: ${f.limitNote}`, f.note].filter(Boolean).join('; ')}`)
    .join('\n');
}

export function writeResults(opts: BenchOptions, results: readonly ScenarioResult[], startedAt: Date, extra: Record<string, unknown> = {}): string {
  mkdirSync(dirname(opts.out), { recursive: true });
  const doc = {
    tool: 'ccm-sandbox npm run bench',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
    options: opts,
    results,
    table: summaryTable(results),
    ...extra,
  };
  writeFileSync(opts.out, JSON.stringify(doc, null, 2) + '\n');
  return opts.out;
}
