/**
 * Hetzner load balancer services and targets to simcloud's and back. simcloud keeps what the data plane acts
 * on (protocol, ports, PROXY protocol, health check, the certificate an https service terminates TLS with);
 * the Hetzner-only settings go to the LB's attributes (lb-attrs.ts) and come back unchanged in the view.
 * `proxyprotocol: true` is PROXY protocol v1; an https service's redirect_http is an http service on port 80
 * answering 301 (withHttpRedirects), which the view leaves out.
 */
import { activeCheckView, tcpView, type LoadBalancerService, type LoadBalancerTarget } from '../../api/schema/load-balancers.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField } from '../../server/errors.ts';
import type { HcloudLbAttrs, ServiceAttrs } from './lb-attrs.ts';
import { HcloudError } from './errors.ts';
import { numericIdOf } from '../numeric-ids.ts';
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
    health_check_http: {
      domain: h.domain ?? null,
      path: h.path ?? '/',
      response: h.response ?? null,
      status_codes: h.status_codes ?? ['2??', '3??'],
      tls: h.tls ?? false,
    },
  };
}

const defaultHealthCheck = (protocol: ServiceBody['protocol']): HealthCheck => ({ protocol: protocol === 'tcp' ? 'tcp' : 'http' });

function simHealthCheck(hc: HealthCheck): LoadBalancerService['health_check'] {
  return {
    protocol: hc.protocol === 'tcp' ? 'tcp' : 'http',
    port: hc.port ?? null,
    path: hc.http?.path ?? '/',
    interval_seconds: hc.interval ?? 15,
    timeout_seconds: hc.timeout ?? 10,
    retries: hc.retries ?? 3,
  };
}

/** Who asks: the certificates a service names must be the caller's. */
export interface Asker {
  sim: Sim;
  caller: Caller;
}

/**
 * The certificate an https service terminates TLS with: its one `http.certificates` entry (the caller's, else
 * not_found naming it); none leaves https forwarded at TCP level. simcloud serves one certificate per service.
 */
function certificateOf({ sim, caller }: Asker, b: ServiceBody, field: string): string | null {
  const ids = b.http?.certificates ?? [];
  if (ids.length === 0) return null;
  if (b.protocol !== 'https') throw invalidField(`${field}http.certificates`, 'only an https service has certificates');
  if (ids.length > 1)
    throw invalidField(`${field}http.certificates`, 'simcloud terminates TLS with one certificate per service (no choice among several by SNI)');
  return owned(sim, caller, 'certificates', { n: ids[0]!, field: `${field}http.certificates.0` }).id;
}

/** A Hetzner service (add_service, create) as simcloud's, with its Hetzner-only settings. */
export function toSimService(asker: Asker, b: ServiceBody, field = ''): { service: LoadBalancerService; attrs: ServiceAttrs } {
  const { listen, destination } = ports(b, field);
  const hc = b.health_check ?? defaultHealthCheck(b.protocol);
  if (b.http?.redirect_http === true && b.protocol !== 'https') throw invalidField(`${field}http.redirect_http`, 'only an https service redirects http');
  const certificate_id = certificateOf(asker, b, field);
  const service: LoadBalancerService = {
    protocol: b.protocol,
    listen_port: listen,
    destination_port: destination,
    proxy_protocol: b.proxyprotocol === true ? 'v1' : 'none',
    health_check: simHealthCheck(hc),
    ...(certificate_id === null ? {} : { certificate_id }),
  };
  // The certificates are simcloud's service certificate_id, not a copy in the attributes.
  const { certificates: _none, ...defaults } = HTTP_DEFAULTS;
  const { certificates: _given, ...given } = b.http ?? {};
  const http = b.protocol === 'tcp' ? null : { ...defaults, ...given };
  return { service, attrs: { http, ...healthAttrs(hc) } };
}

/** The port Hetzner's redirect_http listens on. */
const REDIRECT_PORT = 80;

/** A service this persona added for an https service's redirect_http: an http one on port 80 with no Hetzner settings of its own. */
const isRedirect = (s: LoadBalancerService, attrs: HcloudLbAttrs): boolean =>
  s.protocol === 'http' && s.redirect_https_port != null && attrs.services[String(s.listen_port)] === undefined;

/**
 * The services with the redirects redirect_http asks for: an http service on port 80 answering 301 to the first
 * https service that has it (recomputed whenever the services change; port 80 taken by another service is refused).
 */
export function withHttpRedirects(services: readonly LoadBalancerService[], attrs: HcloudLbAttrs): LoadBalancerService[] {
  const own = services.filter((s) => !isRedirect(s, attrs));
  const https = own.find((s) => s.protocol === 'https' && attrs.services[String(s.listen_port)]?.http?.redirect_http === true);
  if (https === undefined) return own;
  if (own.some((s) => s.listen_port === REDIRECT_PORT)) {
    throw new HcloudError(
      'source_port_already_used',
      'conflict',
      `redirect_http needs port ${REDIRECT_PORT}, which another service uses`,
      'http.redirect_http',
    );
  }
  return [
    ...own,
    {
      protocol: 'http',
      listen_port: REDIRECT_PORT,
      destination_port: https.destination_port,
      proxy_protocol: 'none',
      health_check: https.health_check,
      redirect_https_port: https.listen_port,
    },
  ];
}

/** The services Hetzner shows: those it was given (a redirect's port 80 service is the https service's redirect_http). */
export const shownServices = (services: readonly LoadBalancerService[], attrs: HcloudLbAttrs): LoadBalancerService[] =>
  services.filter((s) => !isRedirect(s, attrs));

function healthView(s: LoadBalancerService, attrs: ServiceAttrs | undefined): LbService['health_check'] {
  const hc = s.health_check;
  const protocol = attrs?.health_check_protocol ?? activeCheckView(hc.protocol);
  const http =
    attrs?.health_check_http ?? (protocol === 'tcp' ? null : { domain: null, path: hc.path, response: null, status_codes: ['2??', '3??'], tls: false });
  return {
    protocol,
    port: hc.port ?? s.destination_port,
    interval: Math.round(hc.interval_seconds),
    timeout: Math.round(hc.timeout_seconds),
    retries: hc.retries,
    http: http === null ? null : { ...http, path: hc.path },
  };
}

/** The Hetzner service of a simcloud one (attrs absent for services made through /v1). */
export function serviceView(s: LoadBalancerService, attrs: ServiceAttrs | undefined): LbService {
  return {
    protocol: tcpView(s.protocol),
    listen_port: s.listen_port,
    destination_port: s.destination_port,
    proxyprotocol: s.proxy_protocol !== 'none',
    http:
      tcpView(s.protocol) === 'tcp'
        ? null
        : { ...HTTP_DEFAULTS, ...(attrs?.http ?? {}), certificates: s.certificate_id == null ? [] : [numericIdOf(s.certificate_id)] },
    health_check: healthView(s, attrs),
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
