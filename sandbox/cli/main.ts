#!/usr/bin/env node
// ccm-sandbox CLI (bin `ccm-sandbox`, npm scripts sandbox:*). For now `up` starts the local control plane
// in the foreground and keeps it running until Ctrl-C; the full sandbox (simcloud, CCM, virtual
// kubelets, runtimes) builds on this.
import { parseArgs } from 'node:util';
import { ControlPlane } from '../control-plane/control-plane.ts';

class UsageError extends Error {}

async function up(): Promise<void> {
  const started = Date.now();
  const cp = await ControlPlane.start({ onProgress: (m) => console.log(`  ${m}`) });
  console.log(`\ncontrol plane ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`  kubeconfig: ${cp.kubeconfigPath}`);
  console.log(`  export KUBECONFIG=${cp.kubeconfigPath}`);
  console.log(`  try: kubectl --kubeconfig ${cp.kubeconfigPath} get namespaces`);
  console.log('\nrunning; press Ctrl-C to stop');
  await new Promise(() => undefined);
}

async function main(argv: string[]): Promise<void> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: true, options: {} });
  const [command] = positionals;
  if (command === 'up') return up();
  throw new UsageError(`unknown command "${command ?? ''}": use up`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  console.error(`ccm-sandbox: ${message}`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
