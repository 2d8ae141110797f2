/**
 * The CCM's one pino root logger. `-v` maps klog verbosity to pino levels (0–1 info, 2–3 debug,
 * 4+ trace); children per controller (`logger.child({ controller })`); tokens, passwords and
 * authorization headers are redacted in structured fields, at the top level and one below.
 */
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** klog `-v` → pino level. */
export function levelForVerbosity(v: number): pino.Level {
  if (v >= 4) return 'trace';
  if (v >= 2) return 'debug';
  return 'info';
}

/** Keys whose values never reach a log line, at the top of a log call's object or one level below it. */
export const SecretKeys: ReadonlySet<string> = new Set(['token', 'authorization', 'password']);
const Censor = '[REDACTED]';

/**
 * The log call's object with every secret replaced: a secret key (SecretKeys) at the top level or inside
 * a top-level value (`{ config: { token } }`), and inside a `headers` object at either depth. Only what holds
 * a secret is copied, so a call without one (nearly all) costs a few property reads; pino's own `redact`
 * parsed every path again on every call, about a tenth of a millisecond a line under `--jitless`.
 */
export function redactSecrets(obj: Record<string, unknown>): Record<string, unknown> {
  return redactLevel(obj, 1);
}

function redactLevel(obj: Record<string, unknown>, depthLeft: number): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    let redacted = value;
    if (SecretKeys.has(key)) redacted = Censor;
    // A `headers` object is looked into one level further than the rest (`req.headers.authorization`).
    else if (isRecord(value) && (depthLeft > 0 || key === 'headers')) redacted = redactLevel(value, Math.max(0, depthLeft - 1));
    if (redacted !== value) (out ??= copyOf(obj))[key] = redacted;
  }
  return out ?? obj;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A shallow copy that keeps an Error an Error (prototype, message, stack), so pino serialises it as before. */
function copyOf(value: Record<string, unknown>): Record<string, unknown> {
  const copy = Object.defineProperties(
    Object.create(Object.getPrototypeOf(value) as object | null) as object,
    Object.getOwnPropertyDescriptors(value),
  ) as Record<string, unknown>;
  // V8's `stack` accessor reads a slot only the original has.
  if (value instanceof Error) Object.defineProperty(copy, 'stack', { value: value.stack, enumerable: false, writable: true, configurable: true });
  return copy;
}

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
  const config = { name: options.name ?? 'simcloud-ccm', level, formatters: { log: redactSecrets, bindings: redactSecrets } };
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
