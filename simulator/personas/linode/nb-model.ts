/**
 * A NodeBalancer is a simcloud load balancer. Each config is a simcloud service on its port (protocol,
 * PROXY protocol, health check: what the data plane acts on); its nodes' IPs are the LB's IP targets and
 * the nodes' common port is the service's destination port. What simcloud has no place for (config and
 * node ids, algorithm, stickiness, check type, node labels, weights, modes) is kept in the record's
 * `dialect_attrs.linode`. An LB made through /v1 shows its services as configs with ids equal to their
 * ports and its resolved targets as nodes.
 */
import type { LoadBalancerService, LoadBalancerTarget, ServiceTls, UpdateLoadBalancerRequest } from '../../api/schema/load-balancers.ts';
import { tlsProblem } from '../../server/resources/load-balancers/tls.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField } from '../../server/errors.ts';
import { commitPlans } from '../../server/resources/common.ts';
import * as svc from '../../server/resources/load-balancers/service.ts';
import type { LoadBalancerRec } from '../../server/store/state.ts';
import { lbAttrs, type LinodeConfigAttrs, type LinodeLbAttrs, type LinodeNode } from './attrs.ts';
import { NAME } from './common.ts';
import type { ConfigBody, NodeBody } from './nb-schemas.ts';

/** The whole of a config, as its view shows it and requests change it. */
export interface Config extends LinodeConfigAttrs {
  protocol: 'http' | 'https' | 'tcp' | 'udp';
  proxy_protocol: LoadBalancerService['proxy_protocol'];
  check_interval: number;
  check_timeout: number;
  check_attempts: number;
  check_path: string;
  /** An https config's certificate and key (ssl_cert, ssl_key): the VIP terminates TLS with them. */
  tls: ServiceTls | null;
}

/** Config and node ids made here start above every port, so they never meet a /v1 LB's derived ids. */
const FIRST_ID = 100_000;

export const emptyAttrs = (): LinodeLbAttrs => ({ next_id: FIRST_ID, client_conn_throttle: 0, configs: [] });

/** Linode's check type of a simcloud health check (a /v1 LB's service). */
const CHECK_OF = { http: 'http', tcp: 'connection', none: 'none' } as const;
/** Linode's default health-check port of a UDP config. */
const UDP_CHECK_PORT = 80;

/** The mode of a node made without one: `none` on a udp config, as Linode shows it, else `accept`. */
const defaultMode = (protocol: Config['protocol']): LinodeNode['mode'] => (protocol === 'udp' ? 'none' : 'accept');

function derived(sim: Sim, lb: LoadBalancerRec, s: LoadBalancerService): Config {
  const nodes: LinodeNode[] = sim.targets.resolve(lb).flatMap((t, i) =>
    t.ip === null
      ? []
      : [
          {
            id: s.listen_port * 1000 + i + 1,
            address: `${t.ip}:${s.destination_port}`,
            label: t.id,
            weight: 100,
            mode: defaultMode(s.protocol),
          },
        ],
  );
  return {
    id: s.listen_port,
    port: s.listen_port,
    algorithm: lb.algorithm === 'least_connections' ? 'leastconn' : 'roundrobin',
    stickiness: lb.session_affinity === 'source_ip' ? 'source_ip' : s.protocol === 'udp' ? 'session' : 'none',
    check: CHECK_OF[s.health_check.protocol],
    check_body: '',
    check_passive: s.protocol !== 'udp',
    cipher_suite: 'recommended',
    nodes,
    ...fromService(s),
    ...(s.protocol === 'udp' ? { udp_check_port: s.health_check.port ?? UDP_CHECK_PORT } : {}),
  };
}

function fromService(
  s: LoadBalancerService,
): Pick<Config, 'protocol' | 'proxy_protocol' | 'check_interval' | 'check_timeout' | 'check_attempts' | 'check_path' | 'tls'> {
  const hc = s.health_check;
  return {
    tls: s.tls ?? null,
    protocol: s.protocol,
    proxy_protocol: s.proxy_protocol,
    check_interval: Math.max(2, Math.round(hc.interval_seconds)),
    check_timeout: Math.max(1, Math.round(hc.timeout_seconds)),
    check_attempts: Math.max(1, hc.retries),
    check_path: hc.protocol === 'http' ? hc.path : '',
  };
}

