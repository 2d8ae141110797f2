/**
 * Cloud load-balancer steps shared by both strategies (hcops style): find the Service's LB (adopted id, owner
 * labels, then name), create it, reconcile it (each step returns whether it changed anything) and delete it.
 */
import type { V1LoadBalancerIngress, V1LoadBalancerStatus, V1Service } from '@kubernetes/client-node';
import type { SimcloudClient } from '../../../simulator/api/client/index.ts';
import type { LoadBalancer, LoadBalancerService, LoadBalancerTarget, UpdateLoadBalancerRequest } from '../../../simulator/api/schema/index.ts';
import type { CallContext } from '../../cloud/provider.ts';
import type { LoadBalancerAnnotationConfig } from '../annotations.ts';
import { callOptions, deleteIgnoringNotFound, unlessNotFound, waitForAction } from '../client.ts';
import { isOwnedBy, ownerLabels, ownerSelector, resourceName } from './naming.ts';
import { writing, type OwnedLookup } from './owned-listing.ts';
import { sameJson, type ListenerPlan, type LoadBalancerPlan } from './plan.ts';
import { compareStrings } from '../../util/order.ts';

/**
 * A load balancer as the steps read it: all but `resolved_targets` (health per target and port), which no
 * step reads and which is most of an LB's size (a server-group target resolves to every node).
 */
export type LoadBalancerView = Omit<LoadBalancer, 'resolved_targets'>;

/** What every step needs: the client, the cluster name and the call context (caller header, signal). */
export interface OpsContext {
  readonly client: SimcloudClient;
  readonly clusterName: string;
  readonly ctx: CallContext | undefined;
  /** The shared listing, for a Service that already has its resources (absent: every lookup asks the API). */
  readonly owned?: OwnedLookup;
}

/** A step's outcome: the resource as it is now and whether the step changed the cloud. */
export interface Reconciled<T> {
  readonly resource: T;
  readonly changed: boolean;
}

/** The wanted mutable fields of the LB. */
export interface LoadBalancerSpec {
  readonly algorithm: LoadBalancer['algorithm'];
  readonly session_affinity: LoadBalancer['session_affinity'];
  readonly services: LoadBalancerService[];
  readonly targets: LoadBalancerTarget[];
  readonly source_ranges: string[];
}

function wireService(listener: ListenerPlan): LoadBalancerService {
  const hc = listener.healthCheck;
  return {
    protocol: listener.protocol,
    listen_port: listener.listenPort,
    destination_port: listener.destinationPort,
    proxy_protocol: listener.proxyProtocol,
    health_check: {
      protocol: hc.protocol,
      port: hc.port,
      path: hc.path,
      interval_seconds: hc.intervalSeconds,
      timeout_seconds: hc.timeoutSeconds,
      retries: hc.retries,
    },
    ...(listener.certificateId === undefined ? {} : { certificate_id: listener.certificateId }),
    ...(listener.redirectHttpsPort === undefined ? {} : { redirect_https_port: listener.redirectHttpsPort }),
  };
}

/**
 * The LB's wanted fields from the plan and targets. Source ranges go on the LB only when `onLoadBalancer`
 * (strategy ip-block); strategy lb enforces them with the firewall policy instead. `0.0.0.0/0` alone = none.
 */
export function loadBalancerSpec(plan: LoadBalancerPlan, targets: LoadBalancerTarget[], onLoadBalancer = true): LoadBalancerSpec {
  const open = !onLoadBalancer || (plan.sourceCidrs.length === 1 && plan.sourceCidrs[0] === '0.0.0.0/0');
  return {
    algorithm: plan.algorithm,
    session_affinity: plan.sessionAffinity,
    services: plan.listeners.map(wireService).sort((a, b) => a.listen_port - b.listen_port),
    targets,
    source_ranges: open ? [] : [...plan.sourceCidrs],
  };
}

const byPort = (services: readonly LoadBalancerService[]): LoadBalancerService[] => [...services].sort((a, b) => a.listen_port - b.listen_port);
const targetKey = (t: LoadBalancerTarget): string => JSON.stringify(t);
const byTarget = (targets: readonly LoadBalancerTarget[]): LoadBalancerTarget[] => [...targets].sort((a, b) => compareStrings(targetKey(a), targetKey(b)));

/** The PATCH body turning `lb` into `spec` (+ owner labels and name); empty when nothing differs (pure). */
export function loadBalancerUpdate(lb: LoadBalancerView, spec: LoadBalancerSpec, labels: Record<string, string>): UpdateLoadBalancerRequest {
  const body: UpdateLoadBalancerRequest = {};
  if (lb.algorithm !== spec.algorithm) body.algorithm = spec.algorithm;
  if (lb.session_affinity !== spec.session_affinity) body.session_affinity = spec.session_affinity;
  if (!sameJson(byPort(lb.services), spec.services)) body.services = spec.services;
  if (!sameJson(byTarget(lb.targets), byTarget(spec.targets))) body.targets = spec.targets;
  if (!sameJson([...lb.source_ranges].sort(), [...spec.source_ranges].sort())) body.source_ranges = spec.source_ranges;
  if (Object.entries(labels).some(([k, v]) => lb.labels[k] !== v)) body.labels = { ...lb.labels, ...labels };
  return body;
}

