/**
 * How closely the Hetzner persona follows the Hetzner Cloud API: a status per endpoint it serves (keyed by
 * route operation, so a route without an entry fails parity.test.ts), the endpoints of the same resources it
 * does not serve, and a status per field of the objects it returns. scripts/generate-docs.ts renders this as
 * docs/reference/hcloud-parity.md.
 */
export const Parity = { emulated: 'emulated', difference: 'emulated with a difference', none: 'not emulated' } as const;
export type Parity = (typeof Parity)[keyof typeof Parity];

export interface ParityEntry {
  status: Parity;
  note?: string;
}

const ok: ParityEntry = { status: Parity.emulated };
const diff = (note: string): ParityEntry => ({ status: Parity.difference, note });
const none = (note?: string): ParityEntry => ({ status: Parity.none, ...(note === undefined ? {} : { note }) });

const STATIC = 'a fixed list: simcloud\'s catalogue (regions are locations, zones are datacenters)';
const ACTION_ON_LB = 'the action reports this command when created; read back later it says update_load_balancer';

/** Served endpoints, by route operation. */
export const ENDPOINTS: Readonly<Record<string, ParityEntry>> = {
  'hcloud.locations.list': diff(STATIC), 'hcloud.locations.get': ok,
  'hcloud.datacenters.list': diff(STATIC), 'hcloud.datacenters.get': ok,
  'hcloud.server_types.list': diff(`${STATIC}; no prices`), 'hcloud.server_types.get': ok,
  'hcloud.images.list': diff('system images only; filters other than name are refused'), 'hcloud.images.get': ok,
  'hcloud.load_balancer_types.list': diff('lb11, lb21, lb31 without prices'), 'hcloud.load_balancer_types.get': ok,
  'hcloud.certificates.list': diff('simcloud has no certificates: always empty'), 'hcloud.certificates.get': diff('always not_found'),
  'hcloud.servers.list': diff('one sort key (id, name or created) of those given'),
  'hcloud.servers.create': diff('no SSH keys, volumes, firewalls, placement groups or primary IPs; user_data accepted and ignored; a location means its first datacenter'),
  'hcloud.servers.get': ok, 'hcloud.servers.update': ok, 'hcloud.servers.delete': ok,
  'hcloud.servers.poweron': ok, 'hcloud.servers.poweroff': ok, 'hcloud.servers.shutdown': ok, 'hcloud.servers.reboot': ok,
  'hcloud.servers.attachToNetwork': diff('alias_ips refused'), 'hcloud.servers.detachFromNetwork': ok,
  'hcloud.servers.change_dns_ptr': diff('the IPv4 or any address of the IPv6 /64 (any spelling); no DNS answers; read back later the action says update_server'),
  'hcloud.networks.list': diff('one sort key'), 'hcloud.networks.create': diff('subnet type cloud or server only; no vSwitch; a subnet belongs to its network zone\'s first datacenter'),
  'hcloud.networks.get': ok, 'hcloud.networks.update': diff('expose_routes_to_vswitch refused'), 'hcloud.networks.delete': ok,
  'hcloud.networks.addRoute': ok, 'hcloud.networks.deleteRoute': ok,
  'hcloud.loadBalancers.list': diff('one sort key'),
  'hcloud.loadBalancers.create': diff('no public_net primary IPs; location or network zone required; use_private_ip is checked but the address used follows the network attachment'),
  'hcloud.loadBalancers.get': ok, 'hcloud.loadBalancers.update': ok,
  'hcloud.loadBalancers.delete': diff('the load balancer is `deleting` (still readable) until its action finishes'),
  'hcloud.loadBalancers.add_service': diff(`${ACTION_ON_LB}; https is forwarded as TCP (no TLS termination); certificates are kept, not used`),
  'hcloud.loadBalancers.update_service': diff(ACTION_ON_LB), 'hcloud.loadBalancers.delete_service': diff(ACTION_ON_LB),
  'hcloud.loadBalancers.add_target': diff(ACTION_ON_LB), 'hcloud.loadBalancers.remove_target': diff(ACTION_ON_LB),
  'hcloud.loadBalancers.change_algorithm': diff(ACTION_ON_LB), 'hcloud.loadBalancers.change_type': diff(`${ACTION_ON_LB}; limits are max_services and max_targets`),
  'hcloud.loadBalancers.enable_public_interface': diff(ACTION_ON_LB),
  'hcloud.loadBalancers.disable_public_interface': diff(`${ACTION_ON_LB}; the VIP stops serving, the private address does not serve either (simcloud LBs serve on the VIP only)`),
  'hcloud.loadBalancers.change_dns_ptr': diff(`${ACTION_ON_LB}; the IPv4 VIP or the IPv6 address (any spelling); no DNS answers for either`),
  'hcloud.loadBalancers.attach_to_network': diff('ip_range ignored'), 'hcloud.loadBalancers.detach_from_network': ok,
  'hcloud.actions.list': diff('sort by id, command, status, progress, started, finished'), 'hcloud.actions.get': ok,
  'hcloud.servers.actions': ok, 'hcloud.servers.action': ok, 'hcloud.networks.actions': ok, 'hcloud.networks.action': ok,
  'hcloud.load_balancers.actions': ok, 'hcloud.load_balancers.action': ok,
  'hcloud.servers.typeActions': ok, 'hcloud.servers.typeAction': ok, 'hcloud.networks.typeActions': ok, 'hcloud.networks.typeAction': ok,
  'hcloud.load_balancers.typeActions': ok, 'hcloud.load_balancers.typeAction': ok,
};

