#!/usr/bin/env node
// `npm run conformance`: a verdict per capability for any CCM (ours, upstream's, or a command line), on a
// sandbox of its own that it brings up and tears down. Prints the table; writes JUnit XML and JSON when
// asked. Exit codes: 0 every attempted capability passed, 1 one did not (or the sandbox did not come up),
// 2 usage error (one line: what to fix).
import { writeFileSync } from 'node:fs';
import { UsageError } from '../../lib/usage-error.ts';
import { parseConformanceArgs, USAGE, type ConformanceArgs } from './args.ts';
import { passed, renderJunit, renderTable } from './report.ts';
import { runConformance, type ConformanceOptions } from './run.ts';

async function main(argv: string[]): Promise<number> {
  process.umask(0o077);
  const a = parseConformanceArgs(argv);
  if (a.help) {
    console.log(USAGE);
    return 0;
  }
  const providerIds = a.kubeletProviderId ? ', kubelets with --provider-id' : '';
  console.log(`ccm-sandbox conformance: the ${a.ccm.kind} CCM on ${a.cloud} (${a.runtime} runtime${providerIds}), profile ${a.profile}`);
  const report = await runConformance(runOptionsOf(a));
  console.log(`\n${renderTable(report)}`);
  if (a.junit) writeFileSync(a.junit, renderJunit(report), { mode: 0o644 });
  if (a.json) writeFileSync(a.json, `${JSON.stringify(report, null, 2)}\n`, { mode: 0o644 });
  return passed(report) ? 0 : 1;
}

/** What the run is given of the arguments, with its progress printed. */
function runOptionsOf(a: ConformanceArgs): ConformanceOptions {
  return {
    cloud: a.cloud,
    ccm: a.ccm,
    runtime: a.runtime,
    timeoutMs: a.timeoutMs,
    profile: a.profile,
    windows: a.windows,
    progress: (l) => console.log(`  ${l}`),
    ...(a.kubeconfig ? { kubeconfig: a.kubeconfig } : {}),
    ...(a.only ? { only: a.only } : {}),
    ...(a.faults ? { faults: a.faults } : {}),
    ...(a.upgradeFrom ? { upgradeFrom: a.upgradeFrom } : {}),
    ...(a.kubeletProviderId ? { kubeletProviderId: true } : {}),
  };
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`ccm-sandbox conformance: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
