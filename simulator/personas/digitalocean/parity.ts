/**
 * How closely the DigitalOcean persona follows DigitalOcean API v2: a status per endpoint it serves (keyed by
 * route operation, so a route without an entry fails parity.test.ts), the endpoints of the same resources it
 * does not serve, and how the fields of the objects it returns differ (the fields themselves come from the
 * response schemas in responses.ts, see ../parity-fields.ts). scripts/generate-docs.ts renders this as
 * docs/reference/digitalocean-parity.md.
 */
import { differs as diff, each, emulated as ok, fieldTables, notEmulated as none, type FieldParity, type ParityEntry } from '../parity-fields.ts';
import * as R from './responses.ts';

const STATIC = "a fixed list: simcloud's catalogue";
const SYNC = 'answers 204 at once; the data plane follows within one sync';

/** Served endpoints, by route operation. */
export const ENDPOINTS: Readonly<Record<string, ParityEntry>> = {
  'digitalocean.regions.list': diff(`${STATIC} (sim-1, sim-2)`),
  'digitalocean.sizes.list': diff(`${STATIC} (sc-small, sc-medium, sc-large) without prices`),
  'digitalocean.account.get': diff("the token's project as uuid and email; limits are fixed"),
  'digitalocean.droplets.list': diff('tag_name and name filters; links are paths, not absolute URLs'),
  'digitalocean.droplets.create': diff(
    "name, region, size, image and tags are used; backups, ipv6, monitoring, private_networking, ssh_keys, user_data and the agent switch are accepted without effect; vpc_uuid is refused (no VPCs); one droplet per call (no names); the droplet lands in the region's first zone",
  ),
  'digitalocean.droplets.get': ok,
  'digitalocean.droplets.delete': diff("a deleted droplet reads `archive` until simcloud's delete action finishes"),
  'digitalocean.droplets.action': diff('power_on, power_off, shutdown, reboot and power_cycle (a reboot); other types are refused with 422'),
  'digitalocean.droplets.action.get': ok,
  'digitalocean.actions.list': diff('every action of the project, newest first, load balancer actions included'),
  'digitalocean.actions.get': ok,
  'digitalocean.load_balancers.list': diff('links are paths, not absolute URLs'),
  'digitalocean.load_balancers.create': diff(
    "an https or http2 rule terminates TLS on the VIP with its certificate_id (a certificate of the project, else 422 naming the field; target_protocol http) or passes TLS through (tls_passthrough, target_protocol as entry_protocol), one of the two; redirect_http_to_https makes every http rule answer 301 to the first https rule's port; http3 rules, a udp rule to a non-udp target (or the reverse), firewall deny rules, GLOBAL and INTERNAL load balancers, domains, GLB settings and target load balancers are refused with 422 naming the field, as are http and https rules on a REGIONAL_NETWORK one; type (default REGIONAL) and network_stack (default IPV4) are kept; vpc_uuid, project_id, tags and tls_cipher_policy are accepted without effect",
  ),
  'digitalocean.load_balancers.get': ok,
  'digitalocean.load_balancers.update': diff(
    "the whole object as on create; a region or type change is refused with 422 (type may be repeated or left out); a network_stack change is ignored, the stack stays as created (the real answer is undocumented; DigitalOcean's CCM sends one on upgrades)",
  ),
  'digitalocean.load_balancers.delete': diff("gone from reads at once; its VIP is released when simcloud's delete action finishes"),
  'digitalocean.load_balancers.forwarding_rules.add': diff(`${SYNC}; a used entry port is 422`),
  'digitalocean.load_balancers.forwarding_rules.remove': diff(SYNC),
  'digitalocean.load_balancers.droplets.add': diff(`${SYNC}; refused with 422 on a tag-based load balancer`),
  'digitalocean.load_balancers.droplets.remove': diff(SYNC),
  'digitalocean.firewalls.list': diff('every simcloud firewall policy of the project, oldest first; links are paths'),
  'digitalocean.firewalls.create': diff(
    "rule sources and destinations are addresses and load balancers (load_balancer_uids: the project's, else 422; enforced as their VIPs); tags, droplets and clusters are refused with 422; IPv6 addresses, droplet_ids and tags are kept and returned, not enforced",
  ),
  'digitalocean.firewalls.get': ok,
  'digitalocean.firewalls.update': diff('the whole object as on create'),
  'digitalocean.firewalls.delete': ok,
  'digitalocean.certificates.list': diff('the name filter; links are paths, not absolute URLs'),
  'digitalocean.certificates.create': diff(
    "custom only: leaf_certificate (with certificate_chain appended) and private_key are checked (PEM, the key the leaf's, not expired on simcloud's clock) with 422 naming the field; the name is unique in the project (409 otherwise); lets_encrypt is refused with 422 naming type (issuing needs DigitalOcean DNS and an ACME server, off loopback); dns_names are read from the certificate",
  ),
  'digitalocean.certificates.get': ok,
  'digitalocean.certificates.delete': diff("a certificate a load balancer's rule uses is refused with 422 until the rule or the load balancer is gone"),
};