/** Endpoints of the same resources that the persona does not serve (404 not_found). */
export const NOT_SERVED: readonly (readonly [string, string])[] = [
  ['POST /servers/{id}/actions/reset, rebuild, change_type, enable_rescue, disable_rescue, create_image, reset_password, attach_iso, detach_iso, enable_backup, disable_backup, change_protection, add_to_placement_group, remove_from_placement_group, change_alias_ips, request_console', 'server actions a CCM does not call'],
  ['GET /servers/{id}/metrics', 'no metrics'],
  ['POST /networks/{id}/actions/add_subnet, delete_subnet, change_ip_range, change_protection', 'subnets are set at create'],
  ['POST /load_balancers/{id}/actions/change_protection', 'no protection'],
  ['GET /load_balancers/{id}/metrics', 'see simcloud\'s /v1/load_balancers/{id}/metrics'],
  ['POST, PUT, DELETE /certificates', 'no certificates'],
  ['/floating_ips, /primary_ips, /volumes, /firewalls, /placement_groups, /ssh_keys, /isos, /pricing, /zones', 'resources outside the CCM subset'],
];

export interface FieldParity extends ParityEntry {
  field: string;
}

const f = (field: string, entry: ParityEntry = ok): FieldParity => ({ field, ...entry });

/** Fields of the objects the persona returns. */
export const FIELDS: Readonly<Record<string, readonly FieldParity[]>> = {
  server: [
    f('id', diff('the number in simcloud\'s id (srv-00000042 is 42)')), f('name'), f('status', diff('no migrating, rebuilding or unknown')), f('created'), f('labels'), f('locked'),
    f('public_net.ipv4', diff('a loopback address from simcloud\'s pool; dns_ptr as set by change_dns_ptr, else generated')), f('public_net.ipv6', diff('the /64 simcloud gives the server (2001:db8:1::/48, documentation prefix; data only, nothing answers on it); dns_ptr lists the names set by change_dns_ptr; null when created without IPv6')),
    f('public_net.floating_ips, firewalls', none('always empty')), f('private_net', diff('mac_address derived from the ids; alias_ips empty')),
    f('server_type'), f('location'), f('datacenter', diff('still returned, as Hetzner did before removing it')), f('image'),
    f('load_balancers', diff('every LB whose targets resolve to the server')), f('protection', none('always false')),
    f('volumes, placement_group, iso, backup_window, rescue_enabled', none('empty, null or false')),
    f('included_traffic, outgoing_traffic, ingoing_traffic', none('0 or null')), f('primary_disk_size', diff('the server type\'s disk')),
  ],
  load_balancer: [
    f('id', diff('the number in simcloud\'s id')), f('name'), f('labels'), f('created'), f('location'), f('load_balancer_type'), f('algorithm'),
    f('public_net.enabled'), f('public_net.ipv4', diff('the VIP, a loopback address; dns_ptr as set by change_dns_ptr')), f('public_net.ipv6', diff('one address of 2001:db8:2::/64 (documentation prefix; data only: the data plane serves IPv4 loopback only); dns_ptr as set by change_dns_ptr, else generated')),
    f('private_net', diff('at most one network')),
    f('services[].protocol', diff('http and https are forwarded at TCP level')), f('services[].listen_port'), f('services[].destination_port'),
    f('services[].proxyprotocol', diff('PROXY protocol v1')), f('services[].http', diff('kept and returned; sticky sessions, redirects and timeouts are not applied')),
    f('services[].health_check', diff('tcp and http checks run; https is checked as http; http.domain, response and status_codes are kept, not checked')),
    f('targets[].type server, label_selector, ip'), f('targets[].health_status', diff('from the data plane; unknown while it does not run')),
    f('targets[].use_private_ip', diff('kept and returned; the address used is the private one whenever the LB is on a network')),
    f('targets[].targets (label_selector)'), f('protection', none('always false')), f('included_traffic, outgoing_traffic, ingoing_traffic', none('0 or null')),
  ],
  network: [
    f('id', diff('the number in simcloud\'s id')), f('name'), f('ip_range'), f('labels'), f('created'),
    f('subnets', diff('type always cloud; gateway is the subnet\'s first address')), f('routes'), f('servers'), f('load_balancers'),
    f('protection', none('always false')), f('expose_routes_to_vswitch', none('always false')),
  ],
  action: [
    f('id', diff('the number in simcloud\'s id; an action may share its number with the resource it creates')), f('status'), f('progress'), f('started'), f('finished'),
    f('command', diff('Hetzner names (start_server, stop_server, ...); LB changes read back as update_load_balancer')), f('resources'), f('error'),
  ],
  'errors and meta': [
    f('error.code', diff('not_found, invalid_input, uniqueness_error, locked, conflict, rate_limit_exceeded, unauthorized, forbidden, json_error, ip_not_available, unavailable, server_error and the LB codes source_port_already_used, target_already_defined, load_balancer_already_attached, load_balancer_not_attached_to_network, server_not_attached_to_network, resource_limit_exceeded')),
    f('error.message', diff('simcloud\'s wording with numeric ids')), f('error.details.fields (invalid_input)'),
    f('meta.pagination'),
    f('RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset', diff('only while a rate limit is configured (serve --rate-limit) or injected as a fault')),
  ],
};
