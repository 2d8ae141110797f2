/**
 * How closely the Brightbox persona follows Brightbox's API v1.0 and its OAuth2 token endpoint: the calls
 * Brightbox's own CCM makes (CCM_CALLS, read from its source and k8ssdk's, which decide the subset), a status per
 * endpoint the persona serves (keyed by route operation, so a route without an entry fails parity.test.ts), the
 * endpoints of the same resources it does not serve, and how the fields of the objects it returns differ (the fields
 * come from its response schemas, ../parity-fields.ts). scripts/generate-docs.ts renders docs/reference/brightbox-parity.md.
 */
import { differs as diff, each, emulated as ok, fieldTables, notEmulated as none, type FieldParity, type ParityEntry } from '../parity-fields.ts';
import { TokenResponse } from './auth.ts';
import * as S from './responses.ts';

/**
 * Every API call of brightbox-cloud-controller-manager (commit daf91215) and k8ssdk v2.1.1: [gobrightbox call,
 * where it is made (CCM `brightbox/…`, k8ssdk `k8ssdk/…`), the route operation serving it].
 */
export const CCM_CALLS: readonly (readonly [string, string, string])[] = [
  ['clientcredentials token (x/oauth2, first request)', 'k8ssdk/brightbox_auth.go:107', 'brightbox.auth.token'],
  ['Accounts (at start, no BRIGHTBOX_ACCOUNT)', 'k8ssdk/brightbox_auth.go:114', 'brightbox.accounts.list'],
  ['Server', 'k8ssdk/brightbox_interface.go:40 (instances.go:39,63,86,126,155; instances_v2.go:52); zones.go:93', 'brightbox.servers.get'],
  ['LoadBalancers', 'k8ssdk/brightbox_interface.go:88 (load_balancer_cloud.go:51; load_balancer.go:35,168)', 'brightbox.load_balancers.list'],
  ['LoadBalancer', 'k8ssdk/brightbox_interface.go:107 (load_balancer_cloud.go:89,123)', 'brightbox.load_balancers.get'],
  ['CreateLoadBalancer', 'k8ssdk/brightbox_interface.go:118 (load_balancer.go:178)', 'brightbox.load_balancers.create'],
  ['UpdateLoadBalancer', 'k8ssdk/brightbox_interface.go:129 (load_balancer.go:181)', 'brightbox.load_balancers.update'],
  ['DestroyLoadBalancer', 'k8ssdk/brightbox_interface.go:364 (load_balancer.go:41)', 'brightbox.load_balancers.delete'],
  ['FirewallPolicies', 'k8ssdk/brightbox_interface.go:139 (load_balancer_firewall.go:76,168)', 'brightbox.firewall_policies.list'],
  ['CreateFirewallPolicy', 'k8ssdk/brightbox_interface.go:277 (load_balancer_firewall.go:81)', 'brightbox.firewall_policies.create'],
  ['DestroyFirewallPolicy', 'k8ssdk/brightbox_interface.go:397 (load_balancer_firewall.go:176)', 'brightbox.firewall_policies.delete'],
  ['CreateFirewallRule', 'k8ssdk/brightbox_interface.go:287 (load_balancer_firewall.go:97)', 'brightbox.firewall_rules.create'],
  ['UpdateFirewallRule', 'k8ssdk/brightbox_interface.go:297 (load_balancer_firewall.go:101)', 'brightbox.firewall_rules.update'],
  ['ServerGroups', 'k8ssdk/brightbox_interface.go:230 (load_balancer_firewall.go:57,145)', 'brightbox.server_groups.list'],
  ['CreateServerGroup', 'k8ssdk/brightbox_interface.go:267 (load_balancer_firewall.go:62)', 'brightbox.server_groups.create'],
  ['AddServersToServerGroup', 'k8ssdk/brightbox_interface.go:482 (load_balancer_firewall.go:67)', 'brightbox.server_groups.add_servers'],
  ['RemoveServersFromServerGroup', 'k8ssdk/brightbox_interface.go:492 (load_balancer_firewall.go:67,153)', 'brightbox.server_groups.remove_servers'],
  ['DestroyServerGroup', 'k8ssdk/brightbox_interface.go:386 (load_balancer_firewall.go:158)', 'brightbox.server_groups.delete'],
  ['CloudIPs', 'k8ssdk/brightbox_interface.go:342 (cloud_ip.go:46,77,93)', 'brightbox.cloud_ips.list'],
  ['CloudIP', 'k8ssdk/brightbox_interface.go:352 (cloud_ip.go:63)', 'brightbox.cloud_ips.get'],
  ['CreateCloudIP', 'k8ssdk/brightbox_interface.go:332 (cloud_ip.go:103)', 'brightbox.cloud_ips.create'],
  ['MapCloudIP', 'k8ssdk/brightbox_interface.go:314 (load_balancer_cloud.go:78)', 'brightbox.cloud_ips.map'],
  ['UnMapCloudIP', 'k8ssdk/brightbox_interface.go:419 (load_balancer_cloud.go:82)', 'brightbox.cloud_ips.unmap'],
  ['DestroyCloudIP', 'k8ssdk/brightbox_interface.go:408 (cloud_ip.go:51)', 'brightbox.cloud_ips.delete'],
  ['EC2 metadata placement/availability-zone (GetZone)', 'zones.go:43', '(not served: the metadata service; no controller of the CCM calls GetZone)'],
];

