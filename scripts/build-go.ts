#!/usr/bin/env node
// `npm run go:build [-- --force] [-- --path]`: finds or builds the upstream Go CCM (go/cmd/upstream-ccm) into
// the cache (see sandbox/ccm/upstream.ts) and prints where it is and what version it reports; `--path` prints
// the binary's path alone (for `$(npm run -s go:build -- --path)`), progress going to stderr.
import { parseArgs } from 'node:util';
import { createExec } from '../sandbox/exec.ts';
import { ensureUpstreamCcmBinary } from '../sandbox/ccm/upstream.ts';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { force: { type: 'boolean', default: false }, path: { type: 'boolean', default: false } } });
  const exec = createExec();
  const started = Date.now();
  const progress = (m: string): void => (values.path ? console.error(`  ${m}`) : console.log(`  ${m}`));
  const binary = await ensureUpstreamCcmBinary({ exec, force: values.force, onProgress: progress });
  if (values.path) return void console.log(binary);
  const version = await exec.run(binary, ['--version'], { allowFailure: true });
  console.log(`  upstream-ccm ${binary}  (${(version.stdout || version.stderr).trim()})`);
  console.log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((err: unknown) => {
  console.error(`go:build: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
