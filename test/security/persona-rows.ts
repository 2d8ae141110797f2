// The rows of the persona security suite (personas.test.ts): for each provider persona simcloud speaks, its
// route table, how its paths name a project's resources, a valid body for each route that takes one, the
// requests that smuggle another project's ids in a body, and how to read its error envelope. A persona
// added later is covered by adding its row here; the suite fails for a route of a row that it cannot
// aim at a resource, so a new route cannot slip past unattacked.
import type { RouteDef } from '../../simulator/server/route-definitions.ts';
import { HCLOUD_ROUTES } from '../../simulator/personas/hcloud/persona.ts';
import { LINODE_ROUTES } from '../../simulator/personas/linode/persona.ts';
import { intToIp, ipToInt } from '../../lib/ip.ts';
import { DIGITALOCEAN_ROUTES } from '../../simulator/personas/digitalocean/persona.ts';
import { PHOENIXNAP_ROUTES } from '../../simulator/personas/phoenixnap/persona.ts';
import { phoenixnapAccessToken } from '../../sandbox/cloud/phoenixnap/env.ts';
import { BRIGHTBOX_ROUTES } from '../../simulator/personas/brightbox/persona.ts';
import { brightboxAccessToken } from '../../sandbox/cloud/brightbox/env.ts';
import { selfSignedServingCertificate } from '../../src/self-signed.ts';
import type { RawResponse } from './support.ts';

/** One project's resources as numbers (every persona shows a simcloud id's number), made through /v1. */
export interface Owned {
  readonly tag: string;
  readonly token: string;
  readonly server: number;
  readonly network: number;
  readonly lb: number;
  /** The action that created the server, added the network's route, created the LB. */
  readonly actions: { readonly servers: number; readonly networks: number; readonly load_balancers: number };
  /** The gateway of the network's one route (to 10.244.1.0/24). */
  readonly gateway: string;
  /** The LB's service listens on 80 and forwards to 8080 on its one server target. */
  readonly serverIp: string;
  /** Resources the row's own setup made through the persona (a Linode firewall), by name. */
  readonly extra: Readonly<Record<string, number>>;
}

export type Request = readonly [method: string, path: string, body: unknown];

export interface PersonaRow {
  readonly name: string;
  readonly prefix: string;
  readonly routes: readonly RouteDef[];
  /** The bearer of a project token, for a persona that takes only tokens it issues (phoenixNAP's OAuth2). */
  bearer?(simcloudUrl: string, token: string): Promise<string>;
  /** Makes the persona-only resources of a project through the persona (POST path and body, or a body from what the earlier ones made), after the /v1 ones. */
  setup?(o: Owned): readonly (readonly [name: string, path: string, body: unknown])[];
  /** The number of what a setup request made, from its answer (default: the answer's `id`). */
  madeId?(answer: unknown): number;
  /** Routes whose path ids name shared catalogue entries, not a project's resources. */
  readonly catalogue: RegExp;
  /** The path parameters naming `o`'s resources (throws for a parameter the row does not know). */
  params(path: string, o: Owned): Record<string, string>;
  /** A body the route accepts from `self` (ids inside are self's own); undefined: none needed. */
  body(key: string, self: Owned): unknown;
  /** Requests by `self` naming `other`'s resources inside the body or query. */
  foreignRefs(self: Owned, other: Owned): readonly Request[];
  /** A selector target on self's LB that `other`'s servers match (label or tag), and the GET that shows what it resolved to. */
  selector?(self: Owned, other: Owned): { readonly request: Request; readonly show: string };
  /** List paths (with queries) that must show nothing of `other`'s. */
  lists(other: Owned): readonly string[];
  /** A creation request and bodies it must refuse, each with the field the answer names. */
  readonly create: {
    readonly path: string;
    body(self: Owned): Record<string, unknown>;
    readonly invalid: readonly (readonly [Record<string, unknown>, string])[];
  };
  /** The answer's code (or Linode's reason) and the fields it names, from the persona's envelope. */
  read(r: RawResponse): { code: string; fields: string[] };
  readonly codes: {
    readonly notFound: string;
    readonly unauthorized: string;
    /** A body that parses but fails the schema (DigitalOcean answers those 422, the others 400). */
    readonly invalid: RegExp;
    readonly invalidStatus: number;
    /** A body that does not parse (always 400). */
    readonly unreadable: RegExp;
  };
}

function fill(path: string, values: Record<string, number | string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [, name] of path.matchAll(/:(\w+)/g)) {
    const v = values[name!];
    if (v === undefined) throw new Error(`no value for :${name} in ${path}; extend the persona's row`);
    out[name!] = String(v);
  }
  return out;
}

