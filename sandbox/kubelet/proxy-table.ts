// What a kube-proxy knows, computed from Services and EndpointSlices (pure): for every port of every
// NodePort/LoadBalancer Service, its NodePort, the endpoints traffic may go to, the traffic policy, the
// session affinity, the health check node port and the LoadBalancer ingress IPs kube-proxy programs on
// every node (traffic to <ingress IP>:<port> that reaches a node goes to an endpoint, which is how a
// network load balancer that keeps the destination address, such as DigitalOcean's REGIONAL_NETWORK,
// reaches the pods). Endpoint usability follows kube-proxy: ready endpoints
// (a missing `ready` condition counts as ready); when none is ready, serving-but-terminating ones
// take the traffic instead, so a rolling update does not drop connections. FQDN slices carry no
// routable endpoint and are ignored, as kube-proxy does.
import { isIPv4 } from 'node:net';
import type { V1Endpoint, V1EndpointSlice, V1Service, V1ServicePort } from '@kubernetes/client-node';

/** The label linking an EndpointSlice to its Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** Upstream's default ClientIP affinity timeout (3 hours). */
export const DEFAULT_AFFINITY_TIMEOUT_SECONDS = 10_800;

export interface ProxyEndpoint {
  /** The pod behind the endpoint (targetRef), if the slice names one. */
  readonly pod: string | null;
  /** The node the endpoint runs on (endpoint.nodeName). */
  readonly node: string | null;
  readonly address: string;
  readonly port: number;
}

export interface ProxiedPort {
  readonly name: string;
  readonly protocol: string;
  /** The Service's own port: what traffic to an ingress IP arrives on. */
  readonly port: number;
  /** 0 when the Service has none (a LoadBalancer with allocateLoadBalancerNodePorts false). */
  readonly nodePort: number;
  /** Usable endpoints of this port, in a stable order. */
  readonly endpoints: readonly ProxyEndpoint[];
}

export interface ProxiedService {
  readonly namespace: string;
  readonly name: string;
  readonly externalTrafficPolicy: 'Cluster' | 'Local';
  /** Set for a LoadBalancer Service with externalTrafficPolicy Local (the apiserver allocates it). */
  readonly healthCheckNodePort: number | null;
  /** ClientIP affinity timeout in milliseconds, or null without affinity. */
  readonly affinityTimeoutMs: number | null;
  /**
   * IPv4 LoadBalancer ingress IPs kube-proxy answers for on every node: `status.loadBalancer.ingress[].ip`
   * unless its ipMode is Proxy (the load balancer then sends to the node's own address, KEP-1860). IPv6
   * ingress addresses carry no traffic in the sandbox and are left out.
   */
  readonly ingressIps: readonly string[];
  readonly ports: readonly ProxiedPort[];
}

interface Candidate extends ProxyEndpoint {
  readonly ready: boolean;
  readonly servingTerminating: boolean;
}

/** Builds the table; Services with neither a NodePort nor an ingress IP kube-proxy programs are left out. */
export function buildProxyTable(services: readonly V1Service[], slices: readonly V1EndpointSlice[]): ProxiedService[] {
  const byService = new Map<string, V1EndpointSlice[]>();
  for (const slice of slices) {
    const svc = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
    if (!svc || slice.addressType === 'FQDN') continue;
    const key = `${slice.metadata?.namespace ?? ''}/${svc}`;
    byService.set(key, [...(byService.get(key) ?? []), slice]);
  }
  return services
    .filter((svc) => hasNodePorts(svc) || ingressIpsOf(svc).length > 0)
    .map((svc) => {
      const namespace = svc.metadata?.namespace ?? '';
      const name = svc.metadata?.name ?? '';
      const mine = byService.get(`${namespace}/${name}`) ?? [];
      return {
        namespace,
        name,
        externalTrafficPolicy: svc.spec?.externalTrafficPolicy === 'Local' ? 'Local' : 'Cluster',
        healthCheckNodePort: healthCheckNodePort(svc),
        affinityTimeoutMs: affinityTimeoutMs(svc),
        ingressIps: ingressIpsOf(svc),
        ports: (svc.spec?.ports ?? []).map((p) => proxiedPort(p, mine)),
      };
    });
}

