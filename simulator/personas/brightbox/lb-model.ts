/**
 * Brightbox persona: a load balancer request as simcloud's services and targets, and a stored load balancer back
 * in Brightbox's JSON. Brightbox has one health check per load balancer; simcloud one per service, so every
 * service carries the same check. Brightbox's milliseconds are simcloud's seconds.
 */
import { z } from 'zod';
import { Name } from '../../api/schema/common.ts';
import {
  tcpView,
  type Algorithm,
  type LoadBalancerService,
  type LoadBalancerTarget,
  type ServiceTls,
  type SessionAffinity,
} from '../../api/schema/load-balancers.ts';
import { leafCertificate, tlsProblem } from '../../server/resources/load-balancers/tls.ts';
import { invalidField } from '../../server/errors.ts';
import type { IpBlockRec, LoadBalancerRec, ServerRec } from '../../server/store/state.ts';
import { lbAttrsOf, type BbLbAttrs } from './attrs.ts';
import { bbIdOf, bbTime, urlOf } from './common.ts';
import type { LoadBalancer } from './responses.ts';
import { accountRef, cloudIpRef, serverRef } from './views.ts';

const Port = z.number().int().min(1).max(65535);
const Policy = z.enum(['least-connections', 'round-robin', 'source-address']);
const Proxy = z.enum(['v1', 'v2', 'v2-ssl', 'v2-ssl-cn']);

export const ListenerBody = z.strictObject({
  protocol: z.enum(['tcp', 'http', 'https']).optional(),
  in: Port,
  out: Port,
  timeout: z.number().int().min(0).max(86_400_000).optional(),
  proxy_protocol: Proxy.optional(),
});
export const HealthcheckBody = z.strictObject({
  type: z.enum(['tcp', 'http']),
  port: Port,
  request: z.string().startsWith('/').max(255).optional(),
  interval: z.number().int().min(0).max(3_600_000).optional(),
  timeout: z.number().int().min(0).max(3_600_000).optional(),
  threshold_up: z.number().int().min(0).max(10).optional(),
  threshold_down: z.number().int().min(0).max(10).optional(),
});