const HCLOUD = '/hcloud/v1';
type HcloudKind = keyof Owned['actions'];
const HCLOUD_ID: Record<HcloudKind, 'server' | 'network' | 'lb'> = { servers: 'server', networks: 'network', load_balancers: 'lb' };

function hcloudParams(path: string, o: Owned): Record<string, string> {
  const [kind = '', second] = path.slice(HCLOUD.length + 1).split('/');
  if (kind === 'actions') return fill(path, { id: o.actions.servers });
  if (kind === 'certificates') return fill(path, { id: o.extra.certificate });
  if (!(kind in HCLOUD_ID)) return fill(path, {});
  const k = kind as HcloudKind;
  // /servers/actions/:id is an action of that type; /servers/:id/actions/:action one of that resource.
  return fill(path, second === 'actions' ? { id: o.actions[k] } : { id: o[HCLOUD_ID[k]], action: o.actions[k] });
}

function hcloudBodies(s: Owned): Record<string, unknown> {
  const lb = `post ${HCLOUD}/load_balancers/:id/actions/`;
  return {
    [`put ${HCLOUD}/servers/:id`]: { labels: { stolen: 'yes' } },
    [`put ${HCLOUD}/networks/:id`]: { name: `${s.tag}-renamed` },
    [`put ${HCLOUD}/load_balancers/:id`]: { name: `${s.tag}-renamed` },
    [`put ${HCLOUD}/certificates/:id`]: { name: `${s.tag}-renamed-cert` },
    [`post ${HCLOUD}/servers/:id/actions/attach_to_network`]: { network: s.network },
    [`post ${HCLOUD}/servers/:id/actions/change_dns_ptr`]: { ip: '127.0.0.1', dns_ptr: 'stolen.example' },
    [`post ${HCLOUD}/servers/:id/actions/detach_from_network`]: { network: s.network },
    [`post ${HCLOUD}/networks/:id/actions/add_route`]: { destination: '10.244.9.0/24', gateway: s.gateway },
    [`post ${HCLOUD}/networks/:id/actions/delete_route`]: { destination: '10.244.1.0/24', gateway: s.gateway },
    [`${lb}add_service`]: { protocol: 'tcp', listen_port: 81, destination_port: 8081 },
    [`${lb}update_service`]: { listen_port: 80, destination_port: 8082 },
    [`${lb}delete_service`]: { listen_port: 80 },
    [`${lb}add_target`]: { type: 'ip', ip: { ip: '127.0.0.9' } },
    [`${lb}remove_target`]: { type: 'server', server: { id: s.server } },
    [`${lb}change_algorithm`]: { type: 'least_connections' },
    [`${lb}change_type`]: { load_balancer_type: 'lb21' },
    [`${lb}change_dns_ptr`]: { ip: '127.0.0.1', dns_ptr: 'stolen.example' },
    [`${lb}attach_to_network`]: { network: s.network },
    [`${lb}detach_from_network`]: { network: s.network },
  };
}

const hcloudLb = (name: string, extra: Record<string, unknown>): Record<string, unknown> => ({ name, load_balancer_type: 'lb11', location: 'sim-1', ...extra });

