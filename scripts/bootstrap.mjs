#!/usr/bin/env node
// Runs on whatever Node the machine has (>= 20), before any TypeScript: makes sure the dependencies,
// including the pinned Node 24 in node_modules/.bin, are installed, so `npm test` and
// `npm run sandbox:up` work on a fresh clone with nothing run before them. Plain JavaScript on purpose.
// The npm scripts then name node_modules/.bin/node explicitly: the shell has already looked `node` up
// (the machine's, before the install) and keeps using that path for the rest of the script.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const installedLock = join(root, 'node_modules', '.package-lock.json');
const pinnedNode = join(root, 'node_modules', '.bin', 'node');

function upToDate() {
  if (!existsSync(installedLock) || !existsSync(pinnedNode)) return false;
  const wanted = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages ?? {};
  const have = JSON.parse(readFileSync(installedLock, 'utf8')).packages ?? {};
  return Object.entries(wanted).every(([path, pkg]) => path === '' || pkg.optional || have[path]?.version === pkg.version);
}

if (!upToDate()) {
  console.log('installing dependencies (npm ci) ...');
  // --loglevel=error: this npm runs on the machine's Node, so every package wanting Node >= 22 would print
  // an engine warning, though the install's point is the Node 24 that satisfies them.
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error('npm ci failed: check network access to the npm registry, then run `npm ci` yourself');
    process.exit(r.status ?? 1);
  }
}
