#!/usr/bin/env node
// `npm run build [-- --out FILE]`: bundles the CCM (src/main.ts and everything it imports, dependencies
// included) into one minified ES module, `dist/ccm.mjs` with a source map: what deploy/Dockerfile ships
// and what the benchmark's S12 measures. Why a bundle: V8 keeps every loaded module's source text for lazy
// compilation, and @kubernetes/client-node's generated sources are ~28 MB of it; minified and tree-shaken
// the import costs 73 MB RSS instead of 116 (docs/adr/0004-ccm-ships-as-a-bundle.md).
import { statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build, type Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CCM_BUNDLE = fileURLToPath(new URL('../dist/ccm.mjs', import.meta.url));

const BUILTIN = new RegExp(`^(node:)?(${builtinModules.map((m) => m.replace(/[/.]/g, '\\$&')).join('|')})$`);

/**
 * Node's built-in modules are loaded with require(), not import: an ES import of a built-in builds its
 * module namespace, which reads every export, and `node:http`'s include lazy getters that load more of
 * Node (about 12 MB RSS more than require('node:http'), measured on Node 24; docs/adr/0004).
 */
const builtinsViaRequire: Plugin = {
  name: 'builtins-via-require',
  setup(b) {
    b.onResolve({ filter: BUILTIN }, (args) =>
      args.namespace === 'node-builtin' ? { path: args.path, external: true } : { path: args.path, namespace: 'node-builtin' },
    );
    b.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

/** Bundles the CCM into `outFile` (and `outFile.map`); returns its size in bytes. */
export async function buildCcmBundle(outFile = CCM_BUNDLE): Promise<number> {
  await build({
    absWorkingDir: ROOT,
    entryPoints: ['src/main.ts'],
    outfile: outFile,
    bundle: true,
    minify: true,
    sourcemap: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    logLevel: 'warning',
    // Licence comments go to ccm.mjs.LEGAL.txt (shipped beside it): one of them has a non-ASCII name, and a
    // single such character makes V8 hold the whole 3 MB source as a two-byte string (+3 MB of heap).
    legalComments: 'external',
    plugins: [builtinsViaRequire],
    // The CCM ships speaking HTTP/1.1 through lib/http1.ts (ADR 0015). undici is a candidate the compare bench
    // measures (CCM_HTTP_TRANSPORT=undici|http2, loaded only when chosen): it stays out of the bundle and is
    // resolved from node_modules where one is beside it, as in the bench.
    external: ['undici'],
    // CommonJS dependencies call require(); an ES module has none of its own.
    banner: { js: "import { createRequire as __ccmRequire } from 'node:module'; const require = __ccmRequire(import.meta.url);" },
  });
  return statSync(outFile).size;
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const started = Date.now();
  buildCcmBundle(values.out)
    .then((bytes) => console.log(`${values.out ?? CCM_BUNDLE}: ${(bytes / 1e6).toFixed(1)} MB in ${((Date.now() - started) / 1000).toFixed(1)} s`))
    .catch((err: unknown) => {
      console.error(`build: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    });
}
