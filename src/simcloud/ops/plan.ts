/**
 * Pure planning of a Service's cloud load balancer: listeners (one per Service port, with its health check),
 * firewall rules (one per node port, sources from `loadBalancerSourceRanges`), session affinity, the requested
 * VIP, and the diffs between what exists and what is wanted. No I/O: `ops/` steps call the cloud with these.
 */
import type { V1Service, V1ServicePort } from '@kubernetes/client-node';
import {
  ANNOTATION_PREFIX,
  SOURCE_RANGES_ANNOTATION,
  loadBalancerAnnotations,
  type Algorithm,
  type AnnotationIssue,
  type HealthCheckProtocol,
  type ListenerProtocol,
  type LoadBalancerAnnotationConfig,
  type PortOverride,
  type ProxyProtocol,
} from '../annotations.ts';
import { compareStrings } from '../../util/order.ts';

export interface HealthCheckPlan {
  /** `none` on a UDP port without a health-check node port: simcloud checks nothing there and keeps every target. */
  readonly protocol: HealthCheckProtocol | 'none';
  readonly port: number;
  readonly path: string;
  readonly intervalSeconds: number;
  readonly timeoutSeconds: number;
  readonly retries: number;
}

export interface ListenerPlan {
  /** A UDP Service port is a `udp` listener whatever the protocol annotations say (they choose among TCP ones). */
  readonly protocol: ListenerProtocol | 'udp';
  readonly listenPort: number;
  readonly destinationPort: number;
  readonly proxyProtocol: ProxyProtocol;
  readonly healthCheck: HealthCheckPlan;
  /** https only: the stored certificate TLS ends with on the VIP (annotation `certificate-id`). */
  readonly certificateId?: string;
  /** http only: the https port every request is redirected to (annotation `redirect-http-to-https`). */
  readonly redirectHttpsPort?: number;
}

export interface FirewallRulePlan {
  readonly protocol: 'tcp' | 'udp';
  readonly port: number;
  readonly sourceCidrs: readonly string[];
}

export interface LoadBalancerPlan {
  readonly algorithm: Algorithm;
  readonly sessionAffinity: 'none' | 'source_ip';
  readonly listeners: readonly ListenerPlan[];
  readonly firewallRules: readonly FirewallRulePlan[];
  readonly sourceCidrs: readonly string[];
  /** `spec.loadBalancerIP`, when set. */
  readonly requestedIp: string | undefined;
}

/** The Service cannot be served as asked (bad ports or source ranges); no cloud call is made. */
export class InvalidServiceError extends Error {
  readonly issues: readonly AnnotationIssue[];
  constructor(issues: readonly AnnotationIssue[]) {
    super(`invalid service for a simcloud load balancer: ${issues.map((i) => i.message).join('; ')}`);
    this.name = 'InvalidServiceError';
    this.issues = issues;
  }
}

const IPV4_CIDR = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}\/([0-9]|[12]\d|3[0-2])$/;

/** Upstream `GetLoadBalancerSourceRanges`: spec field, else the annotation (comma list), else 0.0.0.0/0. */
export function sourceRangesOf(service: V1Service): { cidrs: string[]; issues: AnnotationIssue[] } {
  const fromSpec = service.spec?.loadBalancerSourceRanges ?? [];
  const annotation = service.metadata?.annotations?.[SOURCE_RANGES_ANNOTATION] ?? '';
  const useSpec = fromSpec.length > 0;
  const raw = useSpec ? fromSpec : annotation.split(',');
  const cidrs = raw.map((c) => c.trim()).filter((c) => c !== '');
  const bad = cidrs.filter((c) => !IPV4_CIDR.test(c));
  const where = useSpec ? 'spec.loadBalancerSourceRanges' : SOURCE_RANGES_ANNOTATION;
  const issues = bad.map((c) => ({
    annotation: where,
    value: c,
    allowed: 'IPv4 CIDRs like 203.0.113.0/24',
    message: `${where} entry "${c}" must be an IPv4 CIDR like 203.0.113.0/24`,
  }));
  return { cidrs: cidrs.length > 0 ? cidrs : ['0.0.0.0/0'], issues };
}