/** The endpoints a connection arriving on `node` may use: all of them, or the node's own under policy Local. */
export function endpointsOn(service: ProxiedService, port: ProxiedPort, node: string): readonly ProxyEndpoint[] {
  return service.externalTrafficPolicy === 'Local' ? port.endpoints.filter((e) => e.node === node) : port.endpoints;
}

/** kube-proxy's health check count: distinct ready endpoints of the Service on `node`, over all ports. */
export function localEndpointCount(service: ProxiedService, node: string): number {
  return new Set(service.ports.flatMap((p) => p.endpoints.filter((e) => e.node === node).map((e) => e.address))).size;
}

function hasNodePorts(svc: V1Service): boolean {
  const type = svc.spec?.type;
  return (type === 'NodePort' || type === 'LoadBalancer') && (svc.spec?.ports ?? []).some((p) => (p.nodePort ?? 0) > 0);
}

function ingressIpsOf(svc: V1Service): string[] {
  if (svc.spec?.type !== 'LoadBalancer') return [];
  const ingress = svc.status?.loadBalancer?.ingress ?? [];
  return ingress.flatMap((i) => (i.ip !== undefined && isIPv4(i.ip) && i.ipMode !== 'Proxy' ? [i.ip] : []));
}

function healthCheckNodePort(svc: V1Service): number | null {
  const spec = svc.spec;
  return spec?.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local' && spec.healthCheckNodePort ? spec.healthCheckNodePort : null;
}

function affinityTimeoutMs(svc: V1Service): number | null {
  if (svc.spec?.sessionAffinity !== 'ClientIP') return null;
  return (svc.spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_AFFINITY_TIMEOUT_SECONDS) * 1000;
}

function proxiedPort(port: V1ServicePort, slices: readonly V1EndpointSlice[]): ProxiedPort {
  const name = port.name ?? '';
  const protocol = port.protocol ?? 'TCP';
  const seen = new Map<string, Candidate>();
  for (const slice of slices) {
    const slicePort = (slice.ports ?? []).find((p) => (p.name ?? '') === name && (p.protocol ?? 'TCP') === protocol);
    if (slicePort?.port === undefined) continue;
    for (const c of candidates(slice, slicePort.port)) seen.set(`${c.address}:${c.port}`, c);
  }
  const all = [...seen.values()].sort((a, b) => `${a.address}:${a.port}`.localeCompare(`${b.address}:${b.port}`));
  const ready = all.filter((c) => c.ready);
  const usable = ready.length > 0 ? ready : all.filter((c) => c.servingTerminating);
  return {
    name,
    protocol,
    port: port.port,
    nodePort: port.nodePort ?? 0,
    endpoints: usable.map(({ pod, node, address, port: p }) => ({ pod, node, address, port: p })),
  };
}

function candidates(slice: V1EndpointSlice, port: number): Candidate[] {
  return (slice.endpoints ?? []).flatMap((ep) => {
    const address = ep.addresses[0];
    return address === undefined ? [] : [{ pod: ep.targetRef?.name ?? null, node: ep.nodeName ?? null, address, port, ...conditionsOf(ep) }];
  });
}

/** Missing conditions read as the API documents: ready unknown = ready, serving unknown = ready. */
function conditionsOf(ep: V1Endpoint): Pick<Candidate, 'ready' | 'servingTerminating'> {
  const ready = ep.conditions?.ready ?? true;
  const serving = ep.conditions?.serving ?? ready;
  const terminating = ep.conditions?.terminating ?? false;
  return { ready: ready && !terminating, servingTerminating: serving && terminating };
}
