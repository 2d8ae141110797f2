/** A simcloud load balancer as Hetzner's JSON: type, public/private net, services, targets with health. */
import type { LoadBalancerTarget, ResolvedTarget } from '../../api/schema/load-balancers.ts';
import type { Sim } from '../../server/context.ts';
import { regionById } from '../../server/resources/catalogue/data.ts';
import { toLoadBalancer } from '../../server/resources/load-balancers/service.ts';
import type { LoadBalancerRec } from '../../server/store/state.ts';
import { numericIdOf } from '../numeric-ids.ts';
import { LOAD_BALANCER_TYPES, loadBalancerTypeView, locationView } from './catalogue.ts';
import { attrsOf, type HcloudLbAttrs } from './lb-attrs.ts';
import { serviceView, shownServices } from './lb-convert.ts';
import type * as R from './responses.ts';
import { generatedDnsPtr } from './views.ts';
import { hcloudAddresses } from './addresses.ts';

type Health = ResolvedTarget['health'];

type ServerTarget = Extract<R.LbTarget, { type: 'server' }>;

const healthStatus = (health: Health): R.LbTarget['health_status'] => health.map((h) => ({ listen_port: h.listen_port, status: h.status }));

function serverTarget(serverId: string, health: Health, usePrivate: boolean): ServerTarget {
  return { type: 'server', server: { id: numericIdOf(serverId) }, health_status: healthStatus(health), use_private_ip: usePrivate };
}

/** `lb`: whether the load balancer is on a network, and how its addresses are shown (addresses.ts). */
function targetView(
  t: LoadBalancerTarget,
  resolved: ResolvedTarget[],
  attrs: HcloudLbAttrs,
  lb: { onNetwork: boolean; showIp: (ip: string) => string },
): R.LbTarget | null {
  const { onNetwork, showIp } = lb;
  const usePrivate = (key: string): boolean => attrs.use_private_ip[key] ?? onNetwork;
  if (t.kind === 'server') {
    const r = resolved.find((x) => x.server_id === t.server_id);
    return serverTarget(t.server_id, r?.health ?? [], usePrivate(`server:${numericIdOf(t.server_id)}`));
  }
  if (t.kind === 'ip') return { type: 'ip', ip: { ip: showIp(t.ip) }, health_status: healthStatus(resolved.find((x) => x.id === `ip:${t.ip}`)?.health ?? []) };
  if (t.kind !== 'label_selector') return null; // server groups have no Hetzner counterpart
  const key = `label_selector:${t.label_selector}`;
  const members = resolved.filter((r) => r.server_id !== null).map((r) => serverTarget(r.server_id!, r.health, usePrivate(key)));
  return { type: 'label_selector', label_selector: { selector: t.label_selector }, use_private_ip: usePrivate(key), health_status: [], targets: members };
}

export function loadBalancerView(sim: Sim, lb: LoadBalancerRec): R.LoadBalancer {
  const attrs = attrsOf(lb);
  const view = toLoadBalancer(sim, lb);
  const type = LOAD_BALANCER_TYPES.find((t) => t.name === attrs.load_balancer_type) ?? LOAD_BALANCER_TYPES[0]!;
  const region = regionById(lb.location);
  const shown = hcloudAddresses(sim).show;
  if (region === undefined) throw new Error(`load balancer ${lb.id}'s location ${lb.location} is not in the catalogue`);
  return {
    id: numericIdOf(lb.id),
    name: lb.name,
    created: lb.created,
    labels: lb.labels,
    public_net: {
      enabled: lb.public_interface,
      ipv4: { ip: lb.public_ipv4, dns_ptr: attrs.dns_ptr ?? generatedDnsPtr(lb.public_ipv4), blocked: false },
      ipv6: { ip: lb.public_ipv6, dns_ptr: attrs.dns_ptr_ipv6 ?? generatedDnsPtr(lb.public_ipv6), blocked: false },
    },
    private_net: lb.network_id === null || lb.private_ipv4 === null ? [] : [{ network: numericIdOf(lb.network_id), ip: shown.ip(lb.private_ipv4) }],
    location: locationView(region),
    load_balancer_type: loadBalancerTypeView(type),
    protection: { delete: false },
    services: shownServices(lb.services, attrs).map((s) => serviceView(s, attrs.services[String(s.listen_port)])),
    targets: lb.targets
      .map((t) => targetView(t, view.resolved_targets, attrs, { onNetwork: lb.network_id !== null, showIp: shown.ip }))
      .filter((t) => t !== null),
    algorithm: { type: lb.algorithm },
    included_traffic: 0,
    outgoing_traffic: null,
    ingoing_traffic: null,
  };
}
