/**
 * How closely the DigitalOcean persona follows DigitalOcean API v2: a status per endpoint it serves (keyed by
 * route operation, so a route without an entry fails parity.test.ts), the endpoints of the same resources it
 * does not serve, and a status per field of the objects it returns. scripts/generate-docs.ts renders this as
 * docs/reference/digitalocean-parity.md.
 */
import { Parity, type FieldParity, type ParityEntry } from '../hcloud/parity.ts';

const ok: ParityEntry = { status: Parity.emulated };
const diff = (note: string): ParityEntry => ({ status: Parity.difference, note });
const none = (note?: string): ParityEntry => ({ status: Parity.none, ...(note === undefined ? {} : { note }) });

const STATIC = 'a fixed list: simcloud\'s catalogue';
const SYNC = 'answers 204 at once; the data plane follows within one sync';

/** Served endpoints, by route operation. */
export const ENDPOINTS: Readonly<Record<string, ParityEntry>> = {
  'digitalocean.regions.list': diff(`${STATIC} (sim-1, sim-2)`),
  'digitalocean.sizes.list': diff(`${STATIC} (sc-small, sc-medium, sc-large) without prices`),
  'digitalocean.account.get': diff('the token\'s project as uuid and email; limits are fixed'),
  'digitalocean.droplets.list': diff('tag_name and name filters; links are paths, not absolute URLs'),
  'digitalocean.droplets.create': diff('name, region, size, image and tags are used; backups, ipv6, monitoring, private_networking, ssh_keys, user_data and the agent switch are accepted without effect; vpc_uuid is refused (no VPCs); one droplet per call (no names); the droplet lands in the region\'s first zone'),
  'digitalocean.droplets.get': ok,
  'digitalocean.droplets.delete': diff('a deleted droplet reads `archive` until simcloud\'s delete action finishes'),
  'digitalocean.droplets.action': diff('power_on, power_off, shutdown, reboot and power_cycle (a reboot); other types are refused with 422'),
  'digitalocean.droplets.action.get': ok,
  'digitalocean.actions.list': diff('every action of the project, newest first, load balancer actions included'),
  'digitalocean.actions.get': ok,
  'digitalocean.load_balancers.list': diff('links are paths, not absolute URLs'),
  'digitalocean.load_balancers.create': diff('udp, http2 and http3 rules, firewall deny rules, GLOBAL and INTERNAL load balancers, domains, GLB settings and target load balancers are refused with 422 naming the field, as are http and https rules on a REGIONAL_NETWORK one; type (default REGIONAL) and network_stack (default IPV4) are kept; vpc_uuid, project_id, tags and tls_cipher_policy are accepted without effect'),
  'digitalocean.load_balancers.get': ok,
  'digitalocean.load_balancers.update': diff('the whole object as on create; a region, type or network_stack change is refused with 422 (type and network_stack may be repeated or left out)'),
  'digitalocean.load_balancers.delete': diff('gone from reads at once; its VIP is released when simcloud\'s delete action finishes'),
  'digitalocean.load_balancers.forwarding_rules.add': diff(`${SYNC}; a used entry port is 422`),
  'digitalocean.load_balancers.forwarding_rules.remove': diff(SYNC),
  'digitalocean.load_balancers.droplets.add': diff(`${SYNC}; refused with 422 on a tag-based load balancer`),
  'digitalocean.load_balancers.droplets.remove': diff(SYNC),
  'digitalocean.firewalls.list': diff('every simcloud firewall policy of the project, oldest first; links are paths'),
  'digitalocean.firewalls.create': diff('rule sources and destinations are addresses and load balancers (load_balancer_uids: the project\'s, else 422; enforced as their VIPs); tags, droplets and clusters are refused with 422; IPv6 addresses, droplet_ids and tags are kept and returned, not enforced'),
  'digitalocean.firewalls.get': ok,
  'digitalocean.firewalls.update': diff('the whole object as on create'),
  'digitalocean.firewalls.delete': ok,
};

/** Endpoints of the same resources that the persona does not serve (404 not_found). */
export const NOT_SERVED: readonly (readonly [string, string])[] = [
  ['GET /droplets/{id}/neighbors, /kernels, /snapshots, /backups, DELETE /droplets?tag_name=', 'droplet extras a CCM does not call'],
  ['POST /droplets/actions?tag_name= (actions by tag)', 'power calls go one droplet at a time'],
  ['POST, DELETE /firewalls/{id}/droplets, /tags, /rules', 'the DigitalOcean CCM replaces its firewall whole (PUT)'],
  ['/certificates, /vpcs, /kubernetes/clusters, /tags, /volumes, /floating_ips, /reserved_ips, /domains, /projects', 'resources outside the CCM subset (a certificate-id annotation cannot be checked)'],
  ['POST /load_balancers/{id}/cache, GET /load_balancers/{id}/metrics', 'no CDN cache or DigitalOcean metrics'],
];

const f = (field: string, entry: ParityEntry = ok): FieldParity => ({ field, ...entry });

