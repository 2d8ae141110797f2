/**
 * The CCM's one pino root logger. `-v` maps klog verbosity to pino levels (0–1 info, 2–3 debug,
 * 4+ trace); children per controller (`logger.child({ controller })`); tokens and credentials are
 * redacted wherever they appear in structured fields.
 */
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** klog `-v` → pino level. */
export function levelForVerbosity(v: number): pino.Level {
  if (v >= 4) return 'trace';
  if (v >= 2) return 'debug';
  return 'info';
}

/** Paths whose values never reach a log line. */
export const RedactedPaths = [
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'password',
  '*.password',
  'config.token',
  'cloudConfig.token',
];

export interface LoggerOptions {
  /** klog-style verbosity (`-v`). */
  readonly verbosity?: number;
  /** Explicit pino level (overrides verbosity), e.g. `silent` in tests. */
  readonly level?: pino.LevelWithSilent;
  readonly destination?: DestinationStream;
  readonly name?: string;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? levelForVerbosity(options.verbosity ?? 0);
  const config = { name: options.name ?? 'simcloud-ccm', level, redact: { paths: RedactedPaths, censor: '[REDACTED]' } };
  return options.destination ? pino(config, options.destination) : pino(config);
}

/** A child logger for one controller (`{ controller: name }`). */
export function controllerLogger(root: Logger, controller: string): Logger {
  return root.child({ controller });
}

/** Replaces every occurrence of `secret` in `text` (for messages that embed configuration). */
export function redactSecret(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('[REDACTED]') : text;
}
