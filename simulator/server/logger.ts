/**
 * simcloud's pino logger. Token values (project tokens, token secrets, the admin token, Authorization
 * headers) are censored wherever they sit in a structured field, so a future log line that carries a
 * request, a token record or the config cannot leak one; URLs are scrubbed by the access log itself.
 */
import pino, { type DestinationStream, type Logger } from 'pino';

/** Paths whose values never reach a log line. */
export const SIM_LOG_REDACT = [
  'token',
  '*.token',
  'secret',
  '*.secret',
  'adminToken',
  '*.adminToken',
  'bootstrap.token',
  '*.bootstrap.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'req.headers.authorization',
];

export function createSimLogger(level: string, destination?: DestinationStream): Logger {
  const config = { level, redact: { paths: SIM_LOG_REDACT, censor: '[REDACTED]' } };
  return destination ? pino(config, destination) : pino(config);
}
