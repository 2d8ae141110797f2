/**
 * Events on the `/_sim/events` Server-Sent Events stream, one discriminated union on `type`:
 * - `api_call`: every API call, with the caller and cloud-provider method headers the client sent;
 * - `resource_change`: every committed change of a stored resource, itself discriminated on
 *   `resource_type`, so `resource` is the stored record of that type (null on delete);
 * - `target_health`: the data plane's health checks moved one load balancer target on one listener.
 * The stored records are the wire objects with their owning `project_id`, minus the fields the server
 * derives when it answers (resolved targets, a network's members, a server group's firewall policy).
 */
import { z } from 'zod';
import { Action } from './actions.ts';
import { Certificate } from './certificates.ts';
import { Id, Timestamp } from './common.ts';
import { FirewallPolicy } from './firewall-policies.ts';
import { IpBlock } from './ip-blocks.ts';
import { LoadBalancer, TargetHealthStatus } from './load-balancers.ts';
import { Network } from './networks.ts';
import { Project } from './projects.ts';
import { ServerGroup } from './server-groups.ts';
import { Server } from './servers.ts';
import { Tag } from './tags.ts';
import { Tombstone } from './tombstones.ts';

export const SimEventType = { api_call: 'api_call', resource_change: 'resource_change', target_health: 'target_health' } as const;
export type SimEventType = (typeof SimEventType)[keyof typeof SimEventType];

export const ChangeKind = { created: 'created', updated: 'updated', deleted: 'deleted' } as const;
export type ChangeKind = (typeof ChangeKind)[keyof typeof ChangeKind];

const owned = { project_id: Id };

/**
 * Attributes a persona (a real cloud's API that simcloud also speaks) keeps on a record, by persona name:
 * settings that API has and simcloud's does not. Opaque here: each persona validates its own slice with its
 * own schema (docs/adr/0012-personas-as-plug-ins.md). They persist, snapshot and travel in events with the
 * record; simcloud's /v1 view leaves them out. The field keeps its first name, `dialect_attrs`, since stored
 * state and snapshots carry it.
 */
export const PersonaAttrs = z.record(z.string(), z.unknown());
export type PersonaAttrs = z.infer<typeof PersonaAttrs>;

/** Stored records, as they travel in `resource_change` events. */
export const ServerRecord = Server.extend({ ...owned, dialect_attrs: PersonaAttrs.optional() });
export type ServerRecord = z.infer<typeof ServerRecord>;
export const NetworkRecord = Network.omit({ servers: true, load_balancers: true }).extend(owned);
export type NetworkRecord = z.infer<typeof NetworkRecord>;
export const LoadBalancerRecord = LoadBalancer.omit({ resolved_targets: true }).extend({ ...owned, dialect_attrs: PersonaAttrs.optional() });
export type LoadBalancerRecord = z.infer<typeof LoadBalancerRecord>;
export const ServerGroupRecord = ServerGroup.omit({ firewall_policy_id: true }).extend(owned);
export type ServerGroupRecord = z.infer<typeof ServerGroupRecord>;
export const FirewallPolicyRecord = FirewallPolicy.extend({ ...owned, dialect_attrs: PersonaAttrs.optional() });
export type FirewallPolicyRecord = z.infer<typeof FirewallPolicyRecord>;
export const IpBlockRecord = IpBlock.extend(owned);
export type IpBlockRecord = z.infer<typeof IpBlockRecord>;
export const ActionRecord = Action.extend(owned);
export type ActionRecord = z.infer<typeof ActionRecord>;
/** A certificate with its owner and persona attributes (its private key is redacted in events). */
export const CertificateRecord = Certificate.extend({ ...owned, dialect_attrs: PersonaAttrs.optional() });
export type CertificateRecord = z.infer<typeof CertificateRecord>;
/** A deleted server's id, kept with its project. */
export const TombstoneRecord = Tombstone.extend(owned);
export type TombstoneRecord = z.infer<typeof TombstoneRecord>;
/** A tag with its owner and persona attributes. */
export const TagRecord = Tag.extend({ ...owned, dialect_attrs: PersonaAttrs.optional() });
export type TagRecord = z.infer<typeof TagRecord>;

export const ApiCallEvent = z.object({
  type: z.literal(SimEventType.api_call),
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
  /**
   * The `X-Simcloud-Method` header: the cloud-provider method the call belongs to, e.g.
   * `EnsureLoadBalancer` (null when the client did not say, e.g. a CCM that does not send it).
   */
  upstream_method: z.string().nullable(),
  error_code: z.string().nullable(),
});
export type ApiCallEvent = z.infer<typeof ApiCallEvent>;

// The return type is the zod object this builds; spelling it out would repeat the body.
// eslint-disable-next-line @typescript-eslint/explicit-function-return-type
function changeOf<const T extends string, R extends z.ZodType>(resourceType: T, record: R) {
  return z.object({
    type: z.literal(SimEventType.resource_change),
    seq: z.number().int(),
    time: Timestamp,
    change: z.enum(ChangeKind),
    resource_type: z.literal(resourceType),
    resource_id: z.string(),
    project_id: z.string().nullable(),
    /** The API call that made the change, or started the work that made it (an action finishing later): its `request_id`; null when none did. */
    request_id: z.string().nullable(),
    /** The record after the change; null on delete. */
    resource: record.nullable(),
  });
}

export const ResourceChangeEvent = z.discriminatedUnion('resource_type', [
  changeOf('server', ServerRecord),
  changeOf('network', NetworkRecord),
  changeOf('load_balancer', LoadBalancerRecord),
  changeOf('server_group', ServerGroupRecord),
  changeOf('firewall_policy', FirewallPolicyRecord),
  changeOf('ip_block', IpBlockRecord),
  changeOf('action', ActionRecord),
  changeOf('certificate', CertificateRecord),
  changeOf('tombstone', TombstoneRecord),
  changeOf('tag', TagRecord),
  changeOf('project', Project),
]);
export type ResourceChangeEvent = z.infer<typeof ResourceChangeEvent>;
/** A stored record of any type, as carried by a `resource_change` event. */
export type ResourceRecord = NonNullable<ResourceChangeEvent['resource']>;

export const TargetHealthEvent = z.object({
  type: z.literal(SimEventType.target_health),
  seq: z.number().int(),
  time: Timestamp,
  load_balancer_id: z.string(),
  target_id: z.string(),
  listen_port: z.number().int(),
  status: z.enum(TargetHealthStatus),
  project_id: z.string().nullable(),
});
export type TargetHealthEvent = z.infer<typeof TargetHealthEvent>;

export const SimEvent = z.discriminatedUnion('type', [ApiCallEvent, ResourceChangeEvent, TargetHealthEvent]);
export type SimEvent = z.infer<typeof SimEvent>;
