/**
 * simcloud-ccm: the cloud-controller-manager for simcloud. Flags → config (flag > env > cloud-config > defaults)
 * → probe → leader election → controllers. Exit codes: 0 after SIGINT/SIGTERM, 1 on a fatal error (bad
 * configuration, failed probe, lost leadership, a crashed controller), 2 on a usage error. Failures at start print one line.
 */
import { KubeConfigError } from './kube/kubeconfig.ts';
import { UsageError } from '../lib/usage-error.ts';
import { ConfigError, loadConfig, parseFlags, redactedConfig, usage } from './config/load.ts';
import { Manager } from './manager.ts';
// The providers this CCM ships register themselves (upstream's main imports its providers the same way).
import './simcloud/register.ts';
import { createLogger, redactSecret } from './telemetry/logger.ts';

function fail(message: string, code: number): number {
  process.stderr.write(`simcloud-ccm: ${message}\n`);
  return code;
}

function configOrExit(argv: readonly string[]): ReturnType<typeof loadConfig> | number {
  try {
    if (parseFlags(argv).help) {
      process.stdout.write(`${usage()}\n`);
      return 0;
    }
    return loadConfig({ argv, env: process.env });
  } catch (err) {
    if (err instanceof UsageError) return fail(err.message, 2);
    if (err instanceof ConfigError) return fail(err.problems.join('\n  '), 1);
    throw err;
  }
}

export async function main(argv: readonly string[]): Promise<number> {
  const config = configOrExit(argv);
  if (typeof config === 'number') return config;
  // pino-pretty and the terminal modules it needs load only for the pretty format, so a JSON start (the
  // default, and the Deployment's) skips evaluating them: about 4 % of evaluating the bundle.
  const destination = config.logFormat === 'pretty' ? (await import('pino-pretty')).default({ destination: 2 }) : undefined;
  const logger = createLogger({ verbosity: config.verbosity, ...(destination ? { destination } : {}) });
  logger.debug({ config: redactedConfig(config) }, 'configuration');
  let manager: Manager;
  try {
    manager = await Manager.start({ config, logger });
  } catch (err) {
    // A kubeconfig the CCM cannot use, or an unknown --cloud-provider, is bad input, like a bad flag: exit 2.
    return fail(
      redactSecret(err instanceof Error ? err.message : String(err), config.token),
      err instanceof KubeConfigError || err instanceof UsageError ? 2 : 1,
    );
  }
  const onSignal = (signal: NodeJS.Signals): void => {
    logger.info({ signal }, 'shutting down');
    void manager.stop();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const code = await manager.done;
  const failure = await manager.failure();
  if (failure !== undefined) logger.error(failure);
  logger.flush();
  return code;
}

/** Runs `main` on the process's arguments and exits with its code. */
export function runMain(): void {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`simcloud-ccm: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