const hcloud: PersonaRow = {
  name: 'hcloud',
  prefix: HCLOUD,
  routes: HCLOUD_ROUTES,
  setup: (o) => [['certificate', `${HCLOUD}/certificates`, { name: `${o.tag}-cert`, certificate: PEM.cert, private_key: PEM.key }]],
  madeId: (answer) => (answer as { certificate: { id: number } }).certificate.id,
  catalogue: /^\/hcloud\/v1\/(server_types|images|locations|datacenters|load_balancer_types)\//,
  params: hcloudParams,
  body: (key, self) => hcloudBodies(self)[key] ?? (key.startsWith('post ') || key.startsWith('put ') ? {} : undefined),
  foreignRefs: (s, o) => [
    ['POST', `${HCLOUD}/load_balancers`, hcloudLb('steal-target', { targets: [{ type: 'server', server: { id: o.server } }] })],
    ['POST', `${HCLOUD}/load_balancers`, hcloudLb('steal-net', { network: o.network })],
    ['POST', `${HCLOUD}/servers`, { name: 'steal-net', server_type: 'sc-small', image: 'ubuntu-24.04', networks: [o.network] }],
    ['POST', `${HCLOUD}/load_balancers/${s.lb}/actions/add_target`, { type: 'server', server: { id: o.server } }],
    ['POST', `${HCLOUD}/load_balancers/${s.lb}/actions/remove_target`, { type: 'server', server: { id: o.server } }],
    ['POST', `${HCLOUD}/load_balancers/${s.lb}/actions/attach_to_network`, { network: o.network }],
    ['POST', `${HCLOUD}/servers/${s.server}/actions/attach_to_network`, { network: o.network }],
    ['POST', `${HCLOUD}/servers/${s.server}/actions/detach_from_network`, { network: o.network }],
    ['GET', `${HCLOUD}/servers/${s.server}/actions/${o.actions.servers}`, undefined],
    ['GET', `${HCLOUD}/load_balancers/${s.lb}/actions/${o.actions.load_balancers}`, undefined],
    [
      'POST',
      `${HCLOUD}/load_balancers`,
      hcloudLb('steal-cert', { services: [{ protocol: 'https', listen_port: 443, destination_port: 8443, http: { certificates: [o.extra.certificate] } }] }),
    ],
    [
      'POST',
      `${HCLOUD}/load_balancers/${s.lb}/actions/add_service`,
      { protocol: 'https', listen_port: 443, destination_port: 8443, http: { certificates: [o.extra.certificate] } },
    ],
  ],
  selector: (s, o) => ({
    request: ['POST', `${HCLOUD}/load_balancers/${s.lb}/actions/add_target`, { type: 'label_selector', label_selector: { selector: `role=${o.tag}` } }],
    show: `${HCLOUD}/load_balancers/${s.lb}`,
  }),
  lists: (o) => [
    `${HCLOUD}/servers`,
    `${HCLOUD}/networks`,
    `${HCLOUD}/load_balancers`,
    `${HCLOUD}/certificates`,
    `${HCLOUD}/servers?label_selector=role%3D${o.tag}`,
    `${HCLOUD}/actions?id=${o.actions.servers}&id=${o.actions.networks}&id=${o.actions.load_balancers}`,
    `${HCLOUD}/servers/actions?id=${o.actions.servers}`,
    `${HCLOUD}/load_balancers/actions?id=${o.actions.load_balancers}`,
  ],
  create: {
    path: `${HCLOUD}/servers`,
    body: (s) => ({ name: `${s.tag}-new`, server_type: 'sc-small', image: 'ubuntu-24.04', location: 'sim-1' }),
    invalid: [
      [{ name: 'x'.repeat(300) }, 'name'],
      [{ labels: { '../../etc': 'x' } }, 'labels.../../etc'],
      [{ networks: ['../1'] }, 'networks.0'],
      [{ extra: true }, ''],
      [{ constructor: { prototype: { admin: true } } }, ''],
    ],
  },
  read: (r) => {
    const e = (r.json() as { error: { code: string; details?: { fields?: { name: string }[] } } }).error;
    return { code: e.code, fields: (e.details?.fields ?? []).map((f) => f.name) };
  },
  codes: { notFound: 'not_found', unauthorized: 'unauthorized', invalid: /^invalid_input$/, invalidStatus: 400, unreadable: /^json_error$/ },
};

const LINODE = '/v4';
const FW = `${LINODE}/networking/firewalls`;
const RULES = {
  inbound_policy: 'DROP',
  outbound_policy: 'ACCEPT',
  inbound: [{ action: 'ACCEPT', protocol: 'TCP', ports: '80', addresses: { ipv4: ['127.0.0.0/8'] } }],
};

function linodeParams(path: string, o: Owned): Record<string, string> {
  // The setup's NodeBalancer in the VPC has one backend config, numbered as its subnet.
  if (path.startsWith(`${LINODE}/nodebalancers/:id/vpcs`)) return fill(path, { id: o.extra.nbvpc, configId: o.network * 100 + 1 });
  // A NodeBalancer made through /v1 shows its service on port 80 as config 80 and its first target as node 80001.
  if (path.startsWith(`${LINODE}/nodebalancers/`)) return fill(path, { id: o.lb, cid: 80, nid: 80_001 });
  // The setup's reserved address, kept as its number.
  if (path.startsWith(`${LINODE}/networking/reserved/ips/`) || path.startsWith(`${LINODE}/networking/ips/`))
    return fill(path, { address: intToIp(o.extra.reserved ?? 0) });
  // The server is on the network, so its one config (the server's number) has an interface named by the VPC's.
  if (path.startsWith(`${LINODE}/linode/instances/`)) return fill(path, { id: o.server, cid: o.server, iid: o.network });
  // A VPC's subnets are numbered from its own number (times 100, plus the position).
  if (path.startsWith(`${LINODE}/vpcs/`)) return fill(path, { id: o.network, sid: o.network * 100 + 1 });
  if (path.startsWith(`${LINODE}/networking/firewalls/`)) return fill(path, { id: o.extra.firewall, did: o.lb });
  return fill(path, {});
}