/** Upstream `NeedsHealthCheck`: type LoadBalancer with `externalTrafficPolicy: Local`. */
export function needsHealthCheckNodePort(service: V1Service): boolean {
  return service.spec?.type === 'LoadBalancer' && service.spec.externalTrafficPolicy === 'Local' && (service.spec.healthCheckNodePort ?? 0) > 0;
}

const HEALTH_CHECK_KEYS = ['healthCheckProtocol', 'healthCheckPort', 'healthCheckPath'] as const;

function hasExplicitHealthCheck(service: V1Service): boolean {
  const annotations = service.metadata?.annotations ?? {};
  return HEALTH_CHECK_KEYS.some((k) => annotations[loadBalancerAnnotations[k].key] !== undefined);
}

function healthCheckFor(service: V1Service, port: V1ServicePort, config: LoadBalancerAnnotationConfig): HealthCheckPlan {
  const override = config.portOverrides.get(port.port) ?? {};
  const timing = { intervalSeconds: config.healthCheckInterval, timeoutSeconds: config.healthCheckTimeout, retries: config.healthCheckRetries };
  if (needsHealthCheckNodePort(service) && !hasExplicitHealthCheck(service) && !config.portOverrides.has(port.port)) {
    return { protocol: 'http', port: service.spec?.healthCheckNodePort ?? 0, path: '/healthz', ...timing };
  }
  // A TCP connect to a UDP node port tells nothing: without the health-check node port, nothing is checked.
  if (port.protocol === 'UDP') return { protocol: 'none', port: port.nodePort ?? 0, path: '/', ...timing };
  return { ...explicitHealthCheck(port, override, config), ...timing };
}

function explicitHealthCheck(
  port: V1ServicePort,
  override: PortOverride,
  config: LoadBalancerAnnotationConfig,
): Pick<HealthCheckPlan, 'protocol' | 'port' | 'path'> {
  const fallbackPort = config.healthCheckPort ?? port.nodePort ?? 0;
  return {
    protocol: override['health-check-protocol'] ?? config.healthCheckProtocol,
    port: override['health-check-port'] ?? fallbackPort,
    path: override['health-check-path'] ?? config.healthCheckPath,
  };
}

function portIssue(port: V1ServicePort): AnnotationIssue | undefined {
  const label = `spec.ports[${port.name ?? port.port}]`;
  const protocol = port.protocol ?? 'TCP';
  if (protocol !== 'TCP' && protocol !== 'UDP') {
    return { annotation: label, value: protocol, allowed: 'TCP, UDP', message: `${label} protocol ${protocol} is not supported; allowed: TCP, UDP` };
  }
  if (!port.nodePort) {
    return { annotation: label, value: '', allowed: 'a node port', message: `${label} has no nodePort (allocateLoadBalancerNodePorts=false is not supported)` };
  }
  return undefined;
}

function portIssues(service: V1Service): AnnotationIssue[] {
  const ports = service.spec?.ports ?? [];
  const issues = ports.map(portIssue).filter((i) => i !== undefined);
  // A simcloud load balancer has one listener per port: 53/TCP and 53/UDP cannot share it.
  const twice = ports.filter((p, i) => ports.findIndex((q) => q.port === p.port) !== i);
  for (const p of twice)
    issues.push({
      annotation: `spec.ports[${p.name ?? p.port}]`,
      value: String(p.port),
      allowed: 'one protocol per port',
      message: `port ${p.port} is listed twice (one listener per port on a simcloud load balancer)`,
    });
  for (const port of overriddenPorts(service)) {
    if (ports.some((p) => p.port === port)) continue;
    const key = `${ANNOTATION_PREFIX}port-${port}`;
    issues.push({ annotation: key, value: '', allowed: 'a port of spec.ports', message: `annotation ${key} names no port of the Service` });
  }
  return issues;
}

function overriddenPorts(service: V1Service): number[] {
  const prefix = `${ANNOTATION_PREFIX}port-`;
  return Object.keys(service.metadata?.annotations ?? {})
    .filter((k) => k.startsWith(prefix))
    .map((k) => Number(k.slice(prefix.length)));
}

