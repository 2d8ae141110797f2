// Loaded with `--import` into every Node process of an installed ccm-sandbox (the bin shim puts it in
// NODE_OPTIONS, so the sandbox's own children inherit it). Node strips TypeScript types itself, but not
// from files under node_modules (ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING), which is where an installed
// package lives: this hook does the same stripping for this package's .ts files alone, and leaves every
// other module (a CCM of the user's that happens to be a Node program) to Node. Plain JavaScript on
// purpose; a no-op on a Node without synchronous module hooks. See docs/adr/0017-the-npm-package.md.
import module from 'node:module';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PACKAGE_ROOT = new URL('../', import.meta.url).href;

if (typeof module.registerHooks === 'function' && typeof module.stripTypeScriptTypes === 'function') {
  // stripTypeScriptTypes warns once per process that it is experimental; the same stripping runs
  // unannounced for every .ts file outside node_modules, so the first call happens here, unheard.
  const emitWarning = process.emitWarning;
  process.emitWarning = () => undefined;
  try {
    module.stripTypeScriptTypes('');
  } finally {
    process.emitWarning = emitWarning;
  }
  module.registerHooks({
    load(url, context, nextLoad) {
      if (!url.startsWith(PACKAGE_ROOT) || !url.endsWith('.ts') || url.endsWith('.d.ts')) return nextLoad(url, context);
      const source = readFileSync(fileURLToPath(url), 'utf8');
      return { format: 'module', source: module.stripTypeScriptTypes(source, { mode: 'strip' }), shortCircuit: true };
    },
  });
}
