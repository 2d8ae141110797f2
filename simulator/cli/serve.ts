/** `simcloud serve`: start the server, print its URL and tokens, stop cleanly on SIGINT/SIGTERM. */
import { parseArgs } from 'node:util';
import pino from 'pino';
import { SeedName } from '../api/schema/internal.ts';
import { startSimcloud } from '../server/server.ts';
import { UsageError } from './usage.ts';

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

export async function serve(args: string[]): Promise<void> {
  const { values: v } = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false });
  if (v.seed !== undefined && !(v.seed in SeedName)) throw new UsageError(`--seed must be one of ${Object.keys(SeedName).join(', ')}`);
  const logger = pino({ level: process.env.SIMCLOUD_LOG_LEVEL ?? (v.quiet ? 'warn' : 'info') }, pino.destination(2));
  const running = await startSimcloud({
    host: v.host, port: number('port', v.port, 65535), dataPath: v.data, seed: v.seed as SeedName | undefined, logger,
    config: {
      ...(v.token === undefined ? {} : { bootstrap: { token: v.token } }),
      ...(v['admin-token'] === undefined ? {} : { adminToken: v['admin-token'] }),
      ...(v.speed === undefined ? {} : { speed: number('speed', v.speed, 1000) }),
      ...(v['delay-ms'] === undefined ? {} : { delays: uniformDelays(number('delay-ms', v['delay-ms'], 3_600_000)) }),
      ...rateLimit(v['rate-limit']),
      ...pools(v.pool),
      dataplane: !v['no-dataplane'],
      allowDestructive: !v['no-destructive'],
      accessLog: !v.quiet,
    },
  });
  process.stdout.write(`simcloud listening on ${running.url}\nproject token: ${running.token}\nadmin token: ${running.config.adminToken}\n`);
  const stop = (signal: string): void => {
    logger.info({ signal }, 'stopping simcloud');
    running.close().then(() => process.exit(0), (err: unknown) => {
      logger.error({ err }, 'error while stopping');
      process.exit(1);
    });
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
