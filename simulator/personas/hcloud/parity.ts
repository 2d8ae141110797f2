/**
 * How closely the Hetzner persona follows the Hetzner Cloud API: a status per endpoint it serves (keyed by
 * route operation, so a route without an entry fails parity.test.ts), the endpoints of the same resources it
 * does not serve, and how the fields of the objects it returns differ (the fields themselves come from the
 * response schemas in responses.ts, see ../parity-fields.ts). scripts/generate-docs.ts renders this as
 * docs/reference/hcloud-parity.md.
 */
import { differs as diff, each, emulated as ok, fieldTables, notEmulated as none, type FieldParity, type ParityEntry } from '../parity-fields.ts';
import * as R from './responses.ts';

export { Parity, type FieldParity, type ParityEntry } from '../parity-fields.ts';

const STATIC = "a fixed list: simcloud's catalogue (regions are locations, zones are datacenters)";
const ACTION_ON_LB = 'the action reports this command when created; read back later it says update_load_balancer';

/** Served endpoints, by route operation. */
export const ENDPOINTS: Readonly<Record<string, ParityEntry>> = {
  'hcloud.locations.list': diff(STATIC),
  'hcloud.locations.get': ok,
  'hcloud.datacenters.list': diff(STATIC),
  'hcloud.datacenters.get': ok,
  'hcloud.server_types.list': diff(`${STATIC}; no prices`),
  'hcloud.server_types.get': ok,
  'hcloud.images.list': diff('system images only; filters other than name are refused'),
  'hcloud.images.get': ok,
  'hcloud.load_balancer_types.list': diff('lb11, lb21, lb31 without prices'),
  'hcloud.load_balancer_types.get': ok,
  'hcloud.certificates.list': diff('name, label_selector and type filters (type managed lists none); one sort key'),
  'hcloud.certificates.get': ok,
  'hcloud.certificates.create': diff(
    "uploaded only: certificate (a PEM chain, the server's first) and private_key (its key) are checked (the leaf not expired on simcloud's clock), invalid_input naming the field; the name is unique (uniqueness_error); managed is refused with invalid_input naming type (Hetzner issues it through Let's Encrypt and its DNS, off loopback); action is null",
  ),
  'hcloud.certificates.update': diff('name and labels'),
  'hcloud.certificates.delete': diff(
    'a certificate a load balancer service uses is refused: 409 service_error "certificate still in use" (the code Hetzner answers; its status is not confirmed)',
  ),
  'hcloud.servers.list': diff('one sort key (id, name or created) of those given'),
  'hcloud.servers.create': diff(
    'no SSH keys, volumes, firewalls, placement groups or primary IPs; user_data accepted and ignored; a location means its first datacenter',
  ),
  'hcloud.servers.get': ok,
  'hcloud.servers.update': ok,
  'hcloud.servers.delete': ok,
  'hcloud.servers.poweron': ok,
  'hcloud.servers.poweroff': ok,
  'hcloud.servers.shutdown': ok,
  'hcloud.servers.reboot': ok,
  'hcloud.servers.attachToNetwork': diff('alias_ips refused'),
  'hcloud.servers.detachFromNetwork': ok,
  'hcloud.servers.change_dns_ptr': diff(
    'the IPv4 or any address of the IPv6 /64 (any spelling); no DNS answers; read back later the action says update_server',
  ),
  'hcloud.networks.list': diff('one sort key'),
  'hcloud.networks.create': diff("subnet type cloud or server only; no vSwitch; a subnet belongs to its network zone's first datacenter"),
  'hcloud.networks.get': ok,
  'hcloud.networks.update': diff('expose_routes_to_vswitch refused'),
  'hcloud.networks.delete': ok,
  'hcloud.networks.addRoute': ok,
  'hcloud.networks.deleteRoute': ok,
  'hcloud.loadBalancers.list': diff('one sort key'),
  'hcloud.loadBalancers.create': diff(
    'no public_net primary IPs; location or network zone required; use_private_ip is checked but the address used follows the network attachment; services as add_service',
  ),
  'hcloud.loadBalancers.get': ok,
  'hcloud.loadBalancers.update': ok,
  'hcloud.loadBalancers.delete': diff('the load balancer is `deleting` (still readable) until its action finishes'),
  'hcloud.loadBalancers.add_service': diff(
    `${ACTION_ON_LB}; an https service terminates TLS on the VIP with its one http.certificates entry (the caller's certificate, else not_found naming it; several are refused: no choice by SNI), without one it is forwarded as TCP; redirect_http adds an http listener on port 80 answering 301 to the service's port`,
  ),
  'hcloud.loadBalancers.update_service': diff(ACTION_ON_LB),
  'hcloud.loadBalancers.delete_service': diff(ACTION_ON_LB),
  'hcloud.loadBalancers.add_target': diff(ACTION_ON_LB),
  'hcloud.loadBalancers.remove_target': diff(ACTION_ON_LB),
  'hcloud.loadBalancers.change_algorithm': diff(ACTION_ON_LB),
  'hcloud.loadBalancers.change_type': diff(`${ACTION_ON_LB}; limits are max_services and max_targets`),
  'hcloud.loadBalancers.enable_public_interface': diff(ACTION_ON_LB),
  'hcloud.loadBalancers.disable_public_interface': diff(
    `${ACTION_ON_LB}; the VIP stops serving, the private address does not serve either (simcloud LBs serve on the VIP only)`,
  ),
  'hcloud.loadBalancers.change_dns_ptr': diff(`${ACTION_ON_LB}; the IPv4 VIP or the IPv6 address (any spelling); no DNS answers for either`),
  'hcloud.loadBalancers.attach_to_network': diff('ip_range ignored'),
  'hcloud.loadBalancers.detach_from_network': ok,
  'hcloud.actions.list': diff('sort by id, command, status, progress, started, finished'),
  'hcloud.actions.get': ok,
  'hcloud.servers.actions': ok,
  'hcloud.servers.action': ok,
  'hcloud.networks.actions': ok,
  'hcloud.networks.action': ok,
  'hcloud.load_balancers.actions': ok,
  'hcloud.load_balancers.action': ok,
  'hcloud.servers.typeActions': ok,
  'hcloud.servers.typeAction': ok,
  'hcloud.networks.typeActions': ok,
  'hcloud.networks.typeAction': ok,
  'hcloud.load_balancers.typeActions': ok,
  'hcloud.load_balancers.typeAction': ok,
};