function linodeBodies(s: Owned): Record<string, unknown> {
  const nb = `${LINODE}/nodebalancers/:id`;
  const node = { address: `${s.serverIp}:8080`, label: `${s.tag}-node` };
  return {
    [`put ${LINODE}/linode/instances/:id`]: { tags: ['stolen'] },
    [`put ${nb}`]: { label: `${s.tag}-renamed` },
    [`post ${nb}/configs`]: { port: 81, protocol: 'tcp', nodes: [node] },
    [`put ${nb}/configs/:cid`]: { check_interval: 10 },
    [`post ${nb}/configs/:cid/rebuild`]: { port: 80, protocol: 'tcp', nodes: [{ ...node, id: 80_001 }] },
    [`post ${nb}/configs/:cid/nodes`]: { address: '127.0.0.9:8080', label: 'extra-node' },
    [`put ${nb}/configs/:cid/nodes/:nid`]: { weight: 50 },
    [`put ${FW}/:id`]: { label: `${s.tag}-fw2` },
    [`put ${FW}/:id/rules`]: RULES,
    [`post ${FW}/:id/devices`]: { id: s.lb, type: 'nodebalancer' },
    [`put ${LINODE}/networking/reserved/ips/:address`]: { tags: ['owner'] },
    [`put ${LINODE}/networking/ips/:address`]: { reserved: true },
  };
}

const linode: PersonaRow = {
  name: 'linode',
  prefix: LINODE,
  routes: LINODE_ROUTES,
  setup: (o) => [
    ['firewall', FW, { label: `${o.tag}-fw`, rules: RULES, devices: { nodebalancers: [o.lb] } }],
    ['nbvpc', `${LINODE}/nodebalancers`, { region: 'sim-1', label: `${o.tag}-nbv`, vpcs: [{ subnet_id: o.network * 100 + 1 }] }],
    ['reserved', `${LINODE}/networking/reserved/ips`, { region: 'sim-1' }],
  ],
  // A reserved address is named by itself, not a number: kept as its 32-bit value.
  madeId: (answer) => {
    const a = answer as { id?: unknown; address?: unknown };
    return typeof a.id === 'number' ? a.id : ipToInt(String(a.address));
  },
  catalogue: /^\/v4\/(regions|linode\/types)\//,
  params: linodeParams,
  body: (key, self) => linodeBodies(self)[key] ?? (key.startsWith('post ') || key.startsWith('put ') ? {} : undefined),
  // NodeBalancer nodes are addresses, not ids; firewalls name NodeBalancers and NodeBalancers a firewall.
  foreignRefs: (s, o) => [
    ['POST', `${LINODE}/nodebalancers`, { region: 'sim-1', label: 'steal-fw', firewall_id: o.extra.firewall }],
    ['POST', FW, { label: 'steal-devices', rules: RULES, devices: { nodebalancers: [o.lb] } }],
    ['POST', `${FW}/${s.extra.firewall}/devices`, { id: o.lb, type: 'nodebalancer' }],
    ['GET', `${FW}/${s.extra.firewall}/devices/${o.lb}`, undefined],
    // A subnet id is the VPC's number times 100 plus its position.
    [
      'POST',
      `${LINODE}/linode/instances`,
      { region: 'sim-1', type: 'sc-small', label: 'steal-vpc', interfaces: [{ purpose: 'vpc', subnet_id: o.network * 100 + 1 }] },
    ],
  ],
  lists: () => [`${LINODE}/linode/instances`, `${LINODE}/nodebalancers`, FW, `${LINODE}/linode/instances?page_size=25&page=1`, `${LINODE}/vpcs`],
  create: {
    path: `${LINODE}/nodebalancers`,
    body: (s) => ({ region: 'sim-1', label: `${s.tag}-nb2` }),
    invalid: [
      [{ label: '../../etc/passwd' }, 'label'],
      [{ region: 'x'.repeat(300) }, 'region'],
      [{ configs: [{ port: 0 }] }, 'configs.0.port'],
      [{ extra: true }, ''],
    ],
  },
  read: (r) => {
    const errors = (r.json() as { errors: { field?: string; reason: string }[] }).errors;
    return { code: errors[0]?.reason ?? '', fields: errors.flatMap((e) => (e.field === undefined ? [] : [e.field])) };
  },
  codes: { notFound: 'Not found', unauthorized: 'Invalid Token', invalid: /./, invalidStatus: 400, unreadable: /request body/ },
};