/** Endpoints of the same resources that the persona does not serve (404 not_found). */
export const NOT_SERVED: readonly (readonly [string, string])[] = [
  ['GET /droplets/{id}/neighbors, /kernels, /snapshots, /backups, DELETE /droplets?tag_name=', 'droplet extras a CCM does not call'],
  ['POST /droplets/actions?tag_name= (actions by tag)', 'power calls go one droplet at a time'],
  ['POST, DELETE /firewalls/{id}/droplets, /tags, /rules', 'the DigitalOcean CCM replaces its firewall whole (PUT)'],
  ['/vpcs, /kubernetes/clusters, /tags, /volumes, /floating_ips, /reserved_ips, /domains, /projects', 'resources outside the CCM subset'],
  ['POST /load_balancers/{id}/cache, GET /load_balancers/{id}/metrics', 'no CDN cache or DigitalOcean metrics'],
];

const FIXED = (paths: readonly string[], note = 'null, empty or a fixed value'): Record<string, ParityEntry> => each(paths, none(note));
const KEPT = 'kept and returned, not applied';

/** Request and response headers: the one table not made from a response schema. */
const HEADERS: readonly FieldParity[] = [
  {
    field: 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset',
    ...diff('only while a rate limit is configured (serve --rate-limit) or injected as a fault; Reset is a Unix time'),
  },
  { field: 'X-Request-Id', ...diff("the error body's request_id") },
];

