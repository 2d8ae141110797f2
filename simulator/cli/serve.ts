/**
 * `simcloud serve`: start the server, print its URL (and the tokens it generated, once, on stdout), stop
 * cleanly on SIGINT/SIGTERM. Tokens come from --token/--admin-token or SIMCLOUD_TOKEN/SIMCLOUD_ADMIN_TOKEN
 * (the environment keeps them out of `ps`); without them each run gets random ones. A non-loopback bind
 * needs explicit tokens: other machines can reach it.
 */
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { AllowedHostError, allowedHostsFrom } from '../api/host-check.ts';
import { FaultsFileError, readFaultsFile } from '../api/faults-file.ts';
import { SeedName } from '../api/schema/internal.ts';
import { randomToken } from '../server/config.ts';
import { createSimLogger } from '../server/logger.ts';
import { startSimcloud } from '../server/server.ts';
import { PERSONAS } from '../personas/registry.ts';
import { UsageError } from '../../lib/usage-error.ts';

const OPTIONS = {
  host: { type: 'string', default: '127.0.0.1' },
  port: { type: 'string', default: '8787' },
  data: { type: 'string' },
  seed: { type: 'string' },
  token: { type: 'string' },
  'admin-token': { type: 'string' },
  speed: { type: 'string' },
  'delay-ms': { type: 'string' },
  'no-dataplane': { type: 'boolean', default: false },
  'no-destructive': { type: 'boolean', default: false },
  'rate-limit': { type: 'string' },
  pool: { type: 'string', multiple: true },
  quiet: { type: 'boolean', default: false },
  'allowed-host': { type: 'string', multiple: true },
  faults: { type: 'string' },
} as const;

function number(name: string, value: string, max: number): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > max) throw new UsageError(`--${name} must be a number from 0 to ${max}, got "${value}"`);
  return n;
}

/** `--rate-limit 3600/3600`: requests per window seconds, per token. */
function rateLimit(value: string | undefined): { rateLimit?: { limit: number; windowSeconds: number } } {
  if (value === undefined) return {};
  const m = /^(\d+)\/(\d+)$/.exec(value);
  if (m === null || Number(m[1]) < 1 || Number(m[2]) < 1) throw new UsageError(`--rate-limit takes REQUESTS/SECONDS, e.g. 3600/3600, got "${value}"`);
  return { rateLimit: { limit: Number(m[1]), windowSeconds: Number(m[2]) } };
}

const POOL_NAMES = ['server_public', 'lb_vip', 'ip_block', 'private_networks'] as const;

/** `--pool lb_vip=127.51.0.0/16` (repeatable): address pools other than the loopback defaults. */
function pools(values: string[] | undefined): { pools?: Record<string, string> } {
  if (values === undefined) return {};
  const out: Record<string, string> = {};
  for (const v of values) {
    const [name, cidr] = v.split('=');
    if (!POOL_NAMES.includes(name as (typeof POOL_NAMES)[number]) || cidr === undefined) {
      throw new UsageError(`--pool takes NAME=CIDR with NAME one of ${POOL_NAMES.join(', ')}, got "${v}"`);
    }
    out[name!] = cidr;
  }
  return { pools: out };
}

/** Every resource type's transitions take `ms` (no jitter): fast, deterministic test servers. */
function uniformDelays(ms: number): Record<string, { delay_ms: number; jitter_ms: number }> {
  return Object.fromEntries(['server', 'load_balancer', 'network'].map((t) => [t, { delay_ms: ms, jitter_ms: 0 }]));
}

const isLoopback = (host: string): boolean => host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));

interface Tokens {
  readonly token: string;
  readonly adminToken: string;
  /** What to print: only tokens this run generated (given ones are the caller's to keep). */
  readonly generated: string[];
}

/** Explicit tokens (flag, then environment) or random ones; refuses to expose generated ones beyond loopback. */
function tokens(host: string, given: { token?: string; adminToken?: string }): Tokens {
  const token = given.token ?? process.env.SIMCLOUD_TOKEN;
  const adminToken = given.adminToken ?? process.env.SIMCLOUD_ADMIN_TOKEN;
  if (!isLoopback(host) && (token === undefined || adminToken === undefined)) {
    throw new UsageError(
      `--host ${host} is reachable from other machines: pass --token and --admin-token (or SIMCLOUD_TOKEN and SIMCLOUD_ADMIN_TOKEN) to serve beyond loopback`,
    );
  }
  const generated: string[] = [];
  const pick = (value: string | undefined, prefix: string, label: string): string => {
    if (value !== undefined) return value;
    const made = randomToken(prefix);
    generated.push(`${label}: ${made}`);
    return made;
  };
  return { token: pick(token, 'simcloud', 'project token'), adminToken: pick(adminToken, 'simcloud-admin', 'admin token'), generated };
}

/** `--faults FILE`: fault rules in force from the first request. */
function faults(file: string | undefined): { faults?: ReturnType<typeof readFaultsFile> } {
  if (file === undefined) return {};
  try {
    return { faults: readFaultsFile(file) };
  } catch (err) {
    throw err instanceof FaultsFileError ? new UsageError(`--faults: ${err.message}`) : err;
  }
}

function allowedHosts(flags: string[] | undefined): string[] {
  try {
    return allowedHostsFrom(flags, process.env.SIMCLOUD_ALLOWED_HOSTS, '--allowed-host');
  } catch (err) {
    throw err instanceof AllowedHostError ? new UsageError(err.message) : err;
  }
}

export async function serve(args: string[]): Promise<void> {
  const { values: v } = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false });
  if (v.seed !== undefined && !Object.hasOwn(SeedName, v.seed)) throw new UsageError(`--seed must be one of ${Object.keys(SeedName).join(', ')}`);
  const t = tokens(v.host, { token: v.token, adminToken: v['admin-token'] });
  process.umask(0o077); // the data file, its journals and any log this process creates are the user's alone
  const logger = createSimLogger(process.env.SIMCLOUD_LOG_LEVEL ?? (v.quiet ? 'warn' : 'info'), pino.destination(2));
  const running = await startSimcloud({
    host: v.host,
    port: number('port', v.port, 65535),
    dataPath: v.data,
    seed: v.seed as SeedName | undefined,
    logger,
    personas: PERSONAS,
    config: {
      bootstrap: { token: t.token },
      adminToken: t.adminToken,
      allowedHosts: allowedHosts(v['allowed-host']),
      ...(v.speed === undefined ? {} : { speed: number('speed', v.speed, 1000) }),
      ...(v['delay-ms'] === undefined ? {} : { delays: uniformDelays(number('delay-ms', v['delay-ms'], 3_600_000)) }),
      ...rateLimit(v['rate-limit']),
      ...pools(v.pool),
      ...faults(v.faults),
      dataplane: !v['no-dataplane'],
      allowDestructive: !v['no-destructive'],
      accessLog: !v.quiet,
    },
  });
  process.stdout.write(`simcloud listening on ${running.url}\n${t.generated.map((line) => `${line}\n`).join('')}`);
  const stop = (signal: string): void => {
    logger.info({ signal }, 'stopping simcloud');
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
