/**
 * How closely the phoenixNAP persona follows phoenixNAP's BMC API v1, IP API v1, networks API v1, tag API v1
 * and its OAuth2 token endpoint: a status per endpoint it serves (keyed by route operation, so a route without an
 * entry fails parity.test.ts), the endpoints of the same resources it does not serve, and how the fields of the
 * objects it returns differ (the fields themselves come from its response schemas, see ../parity-fields.ts).
 * scripts/generate-docs.ts renders this as docs/reference/phoenixnap-parity.md.
 */
import { differs as diff, each, emulated as ok, fieldTables, notEmulated as none, type FieldParity, type ParityEntry } from '../parity-fields.ts';
import { TokenResponse } from './auth.ts';
import * as S from './schemas.ts';

const ASYNC = "answers at once; the server's status follows simcloud's action";

/** Served endpoints, by route operation. */
export const ENDPOINTS: Readonly<Record<string, ParityEntry>> = {
  'phoenixnap.auth.token': diff(
    "client_credentials only; the client secret is a simcloud project token and its client id is derived from it (`simcloud-` + 20 hex digits); HS256 JWTs signed with the state's realm key, 3600 s of the wall clock (time control leaves it alone), no refresh tokens; scopes are echoed, not enforced",
  ),
  'phoenixnap.servers.list': diff("`tag=name.value` and `tag=name` filters (all must match); no paging, as phoenixNAP's list has none"),
  'phoenixnap.servers.create': diff(
    "hostname, os, type, location, tags, networkType and USER_DEFINED private networks (ids, one IP each) are used; description, SSH keys, reservation and OS configuration are accepted without effect; USE_OR_CREATE_DEFAULT joins no network; IP blocks at create (PURCHASE_NEW, USER_DEFINED) and public networks are refused with 400; os and type are simcloud's images and server types",
  ),
  'phoenixnap.servers.get': diff(
    "a server of the caller's that was deleted is 403, as phoenixNAP answers it (k8s-cloud-provider-bmc d84a2c5), and so is every other call naming it; an id that never named one of the caller's servers is 404",
  ),
  'phoenixnap.servers.patch': diff('hostname renames the server; description is accepted without effect'),
  'phoenixnap.servers.delete': diff(`${ASYNC}; its IP blocks stay, unassigned`),
  'phoenixnap.servers.deprovision': diff(`${ASYNC}; deleteIpBlocks: true is refused with 400 (release blocks through the IP API); the answer is a JSON string`),
  'phoenixnap.servers.tags': diff('tags are simcloud labels: one value per name, names and values within label rules'),
  'phoenixnap.servers.power-on': diff(ASYNC),
  'phoenixnap.servers.power-off': diff(ASYNC),
  'phoenixnap.servers.reboot': diff(ASYNC),
  'phoenixnap.servers.shutdown': diff(ASYNC),
  'phoenixnap.servers.ip-blocks.add': diff("assigns the block to the server (simcloud's `assigned_to: server`); routed as data, no traffic reaches it"),
  'phoenixnap.servers.ip-blocks.remove': diff('unassigns the block; deleteIpBlocks: true is refused with 400; the answer is a JSON string'),
  'phoenixnap.servers.private-networks.add': diff('one IP (or the next free one) per network; DHCP is not emulated'),
  'phoenixnap.servers.private-networks.remove': diff('the answer is a JSON string'),
  'phoenixnap.servers.public-networks.add': diff(
    'kept on the server record at once (statusDescription assigning in the answer, assigned after); ips must be usable addresses of IP blocks on the network, held by no other member (409); ips may be empty, a membership with no address; no address is configured on the server',
  ),
  'phoenixnap.servers.public-networks.remove': diff('the answer is a JSON string'),
  'phoenixnap.ip-blocks.list': diff('`tag` filters as for servers; no paging'),
  'phoenixnap.ip-blocks.create': diff(
    "/24 to /30 from simcloud's IP-block pool (loopback); /29 when cidrBlockSize is absent; /31 is refused (a simcloud block keeps a gateway)",
  ),
  'phoenixnap.ip-blocks.get': ok,
  'phoenixnap.ip-blocks.patch': ok,
  'phoenixnap.ip-blocks.tags': diff('tags as simcloud IP block tags, one value per name'),
  'phoenixnap.ip-blocks.delete': diff('refused with 409 while assigned; gone at once'),
  'phoenixnap.private-networks.list': diff('location filter; no paging'),
  'phoenixnap.private-networks.create': diff(
    "name and cidr are used (one subnet in the location's first zone); description and locationDefault are accepted without effect",
  ),
  'phoenixnap.private-networks.get': ok,
  'phoenixnap.private-networks.modify': diff('name is used; description and locationDefault are accepted without effect'),
  'phoenixnap.private-networks.delete': diff('refused with 409 while servers are members'),
  'phoenixnap.public-networks.list': diff('location filter; no paging'),
  'phoenixnap.public-networks.create': diff(
    'name, location and ipBlocks are used (a simcloud network labelled phoenixnap-public-network, spaces in the name become dashes, and it is at most 63 characters, not 100); description is accepted without effect',
  ),
  'phoenixnap.public-networks.get': ok,
  'phoenixnap.public-networks.delete': diff('refused with 409 while IP blocks are on it or servers are members'),
  'phoenixnap.public-networks.ip-blocks.add': diff(
    "assigns the block to the network (simcloud's `assigned_to: network`) at once; 409 when the block is assigned elsewhere",
  ),
  'phoenixnap.public-networks.ip-blocks.remove': diff(
    'unassigns the block at once (never `unassigning`); refused with 409 while a member server holds one of its addresses; the answer is a JSON string',
  ),
  'phoenixnap.tags.list': diff("the caller's tag records, each with the servers (labels) and IP blocks (tags) carrying its name; name filter; no paging"),
  'phoenixnap.tags.create': diff(
    "a tag record of the caller's project; 409 naming name when one has the name; names are label names (1-63 letters, digits, dashes, underscores)",
  ),
  'phoenixnap.tags.get': ok,
  'phoenixnap.tags.update': diff('a rename renames the tag on every resource carrying it (409 when one already carries the new name)'),
  'phoenixnap.tags.delete': diff('takes the tag off every resource carrying it, in the same commit'),
};