/**
 * The Service's LB: the adopted id when given (must exist), else by owner labels, else by name (a create whose
 * answer was lost). `undefined` when none exists.
 */
export async function findLoadBalancer(ops: OpsContext, service: V1Service, adoptId: string | undefined): Promise<LoadBalancerView | undefined> {
  const opts = callOptions(ops.ctx);
  if (adoptId !== undefined) {
    const adopted = await unlessNotFound(() => ops.client.loadBalancers.get(adoptId, opts));
    if (!adopted) throw new Error(`loadbalancer.simcloud.dev/load-balancer-id: load balancer ${adoptId} does not exist`);
    return adopted;
  }
  const listed = (await ops.owned?.lookup())?.loadBalancer;
  if (listed) return listed;
  const { load_balancers: owned } = await ops.client.loadBalancers.listSummaries(
    { label_selector: ownerSelector(ops.clusterName, service), sort: 'created:asc' },
    opts,
  );
  if (owned[0]) return owned[0];
  const { load_balancers: named } = await ops.client.loadBalancers.listSummaries({ name: resourceName(ops.clusterName, service) }, opts);
  return named.find((lb) => lb.name === resourceName(ops.clusterName, service));
}

/** Creates the LB and waits until its create action has finished. */
export async function createLoadBalancer(
  ops: OpsContext,
  service: V1Service,
  spec: LoadBalancerSpec,
  placement: { readonly location?: string; readonly ipBlockId?: string },
): Promise<LoadBalancer> {
  const opts = callOptions(ops.ctx);
  const { load_balancer: lb, action } = await writing(ops.owned, () =>
    ops.client.loadBalancers.create(
      {
        name: resourceName(ops.clusterName, service),
        labels: ownerLabels(ops.clusterName, service),
        ...spec,
        ...(placement.location ? { location: placement.location } : {}),
        ...(placement.ipBlockId ? { ip_block_id: placement.ipBlockId } : {}),
      },
      opts,
    ),
  );
  await waitForAction(ops.client, action, ops.ctx);
  return lb;
}

/** Updates whatever differs from `spec`; `changed` says whether a PATCH was sent. */
export async function reconcileLoadBalancer(
  ops: OpsContext,
  service: V1Service,
  lb: LoadBalancerView,
  spec: LoadBalancerSpec,
): Promise<Reconciled<LoadBalancerView>> {
  const body = loadBalancerUpdate(lb, spec, ownerLabels(ops.clusterName, service));
  if (Object.keys(body).length === 0) return { resource: lb, changed: false };
  const updated = await writing(ops.owned, () => ops.client.loadBalancers.update(lb.id, body, callOptions(ops.ctx)));
  return { resource: updated, changed: true };
}

/** Deletes the LB (if it still exists) and waits for the delete to finish. */
export async function deleteLoadBalancer(ops: OpsContext, lb: LoadBalancerView): Promise<void> {
  const opts = callOptions(ops.ctx);
  const action = await writing(ops.owned, () => unlessNotFound(() => ops.client.loadBalancers.delete(lb.id, opts)));
  if (action) await deleteIgnoringNotFound(() => waitForAction(ops.client, action, ops.ctx));
}

/** True when the LB is this Service's (labels) or adopted for it by id. */
export function isServiceLoadBalancer(ops: OpsContext, service: V1Service, lb: LoadBalancerView, adoptId: string | undefined): boolean {
  return lb.id === adoptId || isOwnedBy(lb.labels, ops.clusterName, service);
}

/** A hostname for hostname-only ingress: derived from the VIP and location (simcloud has no DNS of its own). */
export function loadBalancerHostname(lb: LoadBalancerView): string {
  return `${lb.public_ipv4.replaceAll('.', '-')}.${lb.location}.lb.simcloud.dev`;
}

/** `status.loadBalancer` for the LB: its VIP (ipMode Proxy with the PROXY protocol), or only a hostname. */
export function ingressStatus(lb: LoadBalancerView, config: LoadBalancerAnnotationConfig): V1LoadBalancerStatus {
  if (config.hostnameOnlyIngress) return { ingress: [{ hostname: loadBalancerHostname(lb) }] };
  const proxied = lb.services.some((s) => s.proxy_protocol !== 'none');
  const ingress: V1LoadBalancerIngress = { ip: lb.public_ipv4, ...(proxied ? { ipMode: 'Proxy' } : { ipMode: 'VIP' }) };
  return { ingress: [ingress] };
}
