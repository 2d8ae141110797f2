#!/usr/bin/env node
/**
 * simcloud-ccm's entry point (src/cli.ts is the CCM). It turns Node's on-disk compile cache on before
 * loading anything: compiling the CCM's modules (@kubernetes/client-node's above all) took about 1 s of
 * every start, which a freshly started CCM spends before its first request; from the cache it is about
 * 0.4 s. The cache is NODE_COMPILE_CACHE's when set (the image's, made at build time), else the user's
 * cache directory (not the temp dir: a start must leave nothing behind there); a failure to use it only
 * costs the time.
 */
import { enableCompileCache } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

if (import.meta.main) {
  enableCompileCache(join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'simcloud-ccm', 'node-compile-cache'));
  const { runMain } = await import('./cli.ts');
  runMain();
}
