/**
 * simcloud records as Hetzner Cloud JSON (the shapes hcloud-go's schema package parses): numeric ids, nested
 * location/server type/image objects, public_net/private_net, Hetzner action commands. Pure functions of the
 * store; the load balancer view is in lb-view.ts.
 */
import { isIPv6 } from 'node:net';
import { canonicalIpv6, enclosingRange6, formatCidr6 } from '../../../lib/ip.ts';
import type { Action } from '../../api/schema/actions.ts';
import type { Server } from '../../api/schema/servers.ts';
import type { Network } from '../../api/schema/networks.ts';
import { IMAGES, SERVER_TYPES, regionById, zoneById } from '../../server/resources/catalogue/data.ts';
import type { Sim } from '../../server/context.ts';
import { findRecord } from '../../server/resources/common.ts';
import { loadBalancersTargeting } from '../../server/resources/load-balancers/service.ts';
import { SERVER_IPV6_PREFIX } from '../../server/store/state.ts';
import { numericIdOf } from '../numeric-ids.ts';
import { datacenterView, imageView, locationView, serverTypeView } from './catalogue.ts';
import type * as R from './responses.ts';
import { serverAttrsOf } from './server-attrs.ts';
import { hcloudAddresses } from './addresses.ts';

/** simcloud action commands as Hetzner names them (power actions are start/stop_server there). */
const COMMANDS: Record<Action['command'], string> = {
  create_server: 'create_server',
  delete_server: 'delete_server',
  poweron_server: 'start_server',
  poweroff_server: 'stop_server',
  shutdown_server: 'shutdown_server',
  reboot_server: 'reboot_server',
  attach_server_to_network: 'attach_to_network',
  detach_server_from_network: 'detach_from_network',
  update_server: 'update_server',
  create_load_balancer: 'create_load_balancer',
  update_load_balancer: 'update_load_balancer',
  delete_load_balancer: 'delete_load_balancer',
  attach_load_balancer_to_network: 'attach_to_network',
  detach_load_balancer_from_network: 'detach_from_network',
  add_route: 'add_route',
  delete_route: 'delete_route',
};

export function actionView(a: Action, command?: string): R.Action {
  return {
    id: numericIdOf(a.id),
    command: command ?? COMMANDS[a.command],
    status: a.status,
    progress: a.progress,
    started: a.started,
    finished: a.finished,
    error: a.error,
    resources: a.resources.map((r) => ({ id: numericIdOf(r.id), type: r.type })),
  };
}

/** The reverse DNS an address has until change_dns_ptr sets one (an IPv6 address's colons become dashes). */
export const generatedDnsPtr = (ip: string): string => `static.${ip.replaceAll(':', '-')}.clients.sim`;

/** Whether `ip` (as a client wrote it) is the IPv6 address `stored` (canonical); false for IPv4 and null. */
export const sameIpv6 = (ip: string, stored: string | null): boolean => stored !== null && isIPv6(ip) && canonicalIpv6(ip) === stored;

/** A MAC address derived from the server and network numbers, stable across restarts. */
function mac(serverId: number, networkId: number): string {
  const bytes = [0x86, 0x00, (serverId >> 16) & 0xff, (serverId >> 8) & 0xff, serverId & 0xff, networkId & 0xff];
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

/**
 * A server's public addresses with their reverse DNS (set by change_dns_ptr, else generated for the IPv4).
 * Hetzner shows the IPv6 as the server's /64 network (the server answers on its ::1; data only here) and lists
 * each of its addresses that has a name.
 */
function publicNetView(sim: Sim, s: Server, id: number): R.Server['public_net'] {
  const dnsPtr = serverAttrsOf(findRecord(sim, 'servers', s.id) ?? s).dns_ptr;
  return {
    ipv4: s.public_ipv4 === null ? null : { id, ip: s.public_ipv4, blocked: false, dns_ptr: dnsPtr[s.public_ipv4] ?? generatedDnsPtr(s.public_ipv4) },
    ipv6:
      s.public_ipv6 === null
        ? null
        : {
            id,
            ip: formatCidr6(enclosingRange6(s.public_ipv6, SERVER_IPV6_PREFIX)),
            blocked: false,
            dns_ptr: Object.entries(dnsPtr)
              .filter(([ip]) => isIPv6(ip))
              .map(([ip, name]) => ({ ip, dns_ptr: name })),
          },
    floating_ips: [],
    firewalls: [],
  };
}

/** A catalogue entry a stored server names (its create checked it), else an error naming what is missing. */
function known<T>(what: string, id: string, entry: T | undefined): T {
  if (entry === undefined) throw new Error(`server's ${what} ${id} is not in the catalogue`);
  return entry;
}

export function serverView(sim: Sim, s: Server): R.Server {
  const id = numericIdOf(s.id);
  const zone = known('zone', s.zone, zoneById(s.zone));
  const type = known(
    'server type',
    s.server_type,
    SERVER_TYPES.find((t) => t.id === s.server_type),
  );
  const image = IMAGES.find((i) => i.id === s.image);
  const region = known('region', s.region, regionById(s.region));
  const lbs = loadBalancersTargeting(sim, s.id).map((lb) => numericIdOf(lb.id));
  const shown = hcloudAddresses(sim).show;
  return {
    id,
    name: s.name,
    status: s.status,
    created: s.created,
    public_net: publicNetView(sim, s, id),
    private_net: s.private_networks.map((p) => ({
      network: numericIdOf(p.network_id),
      ip: shown.ip(p.ip),
      alias_ips: [],
      mac_address: mac(id, numericIdOf(p.network_id)),
    })),
    server_type: serverTypeView(type),
    datacenter: datacenterView(zone),
    location: locationView(region),
    image: image === undefined ? null : imageView(image),
    labels: s.labels,
    locked: s.locked,
    protection: { delete: false, rebuild: false },
    included_traffic: 0,
    outgoing_traffic: null,
    ingoing_traffic: null,
    backup_window: null,
    rescue_enabled: false,
    iso: null,
    volumes: [],
    primary_disk_size: type.disk_gb,
    placement_group: null,
    load_balancers: lbs,
  };
}

/** Ranges, gateways and route ends in the presented block as Hetzner's (addresses.ts). */
export function networkView(sim: Sim, n: Network): R.Network {
  const shown = hcloudAddresses(sim).show;
  return {
    id: numericIdOf(n.id),
    name: n.name,
    created: n.created,
    ip_range: shown.cidr(n.ip_range),
    subnets: n.subnets.map((sn) => ({
      type: 'cloud' as const,
      ip_range: shown.cidr(sn.ip_range),
      network_zone: zoneById(sn.zone)?.region ?? sn.zone,
      gateway: shown.ip(sn.gateway),
    })),
    routes: n.routes.map((r) => ({ destination: shown.cidr(r.destination), gateway: shown.ip(r.gateway) })),
    servers: n.servers.map(numericIdOf),
    load_balancers: n.load_balancers.map(numericIdOf),
    protection: { delete: false },
    labels: n.labels,
    expose_routes_to_vswitch: false,
  };
}
