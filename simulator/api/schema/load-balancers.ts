/**
 * Load balancers: services (listeners with health checks), targets (server, label selector, server
 * group or IP), a VIP from the pool or an IP block, an optional private IP on a network, status and
 * per-target health reported by the data plane.
 */
import { z } from 'zod';
import { Cidr, Id, Ipv4, Ipv6, Labels, ListMeta, ListParams, Name, Timestamp } from './common.ts';
import { Action } from './actions.ts';

export const Algorithm = { round_robin: 'round_robin', least_connections: 'least_connections' } as const;
export type Algorithm = (typeof Algorithm)[keyof typeof Algorithm];

export const SessionAffinity = { none: 'none', source_ip: 'source_ip' } as const;
export type SessionAffinity = (typeof SessionAffinity)[keyof typeof SessionAffinity];

/** `udp`: datagrams, balanced per client flow (no PROXY protocol over UDP). */
export const ListenerProtocol = { tcp: 'tcp', http: 'http', https: 'https', udp: 'udp' } as const;
export type ListenerProtocol = (typeof ListenerProtocol)[keyof typeof ListenerProtocol];

/** A service's protocol as a cloud without UDP load balancing shows one made through /v1 (udp as tcp). */
export const tcpView = (p: ListenerProtocol): Exclude<ListenerProtocol, 'udp'> => (p === 'udp' ? 'tcp' : p);

/** `none`: no active check, every target healthy (what a provider that checks nothing on UDP does). */
export const HealthCheckProtocol = { tcp: 'tcp', http: 'http', none: 'none' } as const;
export type HealthCheckProtocol = (typeof HealthCheckProtocol)[keyof typeof HealthCheckProtocol];
/** A check as a cloud that always checks shows one that is `none` (as tcp). */
export const activeCheckView = (p: HealthCheckProtocol): Exclude<HealthCheckProtocol, 'none'> => (p === 'none' ? 'tcp' : p);

export const ProxyProtocol = { none: 'none', v1: 'v1', v2: 'v2' } as const;
export type ProxyProtocol = (typeof ProxyProtocol)[keyof typeof ProxyProtocol];

/**
 * How a load balancer hands a connection to a target. `proxy`: it terminates the client's connection and
 * opens its own to target:destination_port. `passthrough`: a network load balancer, which delivers the
 * connection as addressed to the VIP; the target must serve the VIP's traffic itself on destination_port
 * (a Kubernetes node does for a LoadBalancer Service's ingress IP on the Service's own port). On loopback
 * the VIP is the load balancer's own listener, so the connection reaches target:destination_port from the
 * VIP's address, where the target reads which VIP it was for.
 */
export const Forwarding = { proxy: 'proxy', passthrough: 'passthrough' } as const;
export type Forwarding = (typeof Forwarding)[keyof typeof Forwarding];

export const LoadBalancerStatus = {
  provisioning: 'provisioning',
  active: 'active',
  updating: 'updating',
  error: 'error',
  deleting: 'deleting',
} as const;
export type LoadBalancerStatus = (typeof LoadBalancerStatus)[keyof typeof LoadBalancerStatus];

export const TargetHealthStatus = { healthy: 'healthy', unhealthy: 'unhealthy', unknown: 'unknown' } as const;
export type TargetHealthStatus = (typeof TargetHealthStatus)[keyof typeof TargetHealthStatus];

export const TargetKind = { server: 'server', label_selector: 'label_selector', server_group: 'server_group', ip: 'ip' } as const;
export type TargetKind = (typeof TargetKind)[keyof typeof TargetKind];

const Port = z.number().int().min(1).max(65535);

export const HealthCheck = z.strictObject({
  protocol: z.enum(HealthCheckProtocol),
  /** null: the service's destination port. */
  port: Port.nullable(),
  path: z.string().startsWith('/').max(255),
  interval_seconds: z.number().min(0.05).max(3600),
  timeout_seconds: z.number().min(0.05).max(3600),
  retries: z.number().int().min(0).max(10),
});
export type HealthCheck = z.infer<typeof HealthCheck>;

/** What a private key reads as in every answer: it is write-only. Sent back unchanged, it keeps the stored key. */
export const REDACTED_KEY = '<redacted>';

