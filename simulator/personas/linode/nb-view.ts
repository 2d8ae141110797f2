/** NodeBalancers, their configs and nodes as Linode JSON; node status from the data plane's health checks. */
import type { LinodeNode } from './attrs.ts';
import type { Sim } from '../../server/context.ts';
import { toLoadBalancer } from '../../server/resources/load-balancers/service.ts';
import { leafCertificate } from '../../server/resources/load-balancers/tls.ts';
import type { LoadBalancerRec } from '../../server/store/state.ts';
import { numericIdOf } from '../numeric-ids.ts';
import { presentedOf } from './addresses.ts';
import { linodeTime } from './common.ts';
import { attrsOf, type Config } from './nb-model.ts';
import type { NodeBalancer, NodeBalancerConfig, NodeBalancerNode } from './responses.ts';
import { tagsOf } from './views.ts';

export function nodeBalancerView(lb: LoadBalancerRec): NodeBalancer {
  const created = linodeTime(lb.created);
  return {
    id: numericIdOf(lb.id),
    label: lb.name,
    region: lb.location,
    hostname: `nb-${lb.public_ipv4.replace(/\./g, '-')}.${lb.location}.nodebalancer.sim`,
    ipv4: lb.public_ipv4,
    ipv6: null,
    client_conn_throttle: attrsOf(lb).client_conn_throttle,
    client_udp_sess_throttle: 0,
    transfer: { total: null, out: null, in: null },
    type: attrsOf(lb).type ?? 'common',
    tags: tagsOf(lb.labels),
    lke_cluster: null,
    locks: [],
    created,
    updated: created,
    frontend_address_type: 'public',
    frontend_vpc_subnet_id: null,
  };
}

type Status = NodeBalancerNode['status'];

/** Each node's status on this config's port: the health the data plane reports for its address. */
function statuses(sim: Sim, lb: LoadBalancerRec, c: Config): Map<number, Status> {
  const resolved = toLoadBalancer(sim, lb).resolved_targets;
  return new Map(
    c.nodes.map((n) => {
      const ip = n.address.slice(0, n.address.lastIndexOf(':'));
      const h = resolved.find((t) => t.ip === ip)?.health.find((x) => x.listen_port === c.port)?.status;
      return [n.id, h === 'healthy' ? 'UP' : h === 'unhealthy' ? 'DOWN' : 'unknown'];
    }),
  );
}

export function nodeView(lb: LoadBalancerRec, c: Config, n: LinodeNode, status: Status): NodeBalancerNode {
  return {
    id: n.id,
    address: n.address,
    label: n.label,
    status,
    weight: n.weight,
    mode: n.mode,
    config_id: c.id,
    nodebalancer_id: numericIdOf(lb.id),
    vpc_config_id: 0,
  };
}

export function nodeViews(sim: Sim, lb: LoadBalancerRec, c: Config): NodeBalancerNode[] {
  const s = statuses(sim, lb, c);
  const presented = presentedOf(sim);
  return c.nodes.map((n) => nodeView(lb, c, { ...n, address: presented.hostPort(n.address, n.presented) }, s.get(n.id) ?? 'unknown'));
}

/** What Linode shows of an https config's certificate: its common name and fingerprint; the PEMs themselves redacted. */
function sslView(c: Config): Pick<NodeBalancerConfig, 'ssl_commonname' | 'ssl_fingerprint' | 'ssl_cert' | 'ssl_key'> {
  if (c.tls === null) return { ssl_commonname: '', ssl_fingerprint: '', ssl_cert: null, ssl_key: null };
  const cert = leafCertificate(c.tls.certificate);
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1] ?? '';
  return { ssl_commonname: cn, ssl_fingerprint: cert.fingerprint256, ssl_cert: '<REDACTED>', ssl_key: '<REDACTED>' };
}

export function configView(sim: Sim, lb: LoadBalancerRec, c: Config): NodeBalancerConfig {
  const s = [...statuses(sim, lb, c).values()];
  return {
    id: c.id,
    port: c.port,
    protocol: c.protocol,
    proxy_protocol: c.proxy_protocol,
    algorithm: c.algorithm,
    stickiness: c.stickiness,
    check: c.check,
    check_interval: c.check_interval,
    check_attempts: c.check_attempts,
    check_path: c.check_path,
    check_body: c.check_body,
    check_passive: c.check_passive,
    check_timeout: c.check_timeout,
    udp_check_port: c.udp_check_port ?? 80,
    udp_session_timeout: 16,
    cipher_suite: c.cipher_suite,
    nodebalancer_id: numericIdOf(lb.id),
    ...sslView(c),
    nodes_status: { up: s.filter((x) => x === 'UP').length, down: s.filter((x) => x !== 'UP').length },
  };
}