const ASYNC = "answers 202 at once; the status follows simcloud's action";
const NAMES =
  "names must be unique per project and simcloud names (1-63 letters, digits, dots, dashes or underscores, starting and ending alphanumeric), as the CCM's are";

/** Served endpoints, by route operation. */
export const ENDPOINTS: Readonly<Record<string, ParityEntry>> = {
  'brightbox.auth.token': diff(
    'client_credentials only; the secret is a simcloud project token and the client id is derived from it (`cli-` + 5 base-36 digits); 7200 s of the wall clock (time control leaves it alone); scope echoed, not enforced',
  ),
  'brightbox.accounts.list': diff('one account: the project'),
  'brightbox.zones.list': diff("simcloud's zones as `<region>-<letter>` handles"),
  'brightbox.server_types.list': diff("simcloud's server types"),
  'brightbox.server_types.get': diff('by id or handle'),
  'brightbox.images.list': diff("simcloud's images, official and public"),
  'brightbox.servers.list': ok,
  'brightbox.servers.get': ok,
  'brightbox.servers.create': diff(
    `${ASYNC}; name, image, server_type and zone are used; user_data and disk_encrypted are accepted without effect; server_groups, cloud_ip and compatibility_mode are refused`,
  ),
  'brightbox.servers.delete': diff(ASYNC),
  'brightbox.server_groups.list': ok,
  'brightbox.server_groups.get': ok,
  'brightbox.server_groups.create': diff(NAMES),
  'brightbox.server_groups.add_servers': ok,
  'brightbox.server_groups.remove_servers': diff('servers that are not members are skipped'),
  'brightbox.server_groups.delete': diff('takes its firewall policy off it first (two commits)'),
  'brightbox.firewall_policies.list': ok,
  'brightbox.firewall_policies.get': ok,
  'brightbox.firewall_policies.create': diff(NAMES),
  'brightbox.firewall_policies.delete': ok,
  'brightbox.firewall_rules.create': diff(
    "kept as given; simcloud's rules are derived: inbound when a source is set, one per destination port entry, CIDR sources only (server and group sources match nothing); a port entry that is no port or range, or an address or CIDR that is not valid, is refused with 400",
  ),
  'brightbox.firewall_rules.get': ok,
  'brightbox.firewall_rules.update': diff('as create; a rule cannot move to another policy'),
  'brightbox.firewall_rules.delete': ok,
  'brightbox.load_balancers.list': ok,
  'brightbox.load_balancers.get': ok,
  'brightbox.load_balancers.create': diff(
    `${ASYNC} (creating, then active); ${NAMES}; listeners are forwarded at TCP level, https ones after terminating TLS with certificate_pem and certificate_private_key (checked, sent together); ACME domains are refused; buffer size, ssl_minimum_version and listener timeouts are kept without effect`,
  ),
  'brightbox.load_balancers.update': diff('replaces what the request gives, at once'),
  'brightbox.load_balancers.delete': diff(`${ASYNC}; its cloud IPs are unmapped`),
  'brightbox.cloud_ips.list': diff('every IP block of the project is a cloud IP (its first usable address)'),
  'brightbox.cloud_ips.get': ok,
  'brightbox.cloud_ips.create': diff("a /30 from simcloud's IP-block pool (loopback) in the first region; reverse_dns and port translators are refused"),
  'brightbox.cloud_ips.map': diff(
    "to a load balancer (the block's address becomes its VIP) or a server (data only); mapping a mapped cloud IP is refused with 422",
  ),
  'brightbox.cloud_ips.unmap': diff('the load balancer keeps serving on a fresh pool VIP'),
  'brightbox.cloud_ips.delete': diff('refused with 422 while mapped'),
};