/** Endpoints of the same resources that the persona does not serve (404 not_found). */
export const NOT_SERVED: readonly (readonly [string, string])[] = [
  [
    'POST /servers/{id}/actions/reset, rebuild, change_type, enable_rescue, disable_rescue, create_image, reset_password, attach_iso, detach_iso, enable_backup, disable_backup, change_protection, add_to_placement_group, remove_from_placement_group, change_alias_ips, request_console',
    'server actions a CCM does not call',
  ],
  ['GET /servers/{id}/metrics', 'no metrics'],
  ['POST /networks/{id}/actions/add_subnet, delete_subnet, change_ip_range, change_protection', 'subnets are set at create'],
  ['POST /load_balancers/{id}/actions/change_protection', 'no protection'],
  ['GET /load_balancers/{id}/metrics', "see simcloud's /v1/load_balancers/{id}/metrics"],
  [
    'GET /certificates/actions, /certificates/{id}/actions, POST /certificates/{id}/actions/retry',
    'uploaded certificates have no actions; managed ones are refused',
  ],
  ['/floating_ips, /primary_ips, /volumes, /firewalls, /placement_groups, /ssh_keys, /isos, /pricing, /zones', 'resources outside the CCM subset'],
];

const ID = diff("the number in simcloud's id (srv-00000042 is 42, lb-00000007 is 7)");
const FIXED = (paths: readonly string[], note = 'empty, null, 0 or false'): Record<string, ParityEntry> => each(paths, none(note));
const TRAFFIC = FIXED(['included_traffic', 'outgoing_traffic', 'ingoing_traffic'], '0 or null');

/** Request and response headers: the one table not made from a response schema. */
const HEADERS: readonly FieldParity[] = [
  {
    field: 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset',
    ...diff('only while a rate limit is configured (serve --rate-limit) or injected as a fault'),
  },
];

