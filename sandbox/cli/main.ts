#!/usr/bin/env node
// ccm-sandbox CLI (bin `ccm-sandbox`; npm scripts sandbox:up, :down, :status, :logs, :reset).
//   up [--runtime auto|local|kind|vagrant|existing] [--workers N] [--name NAME] [--lb-strategy lb|ip-block]
//      [--ccm builtin|upstream|command|none] [--ccm-command CMD] [--cloud simcloud|hcloud|linode|digitalocean|phoenixnap|brightbox] [--kubeconfig PATH]
//      [--foreground] [--dry-run]
//      [--allowed-host NAME[:PORT]]...
//   down | status [--json] | logs [COMPONENT] [--lines N] | reset      (all take --name NAME)
// Exit codes: 0 success, 1 failure (message and the log to read), 2 usage error (one line: what to fix).
import { parseCli, UsageError, type CliOptions } from './args.ts';
import { down } from './down.ts';
import { logs, reset, status } from './status.ts';
import { daemon, up } from './up.ts';

async function run(o: CliOptions): Promise<number> {
  switch (o.command) {
    case 'up':
      return up(o);
    case 'daemon':
      return daemon(o);
    case 'down':
      return down(o);
    case 'status':
      return status(o);
    case 'logs':
      return logs(o);
    case 'reset':
      return reset(o);
  }
}

async function main(argv: string[]): Promise<void> {
  // Everything a sandbox writes (state.json, kubeconfigs, keys, logs, simcloud's data) and everything its
  // processes write inherit this: readable by the user alone.
  process.umask(0o077);
  const code = await run(parseCli(argv));
  process.exit(code);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  console.error(`ccm-sandbox: ${message}`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
