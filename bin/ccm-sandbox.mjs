#!/usr/bin/env node
// The npm package's commands (`ccm-sandbox`, and `simcloud` and `simcloud-ccm` by the same file under
// their own names). Runs on whatever Node npx found (>= 20) and hands over to the TypeScript entry point on
// the pinned Node 24 the package depends on (the `node` package), which strips the types as it loads them
// (strip-types.mjs: Node will not for files under node_modules).
//   ccm-sandbox conformance ...   sandbox/conformance/main.ts (the conformance run)
//   ccm-sandbox demo ...          scripts/demo.ts (the narrated walk-through)
//   ccm-sandbox <anything else>   sandbox/cli/main.ts (up, down, status, logs, reset, --version)
//   simcloud ..., simcloud-ccm ...  simulator/cli/main.ts, src/main.ts
// The CLI runs in a process group of its own and gets each signal this process gets exactly once (a
// terminal's Ctrl-C reaches only this one, the foreground group): a second SIGINT would make the CLI skip
// its cleanup (sandbox/shutdown.ts). Its exit status is this command's. Plain JavaScript on purpose. See docs/adr/0017-the-npm-package.md.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SUBCOMMANDS = { conformance: 'sandbox/conformance/main.ts', demo: 'scripts/demo.ts' };
const COMMANDS = { simcloud: 'simulator/cli/main.ts', 'simcloud-ccm': 'src/main.ts' };

const major = (version) => Number(String(version).replace(/^v/, '').split('.')[0]);

/** The pinned Node of the `node` dependency (not a project's older one), else this one if new enough, else null. */
function pinnedNode() {
  try {
    const manifest = createRequire(import.meta.url).resolve('node/package.json');
    const binary = join(dirname(manifest), 'bin', 'node');
    if (major(JSON.parse(readFileSync(manifest, 'utf8')).version) >= 24 && existsSync(binary)) return binary;
  } catch {
    // not installed (npm install --omit or --ignore-scripts): fall through to the running Node
  }
  return major(process.versions.node) >= 24 ? process.execPath : null;
}

const node = pinnedNode();
if (node === null) {
  console.error(
    `ccm-sandbox: needs Node >= 24 and found ${process.version}; the package's \`node\` dependency installs one: reinstall without --ignore-scripts, or run on Node 24`,
  );
  process.exit(2);
}
const argv = process.argv.slice(2);
const own = (table, key) => (key !== undefined && Object.hasOwn(table, key) ? table[key] : undefined);
const command = own(COMMANDS, basename(process.argv[1] ?? ''));
const subcommand = command ? undefined : own(SUBCOMMANDS, argv[0]);
const entry = command ?? subcommand ?? 'sandbox/cli/main.ts';
const args = subcommand ? argv.slice(1) : argv;
const hooks = pathToFileURL(join(root, 'bin', 'strip-types.mjs')).href;
// INIT_CWD: the conformance run resolves its file arguments from it (npm runs the repository's own scripts
// in its root); here the user's directory is this one, whatever npm script may have started us.
// CCM_SANDBOX_PACKAGE: the hints the sandbox prints name these commands rather than the npm scripts.
const env = { ...process.env, INIT_CWD: process.cwd(), CCM_SANDBOX_PACKAGE: '1', NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${hooks}`.trim() };
const child = spawn(node, [join(root, entry), ...args], { stdio: 'inherit', env, detached: true });
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
for (const signal of SIGNALS) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (signal) {
    for (const s of SIGNALS) process.removeAllListeners(s);
    process.kill(process.pid, signal);
  }
  process.exit(code ?? 1);
});
