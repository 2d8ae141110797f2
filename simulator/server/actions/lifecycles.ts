/**
 * Stage tables (kwok style): for each action command, the states its resource passes through, how
 * long each lasts (delay ± jitter, simulated ms) and what comes next. The last stage has `next: null`.
 * `deleted` as a final state removes the resource.
 */
import type { ActionCommand } from '../../api/schema/actions.ts';
import type { ResourceType } from '../../api/schema/common.ts';
import type { CollectionName } from '../store/state.ts';

export interface Stage {
  state: string;
  delayMs: number;
  jitterMs: number;
  next: string | null;
}

export interface Lifecycle {
  resourceType: ResourceType;
  coll: CollectionName;
  /** Whether stages set the resource's `status` (else they only hold the lock). */
  setsStatus: boolean;
  stages: readonly Stage[];
}

const s = (state: string, delayMs: number, jitterMs: number, next: string | null): Stage => ({ state, delayMs, jitterMs, next });
const server = (stages: Stage[], setsStatus = true): Lifecycle => ({ resourceType: 'server', coll: 'servers', setsStatus, stages });
const lb = (stages: Stage[], setsStatus = true): Lifecycle => ({ resourceType: 'load_balancer', coll: 'load_balancers', setsStatus, stages });
const net = (stages: Stage[]): Lifecycle => ({ resourceType: 'network', coll: 'networks', setsStatus: false, stages });

export const LIFECYCLES: Record<ActionCommand, Lifecycle> = {
  create_server: server([s('initializing', 1000, 300, 'starting'), s('starting', 1000, 300, 'running'), s('running', 0, 0, null)]),
  poweron_server: server([s('starting', 1000, 300, 'running'), s('running', 0, 0, null)]),
  poweroff_server: server([s('stopping', 300, 100, 'off'), s('off', 0, 0, null)]),
  shutdown_server: server([s('stopping', 2000, 500, 'off'), s('off', 0, 0, null)]),
  reboot_server: server([s('stopping', 300, 100, 'starting'), s('starting', 1000, 300, 'running'), s('running', 0, 0, null)]),
  delete_server: server([s('deleting', 500, 100, 'deleted'), s('deleted', 0, 0, null)]),
  attach_server_to_network: server([s('attaching', 300, 100, 'done'), s('done', 0, 0, null)], false),
  detach_server_from_network: server([s('detaching', 300, 100, 'done'), s('done', 0, 0, null)], false),
  update_server: server([s('updating', 200, 50, 'done'), s('done', 0, 0, null)], false),
  create_load_balancer: lb([s('provisioning', 2000, 500, 'active'), s('active', 0, 0, null)]),
  update_load_balancer: lb([s('updating', 300, 100, 'active'), s('active', 0, 0, null)]),
  delete_load_balancer: lb([s('deleting', 500, 100, 'deleted'), s('deleted', 0, 0, null)]),
  attach_load_balancer_to_network: lb([s('attaching', 300, 100, 'done'), s('done', 0, 0, null)], false),
  detach_load_balancer_from_network: lb([s('detaching', 300, 100, 'done'), s('done', 0, 0, null)], false),
  add_route: net([s('adding', 200, 50, 'done'), s('done', 0, 0, null)]),
  delete_route: net([s('deleting', 200, 50, 'done'), s('done', 0, 0, null)]),
};
