/** Events on the `/_sim/events` Server-Sent Events stream: every API call and every resource change. */
import { z } from 'zod';
import { ResourceTypeSchema, Timestamp } from './common.ts';

export const SimEventType = { api_call: 'api_call', resource_change: 'resource_change' } as const;
export type SimEventType = (typeof SimEventType)[keyof typeof SimEventType];

export const ChangeKind = { created: 'created', updated: 'updated', deleted: 'deleted' } as const;
export type ChangeKind = (typeof ChangeKind)[keyof typeof ChangeKind];

export const ApiCallEvent = z.object({
  type: z.literal('api_call'),
  seq: z.number().int(),
  time: Timestamp,
  method: z.string(),
  path: z.string(),
  status: z.number().int(),
  latency_ms: z.number(),
  project_id: z.string().nullable(),
  request_id: z.string(),
  /** The `X-Simcloud-Caller` header, e.g. `service-lb-controller default/web`. */
  caller: z.string().nullable(),
  error_code: z.string().nullable(),
});
export type ApiCallEvent = z.infer<typeof ApiCallEvent>;

export const ResourceChangeEvent = z.object({
  type: z.literal('resource_change'),
  seq: z.number().int(),
  time: Timestamp,
  change: z.enum(ChangeKind),
  resource_type: ResourceTypeSchema,
  resource_id: z.string(),
  project_id: z.string().nullable(),
  /** The resource after the change (absent on delete). */
  resource: z.record(z.string(), z.unknown()).nullable(),
});
export type ResourceChangeEvent = z.infer<typeof ResourceChangeEvent>;

export const SimEvent = z.discriminatedUnion('type', [ApiCallEvent, ResourceChangeEvent]);
export type SimEvent = z.infer<typeof SimEvent>;