const DO = '/v2';
/** DigitalOcean shows a load balancer as a UUID spelled from its store number. */
const doUuid = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const DO_RULE = (port: number): Record<string, unknown> => ({ entry_protocol: 'tcp', entry_port: port, target_protocol: 'tcp', target_port: port + 8000 });

const doFirewall = (name: string, droplets: readonly number[]): Record<string, unknown> => ({
  name,
  droplet_ids: droplets,
  tags: null,
  outbound_rules: null,
  inbound_rules: [{ protocol: 'tcp', ports: '30000-32767', sources: { addresses: ['0.0.0.0/0', '::/0'] } }],
});

/** A certificate and its key for the personas' certificate routes (what they check on upload). */
const PEM = selfSignedServingCertificate({
  commonName: 'rows.test',
  dnsNames: ['rows.test'],
  ipv4: [],
  validFrom: new Date('2026-01-01Z'),
  validUntil: new Date('2036-01-01Z'),
});
const doTlsRule = (certificateId: string): Record<string, unknown> => ({
  entry_protocol: 'https',
  entry_port: 443,
  target_protocol: 'http',
  target_port: 8443,
  certificate_id: certificateId,
});

function doParams(path: string, o: Owned): Record<string, string> {
  if (path.startsWith(`${DO}/certificates/`)) return fill(path, { id: doUuid(o.extra.certificate!) });
  if (path.startsWith(`${DO}/load_balancers/`)) return fill(path, { id: doUuid(o.lb) });
  if (path.startsWith(`${DO}/droplets/`)) return fill(path, { id: o.server, action: o.actions.servers });
  if (path.startsWith(`${DO}/actions/`)) return fill(path, { id: o.actions.servers });
  if (path.startsWith(`${DO}/firewalls/`)) return fill(path, { id: doUuid(o.extra.firewall!) });
  return fill(path, {});
}

function doBodies(s: Owned): Record<string, unknown> {
  const lb = `${DO}/load_balancers/:id`;
  const rules = { forwarding_rules: [DO_RULE(81)] };
  return {
    [`post ${DO}/droplets/:id/actions`]: { type: 'power_off' },
    [`put ${lb}`]: { name: `${s.tag}-renamed`, region: 'sim-1', forwarding_rules: [DO_RULE(80)], droplet_ids: [s.server] },
    [`post ${lb}/forwarding_rules`]: rules,
    [`delete ${lb}/forwarding_rules`]: rules,
    [`post ${lb}/droplets`]: { droplet_ids: [s.server] },
    [`delete ${lb}/droplets`]: { droplet_ids: [s.server] },
    [`put ${DO}/firewalls/:id`]: doFirewall(`${s.tag}-fw2`, []),
  };
}

