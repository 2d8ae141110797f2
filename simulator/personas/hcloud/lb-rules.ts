/** Hetzner's load balancer rules that simcloud does not have: private-IP targets, type limits. */
import type { Sim } from '../../server/context.ts';
import { findRecord } from '../../server/resources/common.ts';
import type { LoadBalancerRec } from '../../server/store/state.ts';
import { LOAD_BALANCER_TYPES } from './catalogue.ts';
import { HcloudError } from './errors.ts';
import type { HcloudLbAttrs } from './lb-attrs.ts';
import type { TargetBody } from './lb-schemas.ts';
import { sid } from './common.ts';

/** use_private_ip needs the LB on a network, and a server target on that same network. */
export function checkPrivateTargets(sim: Sim, networkId: string | null, targets: readonly TargetBody[]): void {
  targets.forEach((t, i) => {
    if (t.use_private_ip !== true) return;
    if (networkId === null) {
      throw new HcloudError(
        'load_balancer_not_attached_to_network',
        'conflict',
        'use_private_ip needs the load balancer on a network',
        `targets.${i}.use_private_ip`,
      );
    }
    const server = t.type === 'server' ? findRecord(sim, 'servers', sid('servers', t.server!.id)) : undefined;
    if (server !== undefined && !server.private_networks.some((p) => p.network_id === networkId)) {
      throw new HcloudError(
        'server_not_attached_to_network',
        'conflict',
        `server ${t.server!.id} is not on the load balancer's network`,
        `targets.${i}.server.id`,
      );
    }
  });
}

/** The LB type's max_services and max_targets. */
export function checkLimits(lb: Pick<LoadBalancerRec, 'services' | 'targets'>, attrs: HcloudLbAttrs): void {
  const type = LOAD_BALANCER_TYPES.find((t) => t.name === attrs.load_balancer_type) ?? LOAD_BALANCER_TYPES[0]!;
  if (lb.services.length > type.max_services) {
    throw new HcloudError('resource_limit_exceeded', 'conflict', `load balancer type ${type.name} allows ${type.max_services} services`);
  }
  if (lb.targets.length > type.max_targets) {
    throw new HcloudError('resource_limit_exceeded', 'conflict', `load balancer type ${type.name} allows ${type.max_targets} targets`);
  }
}
