#!/usr/bin/env node
// ccm-sandbox CLI (bin `ccm-sandbox`; npm scripts sandbox:up, :down, :status, :logs, :reset).
//   up [--runtime auto|local|kind|vagrant|existing] [--workers N] [--name NAME] [--lb-strategy lb|ip-block]
//      [--ccm builtin|upstream|command|none] [--ccm-command CMD] [--cloud simcloud|hcloud|linode|digitalocean|phoenixnap|brightbox] [--kubeconfig PATH]
//      [--foreground] [--dry-run] [--faults FILE (JSON {"faults": [rule, ...]}: fault rules simcloud holds from its start)]
//      [--allowed-host NAME[:PORT]]... [--kubelet-provider-id (kubelets register with the cloud's <cloud>://<id>, local runtime)]
//   down | status [--json] | logs [COMPONENT] [--lines N] | reset      (all take --name NAME)
//   --version: this sandbox's version and the Kubernetes release of its control plane
//   env --cloud CLOUD [--name NAME]: export lines pointing any program at the sandbox as that cloud
// Exit codes: 0 success, 1 failure (message and the log to read), 2 usage error (one line: what to fix).
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';
import { cacheBase } from '../control-plane/binaries.ts';
import type { CliOptions } from './args.ts';

// V8's compile cache, for this process and the Node processes a sandbox starts (its daemon, simcloud, our
// CCM inherit the variable): each loads hundreds of modules, and cached code spares most of compiling
// them again on the next `up`. Node checks every entry against its source, so an edited file is compiled
// afresh. A NODE_COMPILE_CACHE of the user's wins; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
process.env.NODE_COMPILE_CACHE ??= join(cacheBase(), 'node-compile-cache');
enableCompileCache(process.env.NODE_COMPILE_CACHE);

// Each command loads only what it needs, after the cache is on: `up` hands over to its daemon without
// loading the sandbox's machinery, which the daemon loads anyway.
async function run(o: CliOptions): Promise<number> {
  switch (o.command) {
    case 'up':
      return (await import('./up.ts')).up(o);
    case 'daemon':
      return (await import('./up.ts')).daemon(o);
    case 'down':
      return (await import('./down.ts')).down(o);
    case 'status':
      return (await import('./status.ts')).status(o);
    case 'logs':
      return (await import('./status.ts')).logs(o);
    case 'reset':
      return (await import('./status.ts')).reset(o);
    case 'env':
      return (await import('./env.ts')).env(o);
  }
}

async function main(argv: string[]): Promise<void> {
  // Everything a sandbox writes (state.json, kubeconfigs, keys, logs, simcloud's data) and everything its
  // processes write inherit this: readable by the user alone.
  process.umask(0o077);
  if (argv[0] === '--version' || argv[0] === 'version') {
    console.log((await import('../version.ts')).versionLine());
    process.exit(0);
  }
  const { parseCli, UsageError } = await import('./args.ts');
  try {
    process.exit(await run(parseCli(argv)));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    console.error(`ccm-sandbox: ${message}`);
    process.exit(err instanceof UsageError ? 2 : 1);
  }
}

void main(process.argv.slice(2));
