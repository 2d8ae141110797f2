// `npm run bench`: CCM benchmarks at scale on the local runtime with virtual kubelets.
// Scenarios, method and figures: docs/performance.md. The table is printed at the end and the JSON is
// written under bench-results/.
import { UsageError } from '../lib/usage-error.ts';
import { parseBenchArgs, USAGE } from './bench/args.ts';
import type { BenchOptions } from './bench/types.ts';
import { runCompare } from './bench/compare.ts';
import { runBench } from './bench/run.ts';

const started = Date.now();
const elapsed = (): string => `${((Date.now() - started) / 1000).toFixed(0).padStart(5)} s`;
let warnings = 0;

function progress(message: string): void {
  if (message.startsWith('warning:')) {
    warnings += 1;
    if (warnings > 20 && warnings % 100 !== 0) return;
  }
  process.stdout.write(`[${elapsed()}] ${message}\n`);
}

function what(opts: BenchOptions): string {
  if (opts.compare)
    return `ours over http1, undici and http2, each before upstream, at parity${opts.rounds > 1 ? `, ${opts.rounds} rounds` : ''}${opts.tuned ? ', then ours tuned' : ''}`;
  return `${opts.ccm === 'upstream' ? 'the upstream Go CCM, ' : ''}profile ${opts.profile}`;
}

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const opts = parseBenchArgs(process.argv.slice(2));
  progress(
    `bench: ${opts.scenarios.join(' ')} at ${opts.nodes} nodes, ${what(opts)}, ${opts.runs} run(s)${opts.heavyRuns !== opts.runs ? ` (${opts.heavyRuns} for S1, S2, S7 and the big/slow LB bursts at this fleet size; --runs to override)` : ''}${opts.smoke ? ', smoke' : ''}`,
  );
  if (opts.scenarios.includes('S4') && opts.restMinutes < 10)
    progress(`note: S4 rest window shortened to ${opts.restMinutes} min (--rest-minutes); the target is for 10 min`);
  const report = await (opts.compare ? runCompare : runBench)(opts, progress);
  process.stdout.write(`\n${report.table}\n\nresults: ${report.file}${warnings ? ` (${warnings} kubelet/runtime warnings)` : ''}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(
      err instanceof UsageError ? `${err.message}\n${USAGE}\n` : `bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
