// The environment of a CCM author's shell, for the tests that run the npm package and the GitHub Action as
// that author would: none of the npm variables the tests run under (INIT_CWD names this checkout), the test's
// Node 24 first on PATH (what setup-node, or the package's optional `node`, gives), sandbox state and Node's
// compile cache (npm's own included, which would land in TMPDIR) under the test's directory.
import { delimiter, dirname, join } from 'node:path';

export function userShellEnv(dir: string): Record<string, string> {
  const inherited = Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !/^(npm_|INIT_CWD$)/i.test(e[0]));
  return {
    ...Object.fromEntries(inherited),
    PATH: [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter),
    XDG_STATE_HOME: join(dir, 'state'),
    NODE_COMPILE_CACHE: join(dir, 'node-compile-cache'),
    NO_UPDATE_NOTIFIER: '1',
  };
}