const digitalocean: PersonaRow = {
  name: 'digitalocean',
  prefix: DO,
  routes: DIGITALOCEAN_ROUTES,
  setup: (o) => [
    ['firewall', `${DO}/firewalls`, doFirewall(`${o.tag}-fw`, [o.server])],
    ['certificate', `${DO}/certificates`, { name: `${o.tag}-cert`, type: 'custom', leaf_certificate: PEM.cert, private_key: PEM.key }],
  ],
  madeId: (answer) => {
    const a = answer as { firewall?: { id: string }; certificate?: { id: string } };
    return Number((a.firewall ?? a.certificate)!.id.slice(-12));
  },
  catalogue: /^\/v2\/(regions|sizes)\//,
  params: doParams,
  body: (key, self) => doBodies(self)[key] ?? (key.startsWith('post ') || key.startsWith('put ') ? {} : undefined),
  foreignRefs: (s, o) => [
    ['POST', `${DO}/load_balancers`, { name: 'steal', region: 'sim-1', forwarding_rules: [DO_RULE(80)], droplet_ids: [o.server] }],
    ['PUT', `${DO}/load_balancers/${doUuid(s.lb)}`, { name: 'own-lb', region: 'sim-1', forwarding_rules: [DO_RULE(80)], droplet_ids: [o.server] }],
    ['POST', `${DO}/load_balancers/${doUuid(s.lb)}/droplets`, { droplet_ids: [o.server] }],
    ['POST', `${DO}/firewalls`, doFirewall('steal-fw', [o.server])],
    ['PUT', `${DO}/firewalls/${doUuid(s.extra.firewall!)}`, doFirewall('own-fw', [o.server])],
    ['GET', `${DO}/droplets/${s.server}/actions/${o.actions.servers}`, undefined],
    ['POST', `${DO}/load_balancers`, { name: 'steal-cert', region: 'sim-1', forwarding_rules: [doTlsRule(doUuid(o.extra.certificate!))] }],
    ['POST', `${DO}/load_balancers/${doUuid(s.lb)}/forwarding_rules`, { forwarding_rules: [doTlsRule(doUuid(o.extra.certificate!))] }],
  ],
  selector: (s, o) => ({
    request: ['PUT', `${DO}/load_balancers/${doUuid(s.lb)}`, { name: 'own-lb', region: 'sim-1', forwarding_rules: [DO_RULE(80)], tag: `role:${o.tag}` }],
    show: `${DO}/load_balancers/${doUuid(s.lb)}`,
  }),
  lists: (o) => [
    `${DO}/droplets`,
    `${DO}/load_balancers`,
    `${DO}/firewalls`,
    `${DO}/certificates`,
    `${DO}/actions?per_page=200`,
    `${DO}/droplets?tag_name=role:${o.tag}`,
    `${DO}/droplets?name=${o.tag}-srv`,
  ],
  create: {
    path: `${DO}/droplets`,
    body: (s) => ({ name: `${s.tag}-new`, region: 'sim-1', size: 'sc-small', image: 'ubuntu-24.04' }),
    invalid: [
      [{ name: '../../etc' }, 'name'],
      [{ size: 'x'.repeat(300) }, 'size'],
      [{ tags: ['../x'] }, 'tags.0'],
      [{ vpc_uuid: 'x' }, 'vpc_uuid'],
      [{ image: -1 }, 'image'],
    ],
  },
  // DigitalOcean's body has no field list: the message names each field at fault (`size: unknown size x, name: ...`),
  // an unknown key that is no plain name JSON-quoted (`"a, b": unknown field`).
  read: (r) => {
    const e = r.json() as { id: string; message: string };
    return { code: e.id, fields: [...e.message.matchAll(/(?:^|, )((?:[\w.()[\]-]|"(?:[^"\\]|\\.)*")+): /g)].map((m) => m[1]!) };
  },
  codes: { notFound: 'not_found', unauthorized: 'Unauthorized', invalid: /^unprocessable_entity$/, invalidStatus: 422, unreadable: /^bad_request$/ },
};

const PNAP = '/pnap';
const BMC = `${PNAP}/bmc/v1`;
const IPS = `${PNAP}/ips/v1`;
const NETS = `${PNAP}/networks/v1`;
const PUBNETS = `${NETS}/public-networks`;
const PNAP_TAGS = `${PNAP}/tag-manager/v1/tags`;
/** phoenixNAP's id of a store number: a1 and 22 digits. */
const pnapId = (n: number): string => `a1${String(n).padStart(22, '0')}`;
const PNAP_NET = `${BMC}/servers/:id/network-configuration/private-network-configuration/private-networks`;
const PNAP_IPB = `${BMC}/servers/:id/network-configuration/ip-block-configurations/ip-blocks`;
const PNAP_PUB = `${BMC}/servers/:id/network-configuration/public-network-configuration/public-networks`;

function pnapParams(path: string, o: Owned): Record<string, string> {
  if (path.startsWith(`${BMC}/servers/`))
    return fill(path, {
      id: pnapId(o.server),
      sub: pnapId(path.startsWith(PNAP_IPB) ? o.extra.ipblock! : path.startsWith(PNAP_PUB) ? o.extra.pubnet! : o.network),
    });
  if (path.startsWith(`${IPS}/ip-blocks/`)) return fill(path, { id: pnapId(o.extra.ipblock!) });
  if (path.startsWith(`${NETS}/private-networks/`)) return fill(path, { id: pnapId(o.network) });
  if (path.startsWith(`${PUBNETS}/`)) return fill(path, { id: pnapId(o.extra.pubnet!), blockId: pnapId(o.extra.ipblock!) });
  if (path.startsWith(`${PNAP_TAGS}/`)) return fill(path, { id: pnapId(o.extra.tag!) });
  return fill(path, {});
}

const pnapBodies = (s: Owned): Record<string, unknown> => ({
  [`put ${BMC}/servers/:id/tags`]: [{ name: 'stolen', value: 'yes' }],
  [`patch ${BMC}/servers/:id`]: { hostname: `${s.tag}-renamed` },
  [`post ${PNAP_IPB}`]: { id: pnapId(s.extra.ipblock!) },
  [`post ${PNAP_NET}`]: { id: pnapId(s.network) },
  [`post ${PNAP_PUB}`]: { id: pnapId(s.extra.pubnet!) },
  [`patch ${IPS}/ip-blocks/:id`]: { description: 'stolen' },
  [`put ${IPS}/ip-blocks/:id/tags`]: [{ name: 'stolen' }],
  [`put ${NETS}/private-networks/:id`]: { name: `${s.tag}-renamed`, locationDefault: false },
  [`post ${PUBNETS}/:id/ip-blocks`]: { id: pnapId(s.extra.ipblock!) },
  [`patch ${PNAP_TAGS}/:id`]: { name: `${s.tag}-renamed`, isBillingTag: false },
});

const pnapServer = (hostname: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  hostname,
  os: 'ubuntu-24.04',
  type: 'sc-small',
  location: 'sim-1',
  ...extra,
});

const phoenixnap: PersonaRow = {
  name: 'phoenixnap',
  prefix: PNAP,
  routes: PHOENIXNAP_ROUTES,
  bearer: phoenixnapAccessToken,
  setup: (o) => [
    ['ipblock', `${IPS}/ip-blocks`, { location: 'sim-1', tags: [{ name: 'owner', value: o.tag }] }],
    ['pubnet', PUBNETS, { name: `${o.tag}-pub`, location: 'sim-1' }],
    ['tag', PNAP_TAGS, { name: `${o.tag}-tag`, isBillingTag: false }],
  ],
  madeId: (answer) => Number((answer as { id: string }).id.slice(2)),
  catalogue: /^$/,
  params: pnapParams,
  body: (key, self) => pnapBodies(self)[key] ?? (/^(post|put|patch) /.test(key) ? {} : undefined),
  foreignRefs: (s, o) => [
    [
      'POST',
      `${BMC}/servers`,
      pnapServer('steal', {
        networkConfiguration: { privateNetworkConfiguration: { configurationType: 'USER_DEFINED', privateNetworks: [{ id: pnapId(o.network) }] } },
      }),
    ],
    ['POST', PNAP_IPB.replace(':id', pnapId(s.server)), { id: pnapId(o.extra.ipblock!) }],
    ['POST', PNAP_NET.replace(':id', pnapId(s.server)), { id: pnapId(o.network) }],
    ['POST', `${PUBNETS}/${pnapId(s.extra.pubnet!)}/ip-blocks`, { id: pnapId(o.extra.ipblock!) }],
    ['POST', PUBNETS, { name: 'steal-pub', location: 'sim-1', ipBlocks: [{ id: pnapId(o.extra.ipblock!) }] }],
  ],
  lists: (o) => [
    `${BMC}/servers`,
    `${IPS}/ip-blocks`,
    `${NETS}/private-networks`,
    PUBNETS,
    PNAP_TAGS,
    `${BMC}/servers?tag=role.${o.tag}`,
    `${IPS}/ip-blocks?tag=owner.${o.tag}`,
  ],
  create: {
    path: `${BMC}/servers`,
    body: (s) => pnapServer(`${s.tag}-new`),
    invalid: [
      [{ hostname: '../../etc' }, 'hostname'],
      [{ type: 'x'.repeat(300) }, 'type'],
      [{ tags: [{ name: '../x' }] }, 'tags.0.name'],
      [{ extra: true }, ''],
    ],
  },
  // phoenixNAP's body is a message with `field: message` validation errors and no code: the status is the code.
  read: (r) => {
    const e = r.json() as { validationErrors?: string[] };
    return { code: String(r.status), fields: (e.validationErrors ?? []).map((v) => v.slice(0, v.indexOf(': '))) };
  },
  codes: { notFound: '404', unauthorized: '401', invalid: /^400$/, invalidStatus: 400, unreadable: /^400$/ },
};

const BB = '/brightbox/1.0';
/** Brightbox's id of a store number: a type prefix and five base-36 digits. */
const bbId = (prefix: string, n: number): string => `${prefix}-${n.toString(36).padStart(5, '0')}`;
const bbNumber = (answer: unknown): number => parseInt((answer as { id: string }).id.slice(4), 36);

function bbParams(path: string, o: Owned): Record<string, string> {
  const ids: Record<string, string> = {
    servers: bbId('srv', o.server),
    load_balancers: bbId('lba', o.lb),
    cloud_ips: bbId('cip', o.extra.cip!),
    server_groups: bbId('grp', o.extra.group!),
    firewall_policies: bbId('fwp', o.extra.policy!),
    firewall_rules: `fwr-${bbId('fwp', o.extra.policy!).slice(4)}1`,
  };
  const coll = /^\/brightbox\/1\.0\/(\w+)\//.exec(path)?.[1];
  return fill(path, { id: coll === undefined ? undefined : ids[coll] });
}

const bbBodies = (s: Owned): Record<string, unknown> => ({
  [`post ${BB}/server_groups/:id/add_servers`]: { servers: [{ server: bbId('srv', s.server) }] },
  [`post ${BB}/server_groups/:id/remove_servers`]: { servers: [{ server: bbId('srv', s.server) }] },
  [`put ${BB}/firewall_rules/:id`]: { destination_port: '8080' },
  [`put ${BB}/load_balancers/:id`]: { name: `${s.tag}-renamed` },
  [`post ${BB}/cloud_ips/:id/map`]: { destination: bbId('lba', s.lb) },
});

const bbServer = (name: string): Record<string, unknown> => ({ name, image: 'ubuntu-24.04', server_type: 'sc-small', zone: 'sim-1-a' });

const brightbox: PersonaRow = {
  name: 'brightbox',
  prefix: '/brightbox',
  routes: BRIGHTBOX_ROUTES,
  bearer: brightboxAccessToken,
  // The rule needs its policy's id, which the policy's answer gives.
  setup: (o) => [
    ['cip', `${BB}/cloud_ips`, { name: `${o.tag}-cip` }],
    ['group', `${BB}/server_groups`, { name: `${o.tag}-group` }],
    ['policy', `${BB}/firewall_policies`, { name: `${o.tag}-policy` }],
    [
      'rule',
      `${BB}/firewall_rules`,
      (made: Record<string, number>) => ({ firewall_policy: bbId('fwp', made.policy!), protocol: 'tcp', source: '10.0.0.0/8', destination_port: '80' }),
    ],
  ],
  madeId: bbNumber,
  catalogue: /\/server_types\/:id$/,
  params: bbParams,
  body: (key, self) => bbBodies(self)[key] ?? (/^(post|put) /.test(key) ? {} : undefined),
  foreignRefs: (s, o) => [
    ['POST', `${BB}/load_balancers`, { name: 'steal', nodes: [{ node: bbId('srv', o.server) }], listeners: [{ protocol: 'tcp', in: 80, out: 8080 }] }],
    ['PUT', `${BB}/load_balancers/${bbId('lba', s.lb)}`, { nodes: [{ node: bbId('srv', o.server) }] }],
    ['POST', `${BB}/server_groups/${bbId('grp', s.extra.group!)}/add_servers`, { servers: [{ server: bbId('srv', o.server) }] }],
    ['POST', `${BB}/firewall_policies`, { name: 'steal', server_group: bbId('grp', o.extra.group!) }],
    ['POST', `${BB}/firewall_rules`, { firewall_policy: bbId('fwp', o.extra.policy!), protocol: 'tcp' }],
    ['POST', `${BB}/cloud_ips/${bbId('cip', s.extra.cip!)}/map`, { destination: bbId('lba', o.lb) }],
    ['POST', `${BB}/cloud_ips/${bbId('cip', s.extra.cip!)}/map`, { destination: bbId('srv', o.server) }],
  ],
  lists: () => [`${BB}/servers`, `${BB}/load_balancers`, `${BB}/cloud_ips`, `${BB}/server_groups`, `${BB}/firewall_policies`, `${BB}/accounts`],
  create: {
    path: `${BB}/servers`,
    body: (s) => bbServer(`${s.tag}-new`),
    invalid: [
      [{ name: '../../etc' }, 'name'],
      [{ server_type: 'x'.repeat(300) }, 'server_type'],
      [{ zone: 'nowhere' }, 'zone'],
      [{ extra: true }, ''],
    ],
  },
  // Brightbox's body: an error name and messages, the first the error, the rest `field: message`.
  read: (r) => {
    const e = r.json() as { error_name?: string; error?: string; errors?: string[] };
    return { code: e.error_name ?? e.error ?? '', fields: (e.errors ?? []).slice(1).map((v) => v.slice(0, v.indexOf(': '))) };
  },
  codes: { notFound: 'missing_resource', unauthorized: 'invalid_token', invalid: /^bad_request$/, invalidStatus: 400, unreadable: /^bad_request$/ },
};

export const PERSONA_ROWS: readonly PersonaRow[] = [hcloud, linode, digitalocean, phoenixnap, brightbox];