export const attrsOf = (lb: LoadBalancerRec): LinodeLbAttrs => lbAttrs(lb) ?? emptyAttrs();

/** The configs of an LB: each simcloud service with its Linode settings (or derived ones). */
export function configsOf(sim: Sim, lb: LoadBalancerRec): Config[] {
  const attrs = attrsOf(lb);
  return lb.services.map((s) => {
    const a = attrs.configs.find((c) => c.port === s.listen_port);
    return a === undefined ? derived(sim, lb, s) : { ...a, ...fromService(s) };
  });
}

const serving = (n: LinodeNode): boolean => n.mode === 'accept' || n.mode === 'backup' || n.mode === 'none';
const ipOf = (address: string): string => address.slice(0, address.lastIndexOf(':'));
const portOf = (address: string): number => Number(address.slice(address.lastIndexOf(':') + 1));

function toService(c: Config, field: string): LoadBalancerService {
  const ports = [...new Set(c.nodes.filter(serving).map((n) => portOf(n.address)))];
  if (ports.length > 1) throw invalidField(`${field}nodes`, `simcloud forwards a config to one port; these nodes use ${ports.join(', ')}`);
  return {
    protocol: c.protocol,
    listen_port: c.port,
    destination_port: ports[0] ?? c.port,
    proxy_protocol: c.proxy_protocol,
    health_check: healthCheckOf(c),
    ...(c.protocol === 'https' && c.tls ? { tls: c.tls } : {}),
  };
}

/** A config's active check; a UDP config checks nothing with check none, else over TCP or HTTP on its udp_check_port. */
function healthCheckOf(c: Config): LoadBalancerService['health_check'] {
  const http = c.check === 'http' || c.check === 'http_body';
  const udp = c.protocol === 'udp';
  return {
    protocol: http ? 'http' : udp && c.check === 'none' ? 'none' : 'tcp',
    port: udp ? (c.udp_check_port ?? UDP_CHECK_PORT) : null,
    path: http && c.check_path.startsWith('/') ? c.check_path : '/',
    interval_seconds: c.check_interval,
    timeout_seconds: c.check_timeout,
    retries: Math.min(10, c.check_attempts),
  };
}

/** The simcloud fields of an LB with these configs: services, IP targets of every serving node, algorithm. */
export function simFields(configs: readonly Config[]): Required<Pick<UpdateLoadBalancerRequest, 'services' | 'targets' | 'algorithm' | 'session_affinity'>> {
  const ports = new Set<number>();
  const services = configs.map((c, i) => {
    if (ports.has(c.port)) throw invalidField('port', `port ${c.port} is already used by another config`);
    ports.add(c.port);
    return toService(c, `configs.${i}.`);
  });
  const ips = [...new Set(configs.flatMap((c) => c.nodes.filter(serving).map((n) => ipOf(n.address))))];
  const targets: LoadBalancerTarget[] = ips.map((ip) => ({ kind: 'ip', ip }));
  const first = configs[0];
  return {
    services,
    targets,
    algorithm: first?.algorithm === 'leastconn' ? 'least_connections' : 'round_robin',
    session_affinity:
      first !== undefined && (['source', 'ring_hash'].includes(first.algorithm) || ['table', 'source_ip'].includes(first.stickiness)) ? 'source_ip' : 'none',
  };
}

/** A new node of a config on `protocol`, with Linode's defaults. */
export const newNode = (id: number, b: NodeBody & Pick<LinodeNode, 'presented'>, protocol: Config['protocol']): LinodeNode => ({
  id,
  address: b.address,
  label: b.label,
  weight: b.weight ?? 100,
  mode: b.mode ?? defaultMode(protocol),
  ...(b.presented === undefined ? {} : { presented: b.presented }),
});

const CONFIG_DEFAULTS = {
  tls: null,
  protocol: 'http',
  proxy_protocol: 'none',
  algorithm: 'roundrobin',
  stickiness: 'none',
  check: 'none',
  check_interval: 5,
  check_timeout: 3,
  check_attempts: 3,
  check_path: '',
  check_body: '',
  check_passive: true,
  cipher_suite: 'recommended',
} as const satisfies Omit<Config, 'id' | 'port' | 'nodes' | 'tls'> & { tls: null };