/** Every field gobrightbox's LoadBalancerOptions has; ACME domains are not emulated (refused). */
export const LbBody = z.strictObject({
  // A simcloud name (free text on Brightbox): a name /v1 cannot show would make its list answer 500.
  name: Name.optional(),
  nodes: z
    .array(z.strictObject({ node: z.string().min(1).max(64) }))
    .max(256)
    .optional(),
  policy: Policy.optional(),
  listeners: z.array(ListenerBody).max(16).optional(),
  healthcheck: HealthcheckBody.optional(),
  domains: z.array(z.string()).max(0, 'ACME certificates are not emulated').optional(),
  buffer_size: z.number().int().min(1024).max(16384).optional(),
  certificate_pem: z.string().max(65_536).optional(),
  certificate_private_key: z.string().max(16_384).optional(),
  ssl_minimum_version: z.enum(['TLSv1.0', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3', 'SSLv3']).optional(),
  https_redirect: z.boolean().optional(),
});
export type LbBody = z.infer<typeof LbBody>;

const DEFAULT_CHECK: BbLbAttrs['healthcheck'] = { type: 'http', port: 80, request: '/', interval: 5000, timeout: 5000, threshold_up: 3, threshold_down: 3 };
export const DEFAULT_ATTRS: BbLbAttrs = {
  buffer_size: 4096,
  https_redirect: false,
  ssl_minimum_version: 'TLSv1.2',
  policy: 'least-connections',
  listeners: [],
  healthcheck: DEFAULT_CHECK,
};

/** The request laid over the stored attributes (a zero number, as gobrightbox omits it, is the default). */
export function attrsFor(body: LbBody, old: BbLbAttrs): BbLbAttrs {
  const h = body.healthcheck;
  const or = (v: number | undefined, d: number): number => (v === undefined || v === 0 ? d : v);
  const healthcheck =
    h === undefined
      ? old.healthcheck
      : {
          type: h.type,
          port: h.port,
          request: h.request ?? '/',
          interval: or(h.interval, DEFAULT_CHECK.interval),
          timeout: or(h.timeout, DEFAULT_CHECK.timeout),
          threshold_up: or(h.threshold_up, DEFAULT_CHECK.threshold_up),
          threshold_down: or(h.threshold_down, DEFAULT_CHECK.threshold_down),
        };
  const listeners = body.listeners?.map((l) => ({ timeout: or(l.timeout, 50_000), proxy_protocol: l.proxy_protocol ?? null })) ?? old.listeners;
  return {
    buffer_size: body.buffer_size ?? old.buffer_size,
    https_redirect: body.https_redirect ?? old.https_redirect,
    ssl_minimum_version: body.ssl_minimum_version ?? old.ssl_minimum_version,
    policy: body.policy ?? old.policy,
    listeners,
    healthcheck,
  };
}

const PROXY: Readonly<Record<string, LoadBalancerService['proxy_protocol']>> = { v1: 'v1', v2: 'v2', 'v2-ssl': 'v2', 'v2-ssl-cn': 'v2' };

/**
 * The load balancer's certificate as it will be: certificate_pem and certificate_private_key given together
 * (checked), else the one its https listeners have.
 */
export function certificateFor(body: LbBody, current: readonly LoadBalancerService[]): ServiceTls | null {
  const { certificate_pem: pem, certificate_private_key: key } = body;
  if (pem === undefined && key === undefined) return current.find((s) => s.tls != null)?.tls ?? null;
  if (!pem || !key) throw invalidField(pem ? 'certificate_private_key' : 'certificate_pem', 'send certificate_pem and certificate_private_key together');
  const tls = { certificate: pem, private_key: key };
  const problem = tlsProblem(tls);
  if (problem !== null) throw invalidField(problem.field === 'certificate' ? 'certificate_pem' : 'certificate_private_key', problem.message);
  return tls;
}

/**
 * simcloud's services: one per listener, each with the load balancer's health check; https listeners
 * terminate TLS with its certificate, and with https_redirect its http listeners redirect to the first https one.
 */
export function servicesFor(listeners: readonly z.infer<typeof ListenerBody>[], a: BbLbAttrs, tls: ServiceTls | null = null): LoadBalancerService[] {
  const httpsPort = listeners.find((l) => l.protocol === 'https')?.in;
  const h = a.healthcheck;
  const health_check = {
    protocol: h.type,
    port: h.port,
    path: h.type === 'http' ? h.request : '/',
    interval_seconds: Math.max(h.interval, 50) / 1000,
    timeout_seconds: Math.max(h.timeout, 50) / 1000,
    retries: h.threshold_down,
  };
  return listeners.map((l) => {
    const protocol = l.protocol ?? 'http';
    const extra =
      protocol === 'https' && tls ? { tls } : protocol === 'http' && a.https_redirect && httpsPort !== undefined ? { redirect_https_port: httpsPort } : {};
    return { protocol, listen_port: l.in, destination_port: l.out, proxy_protocol: PROXY[l.proxy_protocol ?? ''] ?? 'none', health_check, ...extra };
  });
}

export const targetsFor = (serverIds: readonly string[]): LoadBalancerTarget[] => serverIds.map((id) => ({ kind: 'server' as const, server_id: id }));

export function balancing(policy: BbLbAttrs['policy']): { algorithm: Algorithm; session_affinity: SessionAffinity } {
  if (policy === 'source-address') return { algorithm: 'round_robin', session_affinity: 'source_ip' };
  return { algorithm: policy === 'round-robin' ? 'round_robin' : 'least_connections', session_affinity: 'none' };
}

const STATUS: Record<LoadBalancerRec['status'], LoadBalancer['status']> = {
  provisioning: 'creating',
  active: 'active',
  updating: 'active',
  error: 'failed',
  deleting: 'deleting',
};

/** A stored load balancer in Brightbox's JSON: nodes its server targets, cloud IPs the IP blocks assigned to it. */
/** What Brightbox shows of the certificate: its dates, issuer and subject (never the PEMs). */
function certificateView(services: readonly LoadBalancerService[]): LoadBalancer['certificate'] {
  const tls = services.find((s) => s.tls != null)?.tls;
  if (!tls) return null;
  const cert = leafCertificate(tls.certificate);
  return {
    expires_at: new Date(cert.validTo).toISOString(),
    valid_from: new Date(cert.validFrom).toISOString(),
    sslv3: false,
    issuer: cert.issuer.replace(/\n/g, ', '),
    subject: cert.subject.replace(/\n/g, ', '),
  };
}

export function lbView(lb: LoadBalancerRec, servers: readonly ServerRec[], blocks: readonly IpBlockRec[]): LoadBalancer {
  const a = lbAttrsOf(lb) ?? DEFAULT_ATTRS;
  const id = bbIdOf(lb.id);
  const nodes = lb.targets.flatMap((t) => (t.kind === 'server' ? servers.filter((s) => s.id === t.server_id).map(serverRef) : []));
  return {
    id,
    resource_type: 'load_balancer',
    url: urlOf('load_balancers', id),
    name: lb.name,
    status: STATUS[lb.status],
    locked: false,
    https_redirect: a.https_redirect,
    ssl_minimum_version: a.ssl_minimum_version,
    buffer_size: a.buffer_size,
    policy: a.policy,
    listeners: lb.services.map((s, i) => ({
      protocol: tcpView(s.protocol),
      in: s.listen_port,
      out: s.destination_port,
      timeout: a.listeners[i]?.timeout ?? 50_000,
      proxy_protocol: a.listeners[i]?.proxy_protocol ?? (s.proxy_protocol === 'none' ? null : s.proxy_protocol),
    })),
    healthcheck: a.healthcheck,
    certificate: certificateView(lb.services),
    acme: null,
    created_at: bbTime(lb.created),
    deleted_at: null,
    account: accountRef(lb.project_id),
    nodes,
    cloud_ips: blocks.filter((b) => b.assigned_to?.kind === 'load_balancer' && b.assigned_to.id === lb.id).map(cloudIpRef),
  };
}
