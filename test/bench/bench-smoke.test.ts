// CI smoke check of `npm run bench`: a --nodes 20 --smoke run completes and writes its JSON.
// Timings are never asserted here (the machine is shared; the figures are for docs/performance.md).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBenchArgs } from '../../scripts/bench/args.ts';
import { plan, runBench } from '../../scripts/bench/run.ts';

const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run bench -- --nodes 20 --smoke', () => {
  it('completes and writes a JSON result per scenario', async () => {
    const out = join(dir, 'smoke.json');
    const opts = parseBenchArgs(['--nodes', '20', '--smoke', '--out', out]);
    const report = await runBench(opts, () => undefined);
    expect(report.file).toBe(out);
    expect(existsSync(out)).toBe(true);
    const doc = JSON.parse(readFileSync(out, 'utf8')) as { results: { id: string }[]; table: string };
    expect(doc.results.map((r) => r.id)).toEqual(plan(opts.scenarios).map((s) => s.id));
    expect(doc.table).toContain('verdict');
  });
});
