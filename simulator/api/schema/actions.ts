/** Actions: every asynchronous operation returns one; poll `GET /v1/actions/{id}` until it finishes. */
import { z } from 'zod';
import { Id, ResourceRef, Timestamp } from './common.ts';
import { ErrorCodeSchema } from './errors.ts';

export const ActionStatus = { running: 'running', success: 'success', error: 'error' } as const;
export type ActionStatus = (typeof ActionStatus)[keyof typeof ActionStatus];

export const ActionCommand = {
  create_server: 'create_server',
  delete_server: 'delete_server',
  poweron_server: 'poweron_server',
  poweroff_server: 'poweroff_server',
  shutdown_server: 'shutdown_server',
  reboot_server: 'reboot_server',
  attach_server_to_network: 'attach_server_to_network',
  detach_server_from_network: 'detach_server_from_network',
  /** A persona's settings of a server changed (e.g. Hetzner's reverse DNS); status and addresses stay. */
  update_server: 'update_server',
  create_load_balancer: 'create_load_balancer',
  update_load_balancer: 'update_load_balancer',
  delete_load_balancer: 'delete_load_balancer',
  attach_load_balancer_to_network: 'attach_load_balancer_to_network',
  detach_load_balancer_from_network: 'detach_load_balancer_from_network',
  add_route: 'add_route',
  delete_route: 'delete_route',
} as const;
export type ActionCommand = (typeof ActionCommand)[keyof typeof ActionCommand];

export const Action = z.object({
  id: Id,
  command: z.enum(ActionCommand),
  status: z.enum(ActionStatus),
  /** 0..100 */
  progress: z.number().int().min(0).max(100),
  started: Timestamp,
  finished: Timestamp.nullable(),
  resources: z.array(ResourceRef),
  error: z.object({ code: ErrorCodeSchema, message: z.string() }).nullable(),
});
export type Action = z.infer<typeof Action>;

export const ActionResponse = z.object({ action: Action });