/** Endpoints of the same API that the persona does not serve (404). */
export const NOT_SERVED: readonly (readonly [string, string])[] = [
  ['PUT /servers/{id}, POST /servers/{id}/start, /stop, /reboot, /reset, /shutdown, /resize, /lock_resource', 'server changes outside the CCM subset'],
  [
    'PUT /server_groups/{id}, /firewall_policies/{id}, POST /firewall_policies/{id}/apply_to, /remove, /server_groups/{id}/move_servers',
    'not called by the CCM',
  ],
  [
    'PUT /cloud_ips/{id}, PUT /load_balancers/{id}/lock_resource, /add_nodes, /remove_nodes, /add_listeners, /remove_listeners',
    'the CCM replaces nodes and listeners through PUT',
  ],
  ['GET /accounts/{id}', 'the CCM reads the account list only'],
  ['/config_maps, /volumes, /database_servers, /api_clients, /users, /collaborations, Orbit', 'resources outside the CCM subset'],
];

const ID = diff("Brightbox's prefix and base-36 digits of the number in simcloud's id (srv-00000042 is srv-00016)");
const REF = diff('short references of related resources, as Brightbox nests them');
const URL = diff('host-relative (`/brightbox/1.0/…`)');

/** Errors, authentication and headers: the one table not made from a response schema. */
const ERRORS: readonly FieldParity[] = [
  {
    field: 'error_name',
    ...diff(
      'missing_resource (404), bad_request (400, invalid or unreadable input), invalid_resource (422, a conflicting state), locked_resource (409), forbidden, rate_limited',
    ),
  },
  { field: 'errors', ...diff("simcloud's message with Brightbox ids, then `field: message` per field at fault") },
  {
    field: 'auth errors',
    ...diff(
      'OAuth2 `{error, error_description}`: invalid_client (401), unsupported_grant_type, invalid_scope (400); invalid_token (401) for a missing, foreign or expired bearer',
    ),
  },
  { field: 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset', ...diff('only while a rate limit is configured or injected; Reset a Unix time') },
];

/** How the fields of the objects the persona returns differ; every field of their schemas is a row. */
export const FIELDS: Readonly<Record<string, readonly FieldParity[]>> = {
  ...fieldTables({
    server: [
      S.Server,
      {
        id: ID,
        url: URL,
        status: diff('creating while simcloud initializes or starts, inactive when off, active otherwise, deleting'),
        hostname: diff("the server id, as Brightbox's"),
        fqdn: diff('under `brightbox.simcloud.test`, which nothing resolves'),
        ...each(['account', 'image', 'zone', 'server_type', 'server_groups'], REF),
        interfaces: diff(
          "one interface with the server's public IPv4 and IPv6 (Brightbox shows its private 10.x address there; the CCM writes both as ExternalIP)",
        ),
        cloud_ips: diff('IP blocks assigned to the server'),
        ...each(['locked', 'compatibility_mode', 'disk_encrypted'], diff('always false')),
        started_at: diff('the created time while running'),
        deleted_at: none('always null'),
        snapshots: none('always empty'),
      },
    ],
    load_balancer: [
      S.LoadBalancer,
      {
        id: ID,
        url: URL,
        status: diff("creating while simcloud provisions, active, deleting, failed on simcloud's error"),
        nodes: diff('its server targets'),
        listeners: diff("simcloud's services; timeout and the v2-ssl proxy spellings are kept without effect"),
        healthcheck: diff("one check for every service, as given; milliseconds become simcloud's seconds; threshold_up kept without effect"),
        cloud_ips: diff('IP blocks assigned to it'),
        policy: diff('least_connections, round_robin, or round_robin with source-IP affinity'),
        ...each(['buffer_size', 'ssl_minimum_version'], diff('kept without effect')),
        https_redirect: diff("http listeners answer 301 to the first https listener's port"),
        certificate: diff("the uploaded certificate's dates, issuer and subject (sslv3 false); null without one"),
        acme: none('always null'),
        locked: diff('always false'),
        account: REF,
        deleted_at: none('always null'),
      },
    ],
    cloud_ip: [
      S.CloudIp,
      {
        id: ID,
        url: URL,
        name: diff("the IP block's description"),
        ...each(['public_ip', 'public_ipv4'], diff("the block's first usable address (loopback)")),
        public_ipv6: diff('`::ffff:127.0.0.1` for every cloud IP (data only), so that `localhost` resolves to one of its addresses'),
        ...each(
          ['reverse_dns', 'fqdn'],
          diff("`localhost` for every cloud IP: the one name the sandbox host resolves (Brightbox's CCM checks both resolve to the cloud IP)"),
        ),
        status: diff('mapped while the block is assigned'),
        mode: diff('always nat'),
        ...each(['load_balancer', 'server'], REF),
        interface: diff("the server's one interface, when mapped to a server"),
        ...each(['server_group', 'database_server'], none('always null')),
        port_translators: none('always empty'),
      },
    ],
    server_group: [
      S.ServerGroup,
      {
        id: ID,
        url: URL,
        default: diff('always false'),
        fqdn: diff('under `brightbox.simcloud.test`'),
        ...each(['servers', 'firewall_policy', 'account'], REF),
      },
    ],
    firewall_policy: [
      S.FirewallPolicy,
      { id: ID, url: URL, default: diff('always false'), rules: diff('the Brightbox rules as given'), ...each(['server_group', 'account'], REF) },
    ],
    firewall_rule: [S.FirewallRule, { id: diff("`fwr-`, its policy's digits and a serial"), url: URL, firewall_policy: REF }],
    server_type: [S.ServerType, { id: diff('`typ-` and its position'), handle: diff("simcloud's server type id"), storage_type: diff('always local') }],
    image: [
      S.Image,
      {
        id: diff('`img-` and its position'),
        ...each(['username', 'description', 'source', 'owner', 'created_at'], diff('fixed')),
        ...each(['virtual_size', 'disk_size'], none('always 0')),
      },
    ],
    zone: [S.Zone, { id: diff('`zon-` and its position'), handle: diff('`<region>-<letter>`: sim-1a is sim-1-a') }],
    account: [
      S.Account,
      { id: ID, name: diff('the project id'), ...each(['ram_limit', 'cloud_ips_limit', 'load_balancers_limit'], diff('fixed, not enforced')), zones: REF },
    ],
    'access token': [
      TokenResponse,
      {
        access_token: diff('HMAC-signed per project token, checked and not stored'),
        expires_in: diff('7200 s of the wall clock, which time control leaves alone'),
        scope: diff('echoed'),
      },
    ],
  }),
  'errors, auth and rate limits': ERRORS,
};
