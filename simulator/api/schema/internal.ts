/**
 * The internal `/_sim/*` surface (admin token): health, reset, snapshot, seeds, time control, fault
 * rules and project/token management.
 */
import { z } from 'zod';
import { Id, ResourceTypeSchema, Timestamp } from './common.ts';
import { ErrorCodeSchema } from './errors.ts';

export const Health = z.object({
  status: z.literal('ok'),
  version: z.string(),
  uptime_seconds: z.number(),
  schema_version: z.number().int(),
  store: z.object({ kind: z.string(), path: z.string().nullable(), writes: z.number().int(), file_writes: z.number().int() }),
  dataplane: z.boolean(),
});
export type Health = z.infer<typeof Health>;

export const SeedName = { empty: 'empty', demo: 'demo', 'ip-pool-nearly-exhausted': 'ip-pool-nearly-exhausted' } as const;
export type SeedName = (typeof SeedName)[keyof typeof SeedName];

export const SeedRequest = z.strictObject({
  name: z.enum(SeedName),
  /** Project to seed into; the default project when absent. */
  project_id: Id.optional(),
});
export type SeedRequest = z.infer<typeof SeedRequest>;

/** A stored snapshot: the whole state document, opaque to clients. */
export const Snapshot = z.object({ schema_version: z.number().int() }).catchall(z.unknown());
export type Snapshot = z.infer<typeof Snapshot>;

export const TransitionDelay = z.strictObject({
  /** Replaces every stage delay of the resource type. */
  delay_ms: z.number().int().min(0).max(3_600_000).optional(),
  jitter_ms: z.number().int().min(0).max(3_600_000).optional(),
});
export type TransitionDelay = z.infer<typeof TransitionDelay>;

export const TimeState = z.object({
  now: Timestamp,
  speed: z.number(),
  offset_ms: z.number(),
  delays: z.record(z.string(), TransitionDelay),
});
export type TimeState = z.infer<typeof TimeState>;

export const SetTimeRequest = z.strictObject({
  /** Simulated seconds per real second; 0 < speed <= 1000. */
  speed: z.number().gt(0).max(1000).optional(),
  delays: z.partialRecord(ResourceTypeSchema, TransitionDelay).optional(),
});
export type SetTimeRequest = z.infer<typeof SetTimeRequest>;

export const FastForwardRequest = z.strictObject({ ms: z.number().int().min(0).max(31_536_000_000) });
export type FastForwardRequest = z.infer<typeof FastForwardRequest>;

export const FaultKind = {
  /** Add latency (with jitter) before the request is served. */
  latency: 'latency',
  /** Answer with an error status and code instead of serving. */
  error: 'error',
  /** A per-token request budget; over it, 429 with Retry-After and RateLimit-* headers. */
  rate_limit: 'rate_limit',
  /** New resources stay invisible to lists for `hide_seconds`. */
  eventual_consistency: 'eventual_consistency',
  /** Status transitions of the matched resource type stop advancing while the rule exists. */
  stuck_transition: 'stuck_transition',
  /** GETs of servers matching `match.label` answer not_found (with `probability`). */
  intermittent_not_found: 'intermittent_not_found',
} as const;
export type FaultKind = (typeof FaultKind)[keyof typeof FaultKind];

export const FaultMatch = z.strictObject({
  /** HTTP method, e.g. GET. */
  method: z
    .string()
    .regex(/^[A-Za-z]+$/)
    .optional(),
  /** Path glob: `*` matches one segment, `**` anything, e.g. `/v1/servers/*`. */
  path: z.string().startsWith('/').max(512).optional(),
  resource_type: ResourceTypeSchema.optional(),
  /** Token id (tok-…): only requests made with this token. */
  token: Id.optional(),
  /** A label selector on the target resource, e.g. `chaos=true`. */
  label: z.string().min(1).max(256).optional(),
});
export type FaultMatch = z.infer<typeof FaultMatch>;

const common = {
  match: FaultMatch.optional(),
  /** Chance to fire per matching request, 0..1 (default 1). */
  probability: z.number().min(0).max(1).optional(),
  /** Fire at most this many times, then the rule is spent (default unlimited). */
  count: z.number().int().min(1).max(1_000_000).optional(),
};

export const FaultRuleInput = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('latency'),
    ...common,
    latency_ms: z.number().int().min(0).max(60_000),
    jitter_ms: z.number().int().min(0).max(60_000).optional(),
  }),
  z.strictObject({
    kind: z.literal('error'),
    ...common,
    status: z.number().int().min(400).max(599),
    code: ErrorCodeSchema,
    message: z.string().max(255).optional(),
    retry_after_seconds: z.number().int().min(0).max(3600).optional(),
  }),
  z.strictObject({
    kind: z.literal('rate_limit'),
    ...common,
    limit: z.number().int().min(1).max(1_000_000),
    window_seconds: z.number().int().min(1).max(86_400),
  }),
  z.strictObject({ kind: z.literal('eventual_consistency'), ...common, hide_seconds: z.number().min(0).max(3600) }),
  z.strictObject({ kind: z.literal('stuck_transition'), ...common }),
  z.strictObject({ kind: z.literal('intermittent_not_found'), ...common }),
]);
export type FaultRuleInput = z.infer<typeof FaultRuleInput>;

export const FaultRule = z.intersection(FaultRuleInput, z.object({ id: Id, fired: z.number().int(), created: Timestamp }));
export type FaultRule = z.infer<typeof FaultRule>;

export const SeedResponse = z.object({ project_id: z.string(), seed: z.string() });
export type SeedResponse = z.infer<typeof SeedResponse>;

export const FaultRuleResponse = z.object({ fault: FaultRule });
export const FaultRuleListResponse = z.object({ faults: z.array(FaultRule) });
export const OkResponse = z.object({ ok: z.literal(true) });