/** What a UDP config starts with where the body says nothing (Linode's UDP defaults). */
const UDP_DEFAULTS = { stickiness: 'session', check_passive: false, udp_check_port: UDP_CHECK_PORT } as const satisfies Partial<Config>;

/**
 * The certificate of a config as it will be: ssl_cert and ssl_key given together (checked), else the one it
 * has; an https config must have one, as Linode requires.
 */
export function tlsFor(protocol: Config['protocol'], body: Pick<ConfigBody, 'ssl_cert' | 'ssl_key'>, current: ServiceTls | null): ServiceTls | null {
  if (protocol !== 'https') return null;
  const { ssl_cert: cert, ssl_key: key } = body;
  if (cert === undefined && key === undefined && current !== null) return current;
  if (!cert) throw invalidField('ssl_cert', 'an https config needs ssl_cert and ssl_key');
  if (!key) throw invalidField('ssl_key', 'an https config needs ssl_cert and ssl_key');
  const tls = { certificate: cert, private_key: key };
  const problem = tlsProblem(tls);
  if (problem !== null) throw invalidField(problem.field === 'certificate' ? 'ssl_cert' : 'ssl_key', problem.message);
  return tls;
}

/** The settings Linode allows only on some protocols, checked on the config as it will be. */
export function checkConfig(c: Config): Config {
  if (c.protocol === 'udp') {
    if (c.proxy_protocol !== 'none') throw invalidField('proxy_protocol', 'must be none on a udp config');
    if (!['roundrobin', 'leastconn', 'ring_hash'].includes(c.algorithm))
      throw invalidField('algorithm', 'must be roundrobin, leastconn or ring_hash on a udp config');
    if (!['none', 'session', 'source_ip'].includes(c.stickiness)) throw invalidField('stickiness', 'must be none, session or source_ip on a udp config');
  }
  return c;
}

/** A config from a create body (its nodes numbered from `attrs.next_id`, which advances). */
export function newConfig(attrs: LinodeLbAttrs, b: Omit<ConfigBody, 'nodes'>, nodes: readonly (NodeBody & Pick<LinodeNode, 'presented'>)[]): Config {
  const { ssl_cert: _cert, ssl_key: _key, protocol = CONFIG_DEFAULTS.protocol, ...settings } = b;
  const given = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined)) as Partial<Config>;
  const tls = tlsFor(protocol, b, null);
  const id = attrs.next_id++;
  const defaults = protocol === 'udp' ? { ...CONFIG_DEFAULTS, ...UDP_DEFAULTS } : CONFIG_DEFAULTS;
  return checkConfig({ ...defaults, ...given, protocol, tls, id, port: b.port, nodes: nodes.map((n) => newNode(attrs.next_id++, n, protocol)) });
}

export const toAttrs = (c: Config): LinodeConfigAttrs => ({
  id: c.id,
  port: c.port,
  algorithm: c.algorithm,
  stickiness: c.stickiness,
  check: c.check,
  check_body: c.check_body,
  check_passive: c.check_passive,
  cipher_suite: c.cipher_suite,
  ...(c.udp_check_port === undefined ? {} : { udp_check_port: c.udp_check_port }),
  nodes: c.nodes,
});

/** An LB about to change: its record and a copy of its Linode attributes (whose ids advance). */
export interface Target {
  lb: LoadBalancerRec;
  attrs: LinodeLbAttrs;
}

/** Commits an LB's new configs: simcloud's fields and the Linode attributes together, through its LB service (its checks). */
export async function commitConfigs(sim: Sim, caller: Caller, { lb, attrs }: Target, configs: Config[]): Promise<LoadBalancerRec> {
  const plan = svc.planLoadBalancerUpdate(sim, caller, lb.id, { fields: simFields(configs), attrs: { [NAME]: { ...attrs, configs: configs.map(toAttrs) } } });
  await commitPlans(sim, [plan]);
  return plan.doc;
}