/**
 * TLS termination on an https listener: the certificate chain (PEM, the server's first) and its private key
 * (PEM; answered as REDACTED_KEY). The client's TLS ends at the VIP and the target gets plain HTTP.
 */
export const ServiceTls = z.strictObject({
  certificate: z.string().min(1).max(65_536).includes('-----BEGIN CERTIFICATE-----', { message: 'must be a PEM certificate chain' }),
  private_key: z.string().min(1).max(16_384),
});
export type ServiceTls = z.infer<typeof ServiceTls>;

export const LoadBalancerService = z
  .strictObject({
    protocol: z.enum(ListenerProtocol),
    listen_port: Port,
    destination_port: Port,
    proxy_protocol: z.enum(ProxyProtocol),
    health_check: HealthCheck,
    /** https only: terminate TLS with this certificate (absent or null: https is passed through as TCP). */
    tls: ServiceTls.nullable().optional(),
    /** https only: terminate TLS with this stored certificate (a certificates record of the project), instead of `tls`. */
    certificate_id: Id.nullable().optional(),
    /** http only: answer every request with a 301 to https on this port of the same host (absent or null: forward). */
    redirect_https_port: Port.nullable().optional(),
  })
  .refine((s) => s.protocol !== 'udp' || s.proxy_protocol === 'none', { message: 'PROXY protocol is not sent over udp', path: ['proxy_protocol'] })
  .refine((s) => s.tls == null || s.protocol === 'https', { message: 'only an https service terminates TLS', path: ['tls'] })
  .refine((s) => s.certificate_id == null || s.protocol === 'https', { message: 'only an https service terminates TLS', path: ['certificate_id'] })
  .refine((s) => s.certificate_id == null || s.tls == null, { message: 'give tls or certificate_id, not both', path: ['certificate_id'] })
  .refine((s) => s.redirect_https_port == null || s.protocol === 'http', { message: 'only an http service redirects to https', path: ['redirect_https_port'] });
export type LoadBalancerService = z.infer<typeof LoadBalancerService>;

export const LoadBalancerTarget = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('server'), server_id: Id }),
  z.strictObject({ kind: z.literal('label_selector'), label_selector: z.string().min(1).max(1024) }),
  z.strictObject({ kind: z.literal('server_group'), server_group_id: Id }),
  z.strictObject({ kind: z.literal('ip'), ip: Ipv4 }),
]);
export type LoadBalancerTarget = z.infer<typeof LoadBalancerTarget>;

/**
 * One address the LB actually forwards to, after resolving selectors and groups. Derived by simcloud, never
 * sent by a client, and one per node behind a load balancer: its strings are checked as strings. The id and
 * IPv4 format checks were half of the CPU of validating a 1 000-target answer (3.0 ms of it under the
 * CCM's --jitless), and such answers were most of the CCM's CPU in a 100-Service burst at 1 000 nodes.
 */
export const ResolvedTarget = z.object({
  /** The server id, or `ip:<address>` for IP targets. */
  id: z.string(),
  server_id: z.string().nullable(),
  ip: z.string().nullable(),
  health: z.array(z.object({ listen_port: Port, status: z.enum(TargetHealthStatus) })),
});
export type ResolvedTarget = z.infer<typeof ResolvedTarget>;

export const LoadBalancer = z.object({
  id: Id,
  name: Name,
  labels: Labels,
  location: z.string(),
  zone: z.string().nullable(),
  status: z.enum(LoadBalancerStatus),
  algorithm: z.enum(Algorithm),
  session_affinity: z.enum(SessionAffinity),
  services: z.array(LoadBalancerService),
  targets: z.array(LoadBalancerTarget),
  resolved_targets: z.array(ResolvedTarget),
  /** The VIP. */
  public_ipv4: Ipv4,
  /**
   * The public IPv6 address, one per load balancer from 2001:db8:2::/64 (the documentation prefix). Data only:
   * the data plane listens on IPv4 loopback alone, so nothing answers on it.
   */
  public_ipv6: Ipv6,
  /** Set when the VIP comes from an IP block. */
  ip_block_id: Id.nullable(),
  network_id: Id.nullable(),
  private_ipv4: Ipv4.nullable(),
  /** Allowed client CIDRs on the VIP; empty = allow all (a server group's firewall policy may still restrict). */
  source_ranges: z.array(Cidr),
  /** Whether the VIP serves; false: no listener answers on it (Hetzner's public interface switch). */
  public_interface: z.boolean(),
  /** `proxy` (the default) or `passthrough` (a network load balancer: see Forwarding). */
  forwarding: z.enum(Forwarding),
  locked: z.boolean(),
  created: Timestamp,
});
export type LoadBalancer = z.infer<typeof LoadBalancer>;

