#!/usr/bin/env node
// `npm run controlplane:build [-- --force]`: finds or builds etcd, kube-apiserver and
// kube-controller-manager for the pinned release (see sandbox/control-plane/binaries.ts) and prints
// where they are and what version each reports.
import { parseArgs } from 'node:util';
import { createExec } from '../sandbox/exec.ts';
import { binaryVersions, ensureBinaries, pinnedVersions } from '../sandbox/control-plane/binaries.ts';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { force: { type: 'boolean', default: false } } });
  const exec = createExec();
  const started = Date.now();
  const pinned = pinnedVersions();
  console.log(`control plane: Kubernetes ${pinned.kubernetes}, etcd ${pinned.etcd}`);
  const binaries = await ensureBinaries({ exec, force: values.force, onProgress: (m) => console.log(`  ${m}`) });
  const versions = await binaryVersions(exec, binaries);
  for (const [component, path] of Object.entries(binaries)) console.log(`  ${component.padEnd(24)} ${path}  (${versions[component as keyof typeof versions]})`);
  console.log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((err: unknown) => {
  console.error(`controlplane:build: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