/** How the fields of the objects the persona returns differ; every field of their schemas is a row. */
export const FIELDS: Readonly<Record<string, readonly FieldParity[]>> = {
  ...fieldTables({
    droplet: [
      R.Droplet,
      {
        id: diff("the number in simcloud's id (srv-00000042 is 42)"),
        status: diff('new while simcloud initializes, off while it starts, active while it stops, archive while it is deleted'),
        ...each(['memory', 'vcpus', 'disk', 'size', 'size_slug'], diff("simcloud's server types, no prices")),
        region: diff('sim-1 or sim-2; name equals slug (the CCM matches REGION against names)'),
        image: diff("system images numbered 1..3, slug is simcloud's image"),
        'networks.v4': diff(
          "the public loopback address, and each network address as private in 10.110.0.0/16 at the offset its loopback address has in the private pool's /16 (ADR 0013); gateways empty",
        ),
        'networks.v6': none('always empty'),
        tags: diff('simcloud labels: key:value, or key for an empty value; one tag per part before the colon'),
        vpc_uuid: diff("the UUID of the server's first simcloud network, else empty"),
        features: diff('always private_networking'),
        ...FIXED(['kernel', 'next_backup_window', 'backup_ids', 'snapshot_ids', 'volume_ids']),
      },
    ],
    load_balancer: [
      R.LoadBalancer,
      {
        id: diff("a UUID spelled from the number in simcloud's id (lb-00000042 is 00000000-0000-4000-8000-000000000042)"),
        ip: diff('the VIP, a loopback address; empty while new'),
        ipv6: diff("DUALSTACK only: simcloud's public_ipv6 of the load balancer, from 2001:db8:2::/64, data only (nothing answers on it); empty while new"),
        status: diff('new while simcloud provisions, active once serving (also while simcloud updates it), errored on failure'),
        algorithm: diff('kept and applied by the data plane (DigitalOcean deprecated it)'),
        ...each(['size', 'size_unit'], diff('kept; no capacity limits')),
        type: diff(
          "REGIONAL is simcloud's proxy forwarding, REGIONAL_NETWORK its passthrough: the droplets are reached on the target port from the VIP, and must answer for the VIP themselves (the local runtime's kube-proxy stand-in does for a Service's ingress IP); fixed at creation",
        ),
        ...each(
          ['forwarding_rules[].entry_protocol', 'forwarding_rules[].entry_port', 'forwarding_rules[].target_port'],
          diff(
            "tcp, http, https, http2 and udp; http is forwarded at TCP level, https and http2 after terminating TLS with the rule's certificate (HTTP/1.1: no ALPN) or at TCP level with tls_passthrough, udp per client flow (no PROXY header)",
          ),
        ),
        'forwarding_rules[].certificate_id': diff("the UUID of simcloud's certificate the rule's service terminates TLS with; empty without one"),
        ...each(
          ['forwarding_rules[].target_protocol', 'forwarding_rules[].tls_passthrough'],
          diff('kept and returned; a terminating rule forwards plain http'),
        ),
        health_check: diff(
          'one check on every rule; tcp and http run, https is checked as http; healthy_threshold kept, not applied; default http on port 80, path /',
        ),
        sticky_sessions: diff('kept and returned; cookies are not set or honoured'),
        droplet_ids: diff("the droplets simcloud's targets resolve to (for a tag: the tagged droplets)"),
        tag: diff('a label selector target over the tag as a label'),
        enable_proxy_protocol: diff('PROXY protocol v1 on every rule'),
        'firewall.allow': diff("the VIP's source ranges (ip: as /32)"),
        'firewall.deny': none('refused when not empty'),
        redirect_http_to_https: diff("http rules answer 301 to https://<host>:<first https rule's port><path> (without an https rule: kept, no effect)"),
        ...each(['enable_backend_keepalive', 'http_idle_timeout_seconds', 'disable_lets_encrypt_dns_records'], diff(KEPT)),
        vpc_uuid: diff("the UUID of simcloud's network the LB is attached to, else empty"),
        network_stack: diff('kept as created (default IPV4); a change on update is ignored'),
        ...FIXED(['network', 'tls_cipher_policy', 'project_id'], 'always EXTERNAL, DEFAULT and empty'),
      },
    ],
    firewall: [
      R.Firewall,
      {
        id: diff("a UUID spelled from the number in simcloud's firewall policy id"),
        status: diff('always succeeded'),
        pending_changes: none('always empty'),
        ...each(
          ['inbound_rules', 'outbound_rules'],
          diff(
            'one simcloud rule each: protocol, ports ("0" for all), IPv4 addresses and load balancers\' VIPs enforced where simcloud enforces policies, IPv6 addresses and load_balancer_uids kept and returned as written',
          ),
        ),
        ...each(['droplet_ids', 'tags'], diff('kept and returned, not enforced on servers')),
      },
    ],
    certificate: [
      R.Certificate,
      {
        id: diff("a UUID spelled from the number in simcloud's certificate id"),
        ...each(
          ['not_after', 'sha1_fingerprint', 'dns_names'],
          diff('read from the uploaded leaf certificate (dns_names: its DNS alternative names, else its common name)'),
        ),
        state: diff('always verified'),
        type: diff('always custom (lets_encrypt is refused)'),
      },
    ],
    action: [
      R.Action,
      {
        id: diff("the number in simcloud's id; an action may share its number with the resource it creates"),
        type: diff('create, destroy, power_on, power_off, shutdown, reboot; update for load balancer changes made through /v1'),
        ...each(['resource_id', 'resource_type'], diff("droplet actions name the droplet; others name simcloud's resource type with id 0")),
        ...each(['region', 'region_slug'], diff("the droplet's region; null for other actions")),
      },
    ],
    region: [R.Region, { slug: diff("simcloud's region"), name: diff('equals the slug'), ...FIXED(['sizes', 'available', 'features']) }],
    size: [R.Size, { slug: diff("simcloud's server type"), ...FIXED(['transfer', 'price_monthly', 'price_hourly', 'regions', 'available', 'description']) }],
    account: [
      R.Account,
      {
        ...each(['email', 'uuid'], diff("the token's project")),
        ...FIXED(['droplet_limit', 'floating_ip_limit', 'volume_limit', 'email_verified', 'status', 'status_message']),
      },
    ],
    errors: [
      R.ErrorBody,
      {
        id: diff(
          'not_found, Unauthorized, unprocessable_entity (bad fields, unknown ids in a body, a busy droplet, a certificate in use), bad_request (unreadable body), forbidden, conflict, too_many_requests, service_unavailable, server_error',
        ),
        message: diff('names each field at fault (`size: unknown size x`), with numeric ids'),
        request_id: diff('also sent as x-request-id'),
      },
    ],
    paging: [R.list('droplets', R.Droplet), { 'links.pages': diff('paths under /v2, not absolute URLs; links is {} on a single page') }],
  }),
  headers: HEADERS,
};