const uniquePorts = (services: { listen_port: number }[]): boolean => new Set(services.map((s) => s.listen_port)).size === services.length;
const Services = z.array(LoadBalancerService).max(32).refine(uniquePorts, 'listen_port must be unique');

export const CreateLoadBalancerRequest = z.strictObject({
  name: Name,
  /** Region id; defaults to the first region. */
  location: z.string().min(1).max(63).optional(),
  zone: z.string().min(1).max(63).optional(),
  algorithm: z.enum(Algorithm).optional(),
  session_affinity: z.enum(SessionAffinity).optional(),
  services: Services.optional(),
  targets: z.array(LoadBalancerTarget).max(256).optional(),
  labels: Labels.optional(),
  network_id: Id.optional(),
  /** Take the VIP from this IP block (assigns the block to the LB). */
  ip_block_id: Id.optional(),
  source_ranges: z.array(Cidr).max(64).optional(),
  /** Default true. */
  public_interface: z.boolean().optional(),
  /** Default proxy. */
  forwarding: z.enum(Forwarding).optional(),
});
export type CreateLoadBalancerRequest = z.infer<typeof CreateLoadBalancerRequest>;

export const UpdateLoadBalancerRequest = z.strictObject({
  name: Name.optional(),
  labels: Labels.optional(),
  algorithm: z.enum(Algorithm).optional(),
  session_affinity: z.enum(SessionAffinity).optional(),
  services: Services.optional(),
  targets: z.array(LoadBalancerTarget).max(256).optional(),
  source_ranges: z.array(Cidr).max(64).optional(),
  public_interface: z.boolean().optional(),
  forwarding: z.enum(Forwarding).optional(),
});
export type UpdateLoadBalancerRequest = z.infer<typeof UpdateLoadBalancerRequest>;

export const AttachLoadBalancerToNetworkRequest = z.strictObject({ network_id: Id, ip: Ipv4.optional() });
export type AttachLoadBalancerToNetworkRequest = z.infer<typeof AttachLoadBalancerToNetworkRequest>;

export const TargetCounters = z.object({
  target_id: z.string(),
  connections: z.number().int(),
  active_connections: z.number().int(),
  bytes_in: z.number().int(),
  bytes_out: z.number().int(),
});
export type TargetCounters = z.infer<typeof TargetCounters>;

export const LoadBalancerResponse = z.object({ load_balancer: LoadBalancer });
export const LoadBalancerCreateResponse = z.object({ load_balancer: LoadBalancer, action: Action });
export const LoadBalancerListResponse = z.object({ load_balancers: z.array(LoadBalancer), meta: ListMeta });

/**
 * The list's query: the common parameters and `resolved_targets=false`, which leaves each load balancer's
 * `resolved_targets` out. A client that reads only what was configured (a CCM) asks for that: a target per
 * node with its health per port is most of the answer (12 kB of 13 per load balancer at 100 nodes, 117 kB
 * at 1 000), and simcloud skips resolving them.
 */
export const LoadBalancerListParams = ListParams.extend({ resolved_targets: z.enum(['true', 'false']).optional() });
export type LoadBalancerListParams = z.infer<typeof LoadBalancerListParams>;
/** A load balancer without `resolved_targets`, as `resolved_targets=false` lists it. */
export const LoadBalancerSummary = LoadBalancer.omit({ resolved_targets: true });
export type LoadBalancerSummary = z.infer<typeof LoadBalancerSummary>;
export const LoadBalancerSummaryListResponse = z.object({ load_balancers: z.array(LoadBalancerSummary), meta: ListMeta });
/** What the list answers either way: `resolved_targets` present unless the query left it out. */
export const LoadBalancerListAnswer = z.object({
  load_balancers: z.array(LoadBalancer.extend({ resolved_targets: LoadBalancer.shape.resolved_targets.optional() })),
  meta: ListMeta,
});
export const LoadBalancerMetricsResponse = z.object({ targets: z.array(TargetCounters) });
