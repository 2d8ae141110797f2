/** A simcloud load balancer as DigitalOcean's JSON (godo's LoadBalancer), whichever API made it. */
import { REGIONS } from '../../server/resources/catalogue/data.ts';
import type { Sim } from '../../server/context.ts';
import type { LoadBalancerRec } from '../../server/store/state.ts';
import { numericIdOf } from '../numeric-ids.ts';
import { doTime, uuidOf } from './common.ts';
import { attrsOf, kindOf } from './lb-model.ts';
import type { LoadBalancer } from './responses.ts';
import { regionView } from './views.ts';
import { digitaloceanAddresses } from './addresses.ts';

const DEFAULT_HEALTH_CHECK = { port: 80, path: '/', check_interval_seconds: 10, response_timeout_seconds: 5, unhealthy_threshold: 3, proxy_protocol: false };

const STATUS: Record<LoadBalancerRec['status'], LoadBalancer['status']> = {
  provisioning: 'new',
  active: 'active',
  updating: 'active',
  error: 'errored',
  deleting: 'active',
};

/** The one health check: the first service's (every service has the same when this persona set them), else the default. */
function healthCheckView(lb: LoadBalancerRec): LoadBalancer['health_check'] {
  const a = attrsOf(lb);
  const s = lb.services[0];
  if (s === undefined) return { ...DEFAULT_HEALTH_CHECK, protocol: a.health_check_protocol, healthy_threshold: a.healthy_threshold };
  const hc = s.health_check;
  // simcloud checks https as http; the protocol asked for is kept.
  const protocol = hc.protocol === 'tcp' ? 'tcp' : a.health_check_protocol === 'https' ? 'https' : 'http';
  return {
    protocol,
    port: hc.port ?? s.destination_port,
    path: protocol === 'tcp' ? '' : hc.path,
    check_interval_seconds: Math.max(1, Math.round(hc.interval_seconds)),
    response_timeout_seconds: Math.max(1, Math.round(hc.timeout_seconds)),
    healthy_threshold: a.healthy_threshold,
    unhealthy_threshold: hc.retries,
    proxy_protocol: false,
  };
}

export function loadBalancerView(sim: Sim, lb: LoadBalancerRec): LoadBalancer {
  const a = attrsOf(lb);
  const { type, network_stack } = kindOf(lb);
  const selector = lb.targets.find((t) => t.kind === 'label_selector');
  const region = REGIONS.find((r) => r.id === lb.location) ?? REGIONS[0]!;
  const status = STATUS[lb.status];
  // Addresses appear once the load balancer is up; an IPv6 one only for DUALSTACK (data only: nothing answers on it).
  const ipv6 = status === 'new' || network_stack !== 'DUALSTACK' ? '' : lb.public_ipv6;
  return {
    id: uuidOf(lb.id),
    name: lb.name,
    ip: status === 'new' ? '' : lb.public_ipv4,
    ipv6,
    size: a.size_slug,
    size_unit: a.size_unit,
    type,
    algorithm: lb.algorithm,
    status,
    created_at: doTime(lb.created),
    forwarding_rules: lb.services.map((s) => {
      const r = a.rules.find((x) => x.entry_port === s.listen_port);
      return {
        entry_protocol: r?.entry_protocol ?? s.protocol,
        entry_port: s.listen_port,
        target_protocol: r?.target_protocol ?? (s.certificate_id == null ? s.protocol : 'http'),
        target_port: s.destination_port,
        certificate_id: s.certificate_id == null ? '' : uuidOf(s.certificate_id),
        tls_passthrough: r?.tls_passthrough ?? false,
      };
    }),
    health_check: healthCheckView(lb),
    sticky_sessions: a.sticky_sessions,
    region: regionView(region),
    tag: a.tag !== '' ? a.tag : selector?.kind === 'label_selector' ? selector.label_selector.replace('=', ':') : '',
    droplet_ids: sim.targets.resolve(lb).flatMap((t) => (t.server_id === null ? [] : [numericIdOf(t.server_id)])),
    redirect_http_to_https: a.redirect_http_to_https,
    enable_proxy_protocol: lb.services.some((s) => s.proxy_protocol !== 'none'),
    enable_backend_keepalive: a.enable_backend_keepalive,
    http_idle_timeout_seconds: a.http_idle_timeout_seconds,
    vpc_uuid: lb.network_id === null ? '' : uuidOf(lb.network_id),
    disable_lets_encrypt_dns_records: a.disable_lets_encrypt_dns_records,
    firewall: {
      allow: lb.source_ranges.map(digitaloceanAddresses(sim).show.cidr).map((c) => (c.endsWith('/32') ? `ip:${c.slice(0, -3)}` : `cidr:${c}`)),
      deny: [],
    },
    network: 'EXTERNAL',
    network_stack,
    tls_cipher_policy: 'DEFAULT',
    project_id: '',
  };
}
