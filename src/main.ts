#!/usr/bin/env node
/**
 * simcloud-ccm's entry point (src/cli.ts is the CCM). It turns Node's on-disk compile cache on before
 * loading anything: compiling the CCM's modules (@kubernetes/client-node's above all) took about 1 s of
 * every start, which a freshly started CCM spends before its first request; from the cache it is about
 * 0.4 s. The cache lives in NODE_COMPILE_CACHE when set (the image's, made at build time), else in the
 * temp dir; a failure to use it only costs the time.
 */
import { enableCompileCache } from 'node:module';

if (import.meta.main) {
  enableCompileCache();
  const { runMain } = await import('./cli.ts');
  runMain();
}
