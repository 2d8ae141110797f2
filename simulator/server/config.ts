/** simcloud server configuration: one zod schema with defaults; `parseConfig` fails naming every bad field. */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { splitHost } from '../api/host-check.ts';
import { Cidr } from '../api/schema/common.ts';
import { FaultRuleInput, TransitionDelay } from '../api/schema/internal.ts';
import { DEFAULT_POOLS } from './store/state.ts';

export const SimConfig = z.strictObject({
  /** Bearer token for `/_sim/*`; random when not given (a fixed default would be a known password). */
  adminToken: z
    .string()
    .min(8)
    .default(() => randomToken('simcloud-admin')),
  /** Project and token created when the store has no project yet. */
  bootstrap: z
    .strictObject({
      project: z.string().default('default'),
      token: z
        .string()
        .min(16)
        .default(() => randomToken('simcloud')),
    })
    .prefault({}),
  pools: z
    .strictObject({
      server_public: Cidr.default(DEFAULT_POOLS.server_public),
      lb_vip: Cidr.default(DEFAULT_POOLS.lb_vip),
      ip_block: Cidr.default(DEFAULT_POOLS.ip_block),
      private_networks: Cidr.default(DEFAULT_POOLS.private_networks),
      ip_block_size: z.number().int().min(24).max(30).default(DEFAULT_POOLS.ip_block_size),
    })
    .prefault({}),
  /** Per-resource-type transition delay overrides (see the stage tables). */
  delays: z.record(z.string(), TransitionDelay).default({}),
  speed: z.number().gt(0).max(1000).default(1),
  /** Default per-token budget; null = unlimited (rate_limit fault rules still apply). */
  rateLimit: z
    .strictObject({ limit: z.number().int().min(1), windowSeconds: z.number().int().min(1) })
    .nullable()
    .default(null),
  /** Run the TCP data plane for load balancers. */
  dataplane: z.boolean().default(true),
  /** Allow reset, snapshot load and seed on `/_sim`. */
  allowDestructive: z.boolean().default(true),
  /** Events kept for SSE replay (Last-Event-ID). */
  eventBuffer: z.number().int().min(0).max(100_000).default(1000),
  /** Log every request at info (else debug). */
  accessLog: z.boolean().default(true),
  /** Fault rules in force from the start (`--faults FILE`), as if each were posted to `/_sim/faults`. */
  faults: z.array(FaultRuleInput).default([]),
  /** Host names accepted besides loopback and the bound address (`--allowed-host`; DNS-rebinding guard). */
  allowedHosts: z.array(z.string().refine((h) => splitHost(h) !== undefined, 'a host name or NAME:PORT')).default([]),
});
export type SimConfig = z.infer<typeof SimConfig>;
export type SimConfigInput = z.input<typeof SimConfig>;

/** 32 random bytes, URL-safe, with a prefix saying what the token is for. */
export function randomToken(prefix: string): string {
  return `${prefix}-${randomBytes(32).toString('base64url')}`;
}

export function parseConfig(input: SimConfigInput = {}): SimConfig {
  return SimConfig.parse(input);
}