/** Endpoints of the same APIs that the persona does not serve (404). */
export const NOT_SERVED: readonly (readonly [string, string])[] = [
  ['POST /servers/{id}/actions/reset, /actions/reserve', 'no reimaging or reservations in simcloud'],
  ['PATCH /public-networks/{id} (networks API), /ssh-keys, /quotas (BMC API)', 'resources outside the CCM subset'],
  ['/locations, /products, /invoicing, /audit', 'other phoenixNAP APIs'],
];

const ID = diff("24 digits: a1 and the number in simcloud's id (srv-00000042 is a10000000000000000000042)");
const TAGS = diff(
  "simcloud labels (server) or IP block tags, assigned whether or not a tag record has the name (phoenixNAP requires one: its CCM makes them first, phoenixnap/tags.go); the id is the record's, else 24 hex digits spelled from the project and the name; isBillingTag false, createdBy USER",
);

/** Errors, authentication and headers: the one table not made from a response schema. */
const ERRORS: readonly FieldParity[] = [
  { field: 'message', ...diff("simcloud's message with phoenixNAP ids; Unauthorized, Too Many Requests") },
  { field: 'validationErrors', ...diff('`field: message` per field at fault') },
  {
    field: 'statuses',
    ...diff("400 bad input, 401, 403 (also a deleted server's id), 404 (an id that never existed), 409 conflicts and busy servers, 429, 500, 503"),
  },
  { field: 'token errors', ...diff('OAuth2 `{error, error_description}`: invalid_client (401), unsupported_grant_type, invalid_scope (400)') },
  { field: 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset', ...diff('only while a rate limit is configured or injected; Reset in seconds') },
];

/** How the fields of the objects the persona returns differ; every field of their schemas is a row. */
export const FIELDS: Readonly<Record<string, readonly FieldParity[]>> = {
  ...fieldTables({
    server: [
      S.Server,
      {
        id: ID,
        status: diff(
          'creating while simcloud initializes, powered-on or powered-off (also while starting or stopping), deleting; never rebooting, resetting or error',
        ),
        ...each(['os', 'type'], diff("simcloud's image and server type ids")),
        location: diff("simcloud's region (sim-1, sim-2), not a three-letter code"),
        ...each(['cpu', 'cpuCount', 'coresPerCpu', 'cpuFrequency', 'ram', 'storage'], diff("from simcloud's server type")),
        privateIpAddresses: diff("the server's address on each simcloud network"),
        publicIpAddresses: diff("simcloud's public loopback address, then the usable addresses of IP blocks assigned to the server"),
        pricingModel: diff('always HOURLY'),
        networkType: diff('PRIVATE_ONLY when the server has no public address'),
        tags: TAGS,
        provisionedOn: diff("simcloud's created time"),
        description: none('absent'),
        'networkConfiguration.gatewayAddress': none('absent'),
        'networkConfiguration.privateNetworkConfiguration': diff('USER_DEFINED, one entry per simcloud network'),
        'networkConfiguration.ipBlocksConfiguration': diff('the IP blocks assigned to the server; vlanId absent'),
        'networkConfiguration.publicNetworkConfiguration': diff(
          'the public networks the server joined, with the addresses it holds there; statusDescription always assigned',
        ),
      },
    ],
    ip_block: [
      S.IpBlock,
      {
        id: ID,
        location: diff("simcloud's region"),
        cidr: diff('a loopback range'),
        status: diff('assigned or unassigned; never assigning or unassigning'),
        ...each(
          ['assignedResourceId', 'assignedResourceType'],
          diff('server or PUBLIC_NETWORK (any simcloud network); load-balancer for blocks assigned through /v1'),
        ),
        tags: TAGS,
        isBringYourOwn: diff('always false'),
      },
    ],
    private_network: [
      S.PrivateNetwork,
      {
        id: ID,
        type: diff('always PRIVATE'),
        vlanId: diff('fixed per network, 10 to 4009'),
        location: diff("the region of the network's first subnet"),
        locationDefault: diff('always false'),
        ...each(['servers', 'memberships'], diff('the servers on the network with their address')),
        description: none('absent'),
      },
    ],
    public_network: [
      S.PublicNetwork,
      {
        id: ID,
        vlanId: diff('fixed per network, 10 to 4009'),
        location: diff("simcloud's region, as given at create"),
        memberships: diff('the servers that joined it (resourceType server) with the addresses they hold'),
        ipBlocks: diff('the blocks assigned to the network'),
        description: none('absent'),
      },
    ],
    tag: [
      S.Tag,
      {
        id: ID,
        values: diff('the values the resources carrying it hold'),
        resourceAssignments: diff('/bmc/servers/{id} and /ips/ip-blocks/{id} carrying its name'),
        createdBy: diff('always USER'),
      },
    ],
    'access token': [
      TokenResponse,
      {
        access_token: diff("an HS256 JWT signed with the state's realm key, checked and not stored"),
        expires_in: diff('3600 s of the wall clock, which time control leaves alone'),
        refresh_expires_in: diff('always 0: no refresh tokens'),
        scope: diff('echoed, not enforced'),
      },
    ],
  }),
  'errors, auth and rate limits': ERRORS,
};
