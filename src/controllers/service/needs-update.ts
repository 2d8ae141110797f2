/**
 * Service selection predicates of the service-lb-controller (upstream `controllers/service`):
 * `wantsLoadBalancer`, `needsCleanup`, `needsUpdate`, and the load-balancer status comparison.
 *
 * `loadBalancerClass` is this CCM's `--load-balancer-class`: `undefined` = upstream (a Service with any
 * `spec.loadBalancerClass` is ignored); a name = serve exactly the Services of that class.
 */
import type { V1LoadBalancerStatus, V1Service, V1ServicePort } from '@kubernetes/client-node';

export const LoadBalancerCleanupFinalizer = 'service.kubernetes.io/load-balancer-cleanup';

export function hasLoadBalancerFinalizer(service: V1Service): boolean {
  return (service.metadata?.finalizers ?? []).includes(LoadBalancerCleanupFinalizer);
}

/** The Service is ours by class: no class (upstream), or exactly the configured class. */
export function isServedClass(service: V1Service, loadBalancerClass: string | undefined): boolean {
  const cls = service.spec?.loadBalancerClass ?? undefined;
  return loadBalancerClass === undefined ? cls === undefined : cls === loadBalancerClass;
}

/** `spec.type == LoadBalancer` and the class is served. */
export function wantsLoadBalancer(service: V1Service, loadBalancerClass?: string): boolean {
  return service.spec?.type === 'LoadBalancer' && isServedClass(service, loadBalancerClass);
}

/** Has our finalizer and is being deleted or no longer of type LoadBalancer. */
export function needsCleanup(service: V1Service): boolean {
  if (!hasLoadBalancerFinalizer(service)) return false;
  return Boolean(service.metadata?.deletionTimestamp) || service.spec?.type !== 'LoadBalancer';
}

/** Go `reflect.DeepEqual` for JSON values: nil (undefined/null) and empty lists/maps DIFFER. */
export function strictDeepEqual(a: unknown, b: unknown): boolean {
  if (isNil(a) || isNil(b)) return isNil(a) && isNil(b);
  if (Array.isArray(a) || Array.isArray(b)) return arraysEqual(a, b);
  if (typeof a === 'object' && typeof b === 'object') return objectsEqual(a, b, strictDeepEqual);
  return a === b;
}

function isNil(v: unknown): v is null | undefined {
  return v === undefined || v === null;
}

function arraysEqual(a: unknown, b: unknown): boolean {
  return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => strictDeepEqual(x, b[i]));
}

/** `equality.Semantic.DeepEqual`: like `strictDeepEqual` but nil and empty lists/maps are equal. */
export function semanticDeepEqual(a: unknown, b: unknown): boolean {
  return strictDeepEqual(normalizeEmpty(a), normalizeEmpty(b));
}

function normalizeEmpty(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(normalizeEmpty);
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    const entries = Object.entries(v)
      .map(([k, x]) => [k, normalizeEmpty(x)] as const)
      .filter(([, x]) => x !== undefined);
    return entries.length === 0 ? undefined : Object.fromEntries(entries);
  }
  return v ?? undefined;
}

function objectsEqual(a: object, b: object, eq: (x: unknown, y: unknown) => boolean): boolean {
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
  for (const k of keys) if (!eq(ra[k], rb[k])) return false;
  return true;
}

function portEqual(x: V1ServicePort, y: V1ServicePort): boolean {
  return (
    x.name === y.name &&
    x.protocol === y.protocol &&
    x.port === y.port &&
    x.nodePort === y.nodePort &&
    String(x.targetPort ?? '') === String(y.targetPort ?? '') &&
    typeof x.targetPort === typeof y.targetPort &&
    x.appProtocol === y.appProtocol
  );
}

/** Upstream `portsEqualForLB`: same length, element-wise in order. */
export function portsEqualForLB(x: V1Service, y: V1Service): boolean {
  const a = x.spec?.ports ?? [];
  const b = y.spec?.ports ?? [];
  return a.length === b.length && a.every((p, i) => portEqual(p, b[i] as V1ServicePort));
}

function externalIPsEqual(x: V1Service, y: V1Service): boolean {
  const a = x.spec?.externalIPs ?? [];
  const b = y.spec?.externalIPs ?? [];
  return a.length === b.length && a.every((ip, i) => ip === b[i]);
}

/** The field checks of `needsUpdate`, each true when that field changed. */
const changeChecks: ReadonlyArray<(o: V1Service, n: V1Service) => boolean> = [
  (o, n) => !strictDeepEqual(o.spec?.loadBalancerSourceRanges, n.spec?.loadBalancerSourceRanges),
  (o, n) => !portsEqualForLB(o, n),
  (o, n) => o.spec?.sessionAffinity !== n.spec?.sessionAffinity,
  (o, n) => !strictDeepEqual(o.spec?.sessionAffinityConfig, n.spec?.sessionAffinityConfig),
  (o, n) => o.spec?.loadBalancerIP !== n.spec?.loadBalancerIP,
  (o, n) => !externalIPsEqual(o, n),
  (o, n) => !strictDeepEqual(o.metadata?.annotations, n.metadata?.annotations),
  (o, n) => o.metadata?.uid !== n.metadata?.uid,
  (o, n) => o.spec?.externalTrafficPolicy !== n.spec?.externalTrafficPolicy,
  (o, n) => o.spec?.healthCheckNodePort !== n.spec?.healthCheckNodePort,
  (o, n) => (o.spec?.ipFamilies?.length ?? 0) !== (n.spec?.ipFamilies?.length ?? 0),
];

/**
 * Upstream `needsUpdate(old, new)`: false if neither wants an LB; true if the want flips, or (when
 * the new one wants an LB) the source ranges change, or any of: ports, session affinity (+config),
 * loadBalancerIP, externalIPs, annotations, UID, externalTrafficPolicy, healthCheckNodePort, number
 * of ipFamilies. Labels, selector and status are deliberately not compared.
 */
export function needsUpdate(oldService: V1Service, newService: V1Service, loadBalancerClass?: string): boolean {
  const oldWants = wantsLoadBalancer(oldService, loadBalancerClass);
  const newWants = wantsLoadBalancer(newService, loadBalancerClass);
  if (!oldWants && !newWants) return false;
  if (oldWants !== newWants) return true;
  return changeChecks.some((changed) => changed(oldService, newService));
}

/** Upstream `LoadBalancerStatusEqual` (v0.31+): semantic deep equality of the ingress list. */
export function loadBalancerStatusEqual(a: V1LoadBalancerStatus | undefined, b: V1LoadBalancerStatus | undefined): boolean {
  return semanticDeepEqual(a?.ingress, b?.ingress);
}
