#!/usr/bin/env node
// The interception proxy on its own, for a simcloud the sandbox did not start (the Go contract tests):
//   node sandbox/intercept/main.ts --upstream http://127.0.0.1:PORT --dir DIR [--port N] [--log-level L]
// It makes a new CA in DIR (ca.pem, ca-key.pem 0600), prints `interception proxy listening on URL` and
// `interception CA DIR/ca.pem` on stdout, logs to stderr, and stops on SIGTERM/SIGINT. Exit 2 on a bad flag.
import { parseArgs } from 'node:util';
import { UsageError } from '../../lib/usage-error.ts';
import { createSimLogger } from '../../simulator/server/logger.ts';
import { REAL_HOSTS } from '../cloud/registry.ts';
import { createInterceptCa } from './ca.ts';
import { startInterceptProxy } from './proxy.ts';

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      upstream: { type: 'string' },
      dir: { type: 'string' },
      port: { type: 'string', default: '0' },
      'log-level': { type: 'string', default: 'info' },
    },
    strict: true,
  });
  if (values.upstream === undefined || !/^http:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\]):\d+\/?$/.test(values.upstream))
    throw new UsageError("--upstream takes simcloud's loopback URL, e.g. http://127.0.0.1:8787");
  if (values.dir === undefined) throw new UsageError('--dir takes the directory the CA is written to');
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port takes 0-65535, got ${values.port}`);
  process.umask(0o077);
  const ca = await createInterceptCa(
    REAL_HOSTS.map((h) => h.name),
    values.dir,
  );
  const proxy = await startInterceptProxy({
    upstream: values.upstream,
    hosts: REAL_HOSTS,
    ca,
    port,
    logger: createSimLogger(values['log-level'], process.stderr),
  });
  process.stdout.write(`interception proxy listening on ${proxy.url}\ninterception CA ${ca.certFile}\n`);
  const stop = (): void => void proxy.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const usage = err instanceof UsageError || (err instanceof TypeError && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true);
  process.stderr.write(`intercept: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(usage ? 2 : 1);
});