/** The whole wanted LB for a Service; throws `InvalidServiceError` before any cloud call. */
export function planLoadBalancer(service: V1Service, config: LoadBalancerAnnotationConfig): LoadBalancerPlan {
  const sources = sourceRangesOf(service);
  const issues = [...portIssues(service), ...sources.issues];
  if (issues.length > 0) throw new InvalidServiceError(issues);
  const ports = service.spec?.ports ?? [];
  const listeners = withTls(
    ports.map((port): ListenerPlan => {
      const override = config.portOverrides.get(port.port);
      const udp = port.protocol === 'UDP';
      return {
        protocol: udp ? 'udp' : (override?.protocol ?? config.protocol),
        listenPort: port.port,
        destinationPort: port.nodePort ?? 0,
        // No PROXY header goes over UDP.
        proxyProtocol: udp ? 'none' : (override?.['proxy-protocol'] ?? config.proxyProtocol),
        healthCheck: healthCheckFor(service, port, config),
      };
    }),
    config,
  );
  return {
    algorithm: config.algorithm,
    sessionAffinity: service.spec?.sessionAffinity === 'ClientIP' ? 'source_ip' : 'none',
    listeners,
    firewallRules: firewallRulesOf(listeners, sources.cidrs),
    sourceCidrs: sources.cidrs,
    requestedIp: service.spec?.loadBalancerIP || undefined,
  };
}

/** The certificate on every https listener and the redirect on every http one; a redirect needs an https port. */
function withTls(listeners: ListenerPlan[], config: LoadBalancerAnnotationConfig): ListenerPlan[] {
  const httpsPort = listeners.find((l) => l.protocol === 'https')?.listenPort;
  if (config.redirectHttpToHttps && httpsPort === undefined) {
    const key = loadBalancerAnnotations.redirectHttpToHttps.key;
    throw new InvalidServiceError([
      { annotation: key, value: 'true', allowed: 'true with an https port', message: `${key} needs an https listener to redirect to` },
    ]);
  }
  return listeners.map((l) => {
    if (l.protocol === 'https' && config.certificateId !== undefined) return { ...l, certificateId: config.certificateId };
    if (l.protocol === 'http' && config.redirectHttpToHttps) return { ...l, redirectHttpsPort: httpsPort };
    return l;
  });
}

/** One rule per node port the load balancer reaches (UDP ones over UDP) and per checked health-check port, by port. */
function firewallRulesOf(listeners: readonly ListenerPlan[], sourceCidrs: readonly string[]): FirewallRulePlan[] {
  const rules = new Map<string, FirewallRulePlan>();
  const add = (protocol: 'tcp' | 'udp', port: number): void => void rules.set(`${protocol}/${port}`, { protocol, port, sourceCidrs });
  for (const l of listeners) {
    add(l.protocol === 'udp' ? 'udp' : 'tcp', l.destinationPort);
    if (l.healthCheck.protocol !== 'none') add('tcp', l.healthCheck.port);
  }
  return [...rules.values()].sort((a, b) => a.port - b.port || compareStrings(a.protocol, b.protocol));
}

export interface Diff<T> {
  readonly create: readonly T[];
  readonly update: readonly T[];
  readonly remove: readonly T[];
}

/**
 * Generic keyed diff: items of `want` missing from `have` are created, items present in both but not `same`
 * are updated (the wanted version), items of `have` not wanted are removed.
 */
export function diffByKey<T, K>(have: readonly T[], want: readonly T[], key: (t: T) => K, same: (a: T, b: T) => boolean): Diff<T> {
  const haveByKey = new Map(have.map((h) => [key(h), h]));
  const wantKeys = new Set(want.map(key));
  const create: T[] = [];
  const update: T[] = [];
  for (const w of want) {
    const h = haveByKey.get(key(w));
    if (h === undefined) create.push(w);
    else if (!same(h, w)) update.push(w);
  }
  return { create, update, remove: have.filter((h) => !wantKeys.has(key(h))) };
}

/** Deep equality of plain JSON-like values (order-sensitive arrays). */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => compareStrings(a, b))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

/** Ids to add and remove to turn `have` into `want` (set semantics, sorted for stable call order). */
export function diffIds(have: readonly string[], want: readonly string[]): { add: string[]; remove: string[] } {
  const h = new Set(have);
  const w = new Set(want);
  return { add: [...w].filter((id) => !h.has(id)).sort(), remove: [...h].filter((id) => !w.has(id)).sort() };
}
