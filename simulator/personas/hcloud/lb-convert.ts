/**
 * Hetzner load balancer services and targets to simcloud's and back. simcloud keeps what the data plane acts
 * on (protocol, ports, PROXY protocol, health check); the Hetzner-only settings go to the LB's attributes
 * (lb-attrs.ts) and come back unchanged in the view. `proxyprotocol: true` is PROXY protocol v1.
 */
import { activeCheckView, tcpView, type LoadBalancerService, type LoadBalancerTarget } from '../../api/schema/load-balancers.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField } from '../../server/errors.ts';
import type { ServiceAttrs } from './lb-attrs.ts';
import type { HealthCheck, RemoveTargetBody, ServiceBody, TargetBody } from './lb-schemas.ts';
import { owned } from './common.ts';
import type { LbService } from './responses.ts';

const DEFAULT_PORTS = { http: 80, https: 443 } as const;

/** Hetzner's HTTP settings of an http or https service, where a request (or a service made through /v1) gives none. */
const HTTP_DEFAULTS = { sticky_sessions: false, redirect_http: false, cookie_name: 'HCLBSTICKY', cookie_lifetime: 300, timeout_idle: 60, certificates: [] };

function ports(b: ServiceBody, field: string): { listen: number; destination: number } {
  const listen = b.listen_port ?? (b.protocol === 'tcp' ? undefined : DEFAULT_PORTS[b.protocol]);
  if (listen === undefined) throw invalidField(`${field}listen_port`, 'is required for protocol tcp');
  const destination = b.destination_port ?? (b.protocol === 'tcp' ? undefined : 80);
  if (destination === undefined) throw invalidField(`${field}destination_port`, 'is required for protocol tcp');
  return { listen, destination };
}

function healthAttrs(hc: HealthCheck): Pick<ServiceAttrs, 'health_check_protocol' | 'health_check_http'> {
  if (hc.protocol === 'tcp') return { health_check_protocol: 'tcp', health_check_http: null };
  const h = hc.http ?? {};
  return {
    health_check_protocol: hc.protocol,
    health_check_http: { domain: h.domain ?? null, path: h.path ?? '/', response: h.response ?? null, status_codes: h.status_codes ?? ['2??', '3??'], tls: h.tls ?? false },
  };
}

const defaultHealthCheck = (protocol: ServiceBody['protocol']): HealthCheck => ({ protocol: protocol === 'tcp' ? 'tcp' : 'http' });

function simHealthCheck(hc: HealthCheck): LoadBalancerService['health_check'] {
  return {
    protocol: hc.protocol === 'tcp' ? 'tcp' : 'http', port: hc.port ?? null, path: hc.http?.path ?? '/',
    interval_seconds: hc.interval ?? 15, timeout_seconds: hc.timeout ?? 10, retries: hc.retries ?? 3,
  };
}

/** A Hetzner service (add_service, create) as simcloud's, with its Hetzner-only settings. */
export function toSimService(b: ServiceBody, field = ''): { service: LoadBalancerService; attrs: ServiceAttrs } {
  const { listen, destination } = ports(b, field);
  const hc = b.health_check ?? defaultHealthCheck(b.protocol);
  const service: LoadBalancerService = {
    protocol: b.protocol, listen_port: listen, destination_port: destination, proxy_protocol: b.proxyprotocol === true ? 'v1' : 'none',
    health_check: simHealthCheck(hc),
  };
  const { certificates: _none, ...defaults } = HTTP_DEFAULTS;
  const http = b.protocol === 'tcp' ? null : { ...defaults, ...b.http };
  return { service, attrs: { http, ...healthAttrs(hc) } };
}

function healthView(s: LoadBalancerService, attrs: ServiceAttrs | undefined): LbService['health_check'] {
  const hc = s.health_check;
  const protocol = attrs?.health_check_protocol ?? activeCheckView(hc.protocol);
  const http = attrs?.health_check_http ?? (protocol === 'tcp' ? null : { domain: null, path: hc.path, response: null, status_codes: ['2??', '3??'], tls: false });
  return {
    protocol, port: hc.port ?? s.destination_port, interval: Math.round(hc.interval_seconds), timeout: Math.round(hc.timeout_seconds),
    retries: hc.retries, http: http === null ? null : { ...http, path: hc.path },
  };
}

/** The Hetzner service of a simcloud one (attrs absent for services made through /v1). */
export function serviceView(s: LoadBalancerService, attrs: ServiceAttrs | undefined): LbService {
  return {
    protocol: tcpView(s.protocol), listen_port: s.listen_port, destination_port: s.destination_port, proxyprotocol: s.proxy_protocol !== 'none',
    http: tcpView(s.protocol) === 'tcp' ? null : { ...HTTP_DEFAULTS, ...(attrs?.http ?? {}) }, health_check: healthView(s, attrs),
  };
}

/** The key under which a target's use_private_ip is kept. */
export function targetKey(t: RemoveTargetBody): string {
  if (t.type === 'server') return `server:${t.server!.id}`;
  return t.type === 'ip' ? `ip:${t.ip!.ip}` : `label_selector:${t.label_selector!.selector}`;
}

/** A Hetzner target as simcloud's (its server must be the caller's). */
export function toSimTarget(sim: Sim, caller: Caller, t: RemoveTargetBody | TargetBody, field = ''): LoadBalancerTarget {
  if (t.type === 'server') return { kind: 'server', server_id: owned(sim, caller, 'servers', { n: t.server!.id, field: `${field}server.id` }).id };
  return t.type === 'ip' ? { kind: 'ip', ip: t.ip!.ip } : { kind: 'label_selector', label_selector: t.label_selector!.selector };
}

export function sameTarget(a: LoadBalancerTarget, b: LoadBalancerTarget): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