/** Fields of the objects the persona returns. */
export const FIELDS: Readonly<Record<string, readonly FieldParity[]>> = {
  droplet: [
    f('id', diff('the number in simcloud\'s id (srv-00000042 is 42)')), f('name'), f('created_at'), f('locked'),
    f('status', diff('new while simcloud initializes, off while it starts, active while it stops, archive while it is deleted')),
    f('memory, vcpus, disk, size, size_slug', diff('simcloud\'s server types, no prices')), f('region', diff('sim-1 or sim-2; name equals slug (the CCM matches REGION against names)')),
    f('image', diff('system images numbered 1..3, slug is simcloud\'s image')),
    f('networks.v4', diff('the public loopback address and each network address as private; gateways empty')), f('networks.v6', none('always empty')),
    f('tags', diff('simcloud labels: key:value, or key for an empty value; one tag per part before the colon')),
    f('vpc_uuid', diff('the UUID of the server\'s first simcloud network, else empty')), f('features', diff('always private_networking')),
    f('kernel, next_backup_window, backup_ids, snapshot_ids, volume_ids', none('null or empty')),
  ],
  load_balancer: [
    f('id', diff('a UUID spelled from the number in simcloud\'s id (lb-00000042 is 00000000-0000-4000-8000-000000000042)')), f('name'), f('created_at'),
    f('ip', diff('the VIP, a loopback address; empty while new')),
    f('ipv6', diff('DUALSTACK only: simcloud\'s public_ipv6 of the load balancer, from 2001:db8:2::/64, data only (nothing answers on it); empty while new')),
    f('status', diff('new while simcloud provisions, active once serving (also while simcloud updates it), errored on failure')),
    f('algorithm', diff('kept and applied by the data plane (DigitalOcean deprecated it)')), f('region'), f('size_slug, size_unit', diff('kept; no capacity limits')),
    f('type', diff('REGIONAL is simcloud\'s proxy forwarding, REGIONAL_NETWORK its passthrough: the droplets are reached on the target port from the VIP, and must answer for the VIP themselves (the local runtime\'s kube-proxy stand-in does for a Service\'s ingress IP); fixed at creation')),
    f('forwarding_rules[].entry_protocol, entry_port, target_port', diff('tcp, http and https; http and https are forwarded at TCP level')),
    f('forwarding_rules[].target_protocol, certificate_id, tls_passthrough', diff('kept and returned; no TLS termination')),
    f('health_check', diff('one check on every rule; tcp and http run, https is checked as http; healthy_threshold kept, not applied; default http on port 80, path /')),
    f('sticky_sessions', diff('kept and returned; cookies are not set or honoured')),
    f('droplet_ids', diff('the droplets simcloud\'s targets resolve to (for a tag: the tagged droplets)')), f('tag', diff('a label selector target over the tag as a label')),
    f('enable_proxy_protocol', diff('PROXY protocol v1 on every rule')),
    f('firewall.allow', diff('the VIP\'s source ranges (ip: as /32)')), f('firewall.deny', none('refused when not empty')),
    f('redirect_http_to_https, enable_backend_keepalive, http_idle_timeout_seconds, disable_lets_encrypt_dns_records', diff('kept and returned, not applied')),
    f('vpc_uuid', diff('the UUID of simcloud\'s network the LB is attached to, else empty')),
    f('network_stack', diff('kept as created (default IPV4); fixed at creation')),
    f('network, tls_cipher_policy, project_id', diff('always EXTERNAL, DEFAULT and empty')),
    f('domains, glb_settings, target_load_balancer_ids', none('absent')),
  ],
  firewall: [
    f('id', diff('a UUID spelled from the number in simcloud\'s firewall policy id')), f('name'), f('created_at'),
    f('status', diff('always succeeded')), f('pending_changes', none('always empty')),
    f('inbound_rules, outbound_rules', diff('one simcloud rule each: protocol, ports ("0" for all), IPv4 addresses and load balancers\' VIPs enforced where simcloud enforces policies, IPv6 addresses and load_balancer_uids kept and returned as written')),
    f('droplet_ids, tags', diff('kept and returned, not enforced on servers')),
  ],
  action: [
    f('id', diff('the number in simcloud\'s id; an action may share its number with the resource it creates')),
    f('status', diff('in-progress, completed or errored')), f('type', diff('create, destroy, power_on, power_off, shutdown, reboot; update for load balancer changes made through /v1')),
    f('started_at, completed_at'), f('resource_id, resource_type', diff('droplet actions name the droplet; others name simcloud\'s resource type with id 0')),
    f('region, region_slug', diff('the droplet\'s region; null and empty for other actions')),
  ],
  'errors, paging and rate limits': [
    f('id', diff('not_found, Unauthorized, unprocessable_entity (bad fields, unknown ids in a body, a busy droplet), bad_request (unreadable body), forbidden, conflict, too_many_requests, service_unavailable, server_error')),
    f('message', diff('names each field at fault (`size: unknown size x`), with numeric ids')), f('request_id', diff('also sent as x-request-id')),
    f('links.pages.first, prev, next, last', diff('paths under /v2, not absolute URLs; links is {} on a single page')), f('meta.total'),
    f('RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset', diff('only while a rate limit is configured (serve --rate-limit) or injected as a fault; Reset is a Unix time')),
  ],
};
