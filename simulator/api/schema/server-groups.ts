/** Server groups (Brightbox style): a set of servers, usable as an LB target and as a firewall scope. */
import { z } from 'zod';
import { Id, Labels, ListMeta, Name, Timestamp } from './common.ts';

/** Most server ids one request may carry; a group itself has no size limit and grows by `add_servers`. */
export const MaxServersPerRequest = 1000;

export const ServerGroup = z.object({
  id: Id,
  name: Name,
  description: z.string(),
  labels: Labels,
  servers: z.array(Id),
  firewall_policy_id: Id.nullable(),
  created: Timestamp,
});
export type ServerGroup = z.infer<typeof ServerGroup>;

export const CreateServerGroupRequest = z.strictObject({
  name: Name,
  description: z.string().max(255).optional(),
  labels: Labels.optional(),
  servers: z.array(Id).max(MaxServersPerRequest).optional(),
});
export type CreateServerGroupRequest = z.infer<typeof CreateServerGroupRequest>;

export const UpdateServerGroupRequest = z.strictObject({
  name: Name.optional(),
  description: z.string().max(255).optional(),
  labels: Labels.optional(),
});
export type UpdateServerGroupRequest = z.infer<typeof UpdateServerGroupRequest>;

export const SetServerGroupServersRequest = z.strictObject({ servers: z.array(Id).max(MaxServersPerRequest) });
export type SetServerGroupServersRequest = z.infer<typeof SetServerGroupServersRequest>;

/** `add_servers` / `remove_servers`: a change to the members, idempotent (present ids are kept, absent ones skipped). */
export const ServerGroupMembersRequest = z.strictObject({ servers: z.array(Id).min(1).max(MaxServersPerRequest) });
export type ServerGroupMembersRequest = z.infer<typeof ServerGroupMembersRequest>;

export const ServerGroupResponse = z.object({ server_group: ServerGroup });
export const ServerGroupListResponse = z.object({ server_groups: z.array(ServerGroup), meta: ListMeta });