/** How the fields of the objects the persona returns differ; every field of their schemas is a row. */
export const FIELDS: Readonly<Record<string, readonly FieldParity[]>> = {
  ...fieldTables({
    server: [
      R.Server,
      {
        id: ID,
        status: diff('no migrating, rebuilding or unknown'),
        'public_net.ipv4': diff("a loopback address from simcloud's pool; dns_ptr as set by change_dns_ptr, else generated"),
        'public_net.ipv6': diff(
          'the /64 simcloud gives the server (2001:db8:1::/48, documentation prefix; data only, nothing answers on it); dns_ptr lists the names set by change_dns_ptr; null when created without IPv6',
        ),
        ...FIXED(['public_net.floating_ips', 'public_net.firewalls'], 'always empty'),
        private_net: diff(
          "ip in 10.0.0.0/16, at the offset its loopback address has in the private pool's /16 (ADR 0013); mac_address derived from the ids; alias_ips empty",
        ),
        datacenter: diff('still returned, as Hetzner did before removing it'),
        load_balancers: diff('every LB whose targets resolve to the server'),
        protection: none('always false'),
        ...FIXED(['volumes', 'placement_group', 'iso', 'backup_window', 'rescue_enabled']),
        ...TRAFFIC,
        primary_disk_size: diff("the server type's disk"),
      },
    ],
    load_balancer: [
      R.LoadBalancer,
      {
        id: ID,
        'public_net.ipv4': diff('the VIP, a loopback address; dns_ptr as set by change_dns_ptr'),
        'public_net.ipv6': diff(
          'one address of 2001:db8:2::/64 (documentation prefix; data only: the data plane serves IPv4 loopback only); dns_ptr as set by change_dns_ptr, else generated',
        ),
        private_net: diff("at most one network; ip in 10.0.0.0/16 as a server's"),
        'services[].protocol': diff(
          'http is forwarded at TCP level, https after terminating TLS with its certificate (at TCP level without one); a udp service made through /v1 shows as tcp',
        ),
        'services[].proxyprotocol': diff('PROXY protocol v1'),
        'services[].http': diff(
          "certificates is the certificate the service terminates TLS with; redirect_http answers 301 on port 80 (the port 80 listener is not shown as a service); the rest is kept and returned (Hetzner's defaults for a service made through /v1), sticky sessions and timeouts not applied",
        ),
        'services[].health_check': diff('tcp and http checks run; https is checked as http; http.domain, response and status_codes are kept, not checked'),
        'targets[].health_status': diff('from the data plane; unknown while it does not run'),
        'targets[].use_private_ip': diff('kept and returned; the address used is the private one whenever the LB is on a network'),
        'targets[].targets': diff('label_selector targets: the servers the selector matches'),
        protection: none('always false'),
        ...TRAFFIC,
      },
    ],
    network: [
      R.Network,
      {
        id: ID,
        ip_range: diff("a range in the private pool's /16 shown at the same offset in 10.0.0.0/16 (ADR 0013); other ranges as stored"),
        subnets: diff("type always cloud; gateway is the subnet's first address; ranges as ip_range"),
        routes: diff("gateways and destinations in the private pool's /16 shown in 10.0.0.0/16 and taken back from it; others (pod CIDRs) as sent"),
        protection: none('always false'),
        expose_routes_to_vswitch: none('always false'),
      },
    ],
    action: [
      R.Action,
      {
        id: diff("the number in simcloud's id; an action may share its number with the resource it creates"),
        command: diff('Hetzner names (start_server, stop_server, ...); LB changes read back as update_load_balancer'),
      },
    ],
    location: [
      R.Location,
      {
        id: diff("its position in simcloud's catalogue"),
        ...FIXED(['country', 'city', 'latitude', 'longitude'], 'fixed values'),
        network_zone: diff("the location's name"),
      },
    ],
    datacenter: [
      R.Datacenter,
      { id: diff("its position in simcloud's catalogue"), name: diff("simcloud's zone"), server_types: diff('every server type, everywhere') },
    ],
    server_type: [
      R.ServerType,
      {
        id: diff("its position in simcloud's catalogue"),
        ...FIXED(
          ['category', 'storage_type', 'cpu_type', 'architecture', 'included_traffic', 'prices', 'deprecated', 'deprecation'],
          'fixed values, no prices',
        ),
        locations: diff('every location, available'),
      },
    ],
    image: [
      R.Image,
      {
        id: diff("its position in simcloud's catalogue"),
        ...FIXED(
          ['image_size', 'disk_size', 'created', 'created_from', 'bound_to', 'rapid_deploy', 'protection', 'deprecated', 'deleted', 'labels'],
          'fixed values',
        ),
      },
    ],
    load_balancer_type: [R.LoadBalancerType, { ...FIXED(['prices', 'deprecated', 'deprecation'], 'no prices, never deprecated') }],
    certificate: [
      R.Certificate,
      {
        id: ID,
        type: diff('always uploaded'),
        certificate: diff('the uploaded chain, one PEM block per certificate'),
        ...each(
          ['not_valid_before', 'not_valid_after', 'domain_names', 'fingerprint'],
          diff("read from the chain's first certificate (domain_names: its DNS alternative names, else its common name; fingerprint: SHA-256)"),
        ),
        status: none('null, as for every uploaded certificate'),
        used_by: diff('the load balancers with a service terminating TLS with it'),
      },
    ],
    errors: [
      R.ErrorBody,
      {
        'error.code': diff(
          'not_found, invalid_input, uniqueness_error, locked, conflict, rate_limit_exceeded, unauthorized, forbidden, json_error, ip_not_available, unavailable, server_error and the LB codes source_port_already_used, target_already_defined, load_balancer_already_attached, load_balancer_not_attached_to_network, server_not_attached_to_network, resource_limit_exceeded, and service_error for a certificate in use',
        ),
        'error.message': diff("simcloud's wording with numeric ids"),
        'error.details': diff('fields for invalid_input and for any refusal naming a field; {} otherwise'),
      },
    ],
    meta: [R.Meta],
  }),
  headers: HEADERS,
};
