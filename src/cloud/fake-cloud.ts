/**
 * FakeCloud: a state-based test double of the whole contract, after upstream `cloud-provider/fake`.
 *
 * - Capability switches: `disableInstances`, `disableLoadBalancers`, `disableRoutes` make the accessor
 *   return `undefined`.
 * - Call log: `calls` records upstream's names (`instance-exists`, `instance-shutdown`,
 *   `instance-metadata`, `get`, `create`, `update`, `delete`, `list-routes`, `create-route`,
 *   `delete-route`); `callers` records the `ctx.caller` of each call.
 * - Instances: per-node canned state in `instancesByNode` (keyed by node name), or the upstream-like
 *   fallbacks (`providerIDs`, `addresses`, `zone`, `region`, ...). `metadataErr`, `existsErr`,
 *   `shutdownErr` make the matching call throw; `nilMetadata` answers `undefined`.
 * - Load balancers: `balancers` is the state (keyed by `defaultLoadBalancerName`); `getLoadBalancer`
 *   reports `exists` from that state unless `lbExists` overrides it (upstream's `Exists`). `lbErr`
 *   makes every LB call throw; `ensureErr` / `updateErr` only those calls.
 * - Routes: `routeMap` keyed by `<cluster>-<node>-<cidr>` (upstream's created name). A duplicate
 *   create or the delete of an unknown route sets `routeErr` permanently (sticky, as upstream).
 */
import type { V1LoadBalancerStatus, V1Node, V1NodeAddress, V1Service } from '@kubernetes/client-node';
import { InstanceNotFoundError } from './errors.ts';
import type { InstanceMetadata, InstancesV2 } from './instances.ts';
import { defaultLoadBalancerName, type LoadBalancer, type LoadBalancerLookup } from './load-balancer.ts';
import type { CallContext, CloudProvider } from './provider.ts';
import type { Route, Routes } from './routes.ts';

/** Canned per-node instance state. */
export interface FakeInstance {
  providerID: string;
  instanceType: string;
  addresses: V1NodeAddress[];
  zone: string;
  region: string;
  additionalLabels: Record<string, string>;
  /** false = definitely gone (InstanceExists answers false, metadata throws InstanceNotFound). */
  exists: boolean;
  shutdown: boolean;
}

/** What the fake stores per ensured load balancer (upstream `fake.Balancer`). */
export interface FakeBalancer {
  name: string;
  serviceKey: string;
  loadBalancerIP: string;
  ports: Array<{ port: number; protocol: string; nodePort: number }>;
  /** Node names, in the order given. */
  hosts: string[];
}

/** A route stored by the fake, with the cluster it belongs to. */
export interface FakeRoute {
  clusterName: string;
  route: Route;
}

export class FakeCloud implements CloudProvider, InstancesV2, LoadBalancer, Routes {
  providerName = 'fake';
  disableInstances = false;
  disableLoadBalancers = false;
  disableRoutes = false;

  readonly calls: string[] = [];
  readonly callers: string[] = [];

  // Instances
  readonly instancesByNode = new Map<string, FakeInstance>();
  providerIDs: Record<string, string> = {};
  instanceTypes: Record<string, string> = {};
  addresses: V1NodeAddress[] = [];
  zone = '';
  region = '';
  additionalLabels: Record<string, string> = {};
  nilMetadata = false;
  metadataErr: Error | undefined;
  existsByProviderID = true;
  existsErr: Error | undefined;
  nodeShutdown = false;
  shutdownErr: Error | undefined;

  // Load balancers
  readonly balancers = new Map<string, FakeBalancer>();
  externalIP = '192.0.2.10';
  lbExists: boolean | undefined;
  lbErr: Error | undefined;
  ensureErr: Error | undefined;
  updateErr: Error | undefined;
  readonly ensureCalls: Array<{ service: V1Service; nodes: string[] }> = [];
  readonly updateCalls: Array<{ service: V1Service; nodes: string[] }> = [];

  // Routes
  readonly routeMap = new Map<string, FakeRoute>();
  routeErr: Error | undefined;
  /** Per-CIDR create failures (not sticky). */
  readonly createRouteErrByCIDR = new Map<string, Error>();

  instances(): InstancesV2 | undefined {
    return this.disableInstances ? undefined : this;
  }
  loadBalancer(): LoadBalancer | undefined {
    return this.disableLoadBalancers ? undefined : this;
  }
  routes(): Routes | undefined {
    return this.disableRoutes ? undefined : this;
  }

  /** Sets canned instance state for a node name (fills defaults). */
  setInstance(nodeName: string, instance: Partial<FakeInstance>): FakeInstance {
    const full: FakeInstance = {
      providerID: `fake://${nodeName}`,
      instanceType: '',
      addresses: [],
      zone: '',
      region: '',
      additionalLabels: {},
      exists: true,
      shutdown: false,
      ...instance,
    };
    this.instancesByNode.set(nodeName, full);
    return full;
  }

  private record(name: string, ctx?: CallContext): void {
    this.calls.push(name);
    this.callers.push(ctx?.caller ?? '');
  }

  async instanceExists(node: V1Node, ctx?: CallContext): Promise<boolean> {
    this.record('instance-exists', ctx);
    if (this.existsErr) throw this.existsErr;
    const canned = this.instancesByNode.get(node.metadata?.name ?? '');
    return Promise.resolve(canned ? canned.exists : this.existsByProviderID);
  }

  async instanceShutdown(node: V1Node, ctx?: CallContext): Promise<boolean> {
    this.record('instance-shutdown', ctx);
    if (this.shutdownErr) throw this.shutdownErr;
    const canned = this.instancesByNode.get(node.metadata?.name ?? '');
    return Promise.resolve(canned ? canned.shutdown : this.nodeShutdown);
  }

  async instanceMetadata(node: V1Node, ctx?: CallContext): Promise<InstanceMetadata | undefined> {
    this.record('instance-metadata', ctx);
    if (this.metadataErr) throw this.metadataErr;
    if (this.nilMetadata) return undefined;
    const canned = this.instancesByNode.get(node.metadata?.name ?? '');
    if (canned && !canned.exists) throw new InstanceNotFoundError();
    if (canned) {
      const { providerID, instanceType, addresses, zone, region, additionalLabels } = canned;
      return Promise.resolve({ providerID, instanceType, nodeAddresses: addresses, zone, region, additionalLabels });
    }
    return Promise.resolve(this.fallbackMetadata(node));
  }

  private fallbackMetadata(node: V1Node): InstanceMetadata {
    return {
      providerID: this.providerIDs[node.metadata?.name ?? ''] ?? '',
      instanceType: this.instanceTypes[node.spec?.providerID ?? ''] ?? '',
      nodeAddresses: this.addresses,
      zone: this.zone,
      region: this.region,
      additionalLabels: this.additionalLabels,
    };
  }

  async getLoadBalancer(_cluster: string, service: V1Service, ctx?: CallContext): Promise<LoadBalancerLookup> {
    this.record('get', ctx);
    if (this.lbErr) throw this.lbErr;
    const exists = this.lbExists ?? this.balancers.has(defaultLoadBalancerName(service));
    return Promise.resolve({ status: { ingress: [{ ip: this.externalIP }] }, exists });
  }

  getLoadBalancerName(_cluster: string, service: V1Service): string {
    return defaultLoadBalancerName(service);
  }

  async ensureLoadBalancer(_cluster: string, service: V1Service, nodes: readonly V1Node[], ctx?: CallContext): Promise<V1LoadBalancerStatus> {
    this.record('create', ctx);
    const hosts = nodes.map((n) => n.metadata?.name ?? '');
    this.ensureCalls.push({ service, nodes: hosts });
    const failure = this.lbErr ?? this.ensureErr;
    if (failure) throw failure;
    const balancer = toBalancer(service, hosts);
    this.balancers.set(balancer.name, balancer);
    const ports = (service.spec?.ports ?? []).map((p) => ({ port: p.port, protocol: p.protocol ?? 'TCP' }));
    return Promise.resolve({ ingress: [{ ip: this.externalIP, ipMode: 'VIP', ports }] });
  }

  async updateLoadBalancer(_cluster: string, service: V1Service, nodes: readonly V1Node[], ctx?: CallContext): Promise<void> {
    this.record('update', ctx);
    const hosts = nodes.map((n) => n.metadata?.name ?? '');
    this.updateCalls.push({ service, nodes: hosts });
    const failure = this.lbErr ?? this.updateErr;
    if (failure) throw failure;
    const balancer = this.balancers.get(defaultLoadBalancerName(service));
    if (balancer) balancer.hosts = hosts;
    return Promise.resolve();
  }

  async ensureLoadBalancerDeleted(_cluster: string, service: V1Service, ctx?: CallContext): Promise<void> {
    this.record('delete', ctx);
    if (this.lbErr) throw this.lbErr;
    this.balancers.delete(defaultLoadBalancerName(service));
    return Promise.resolve();
  }

  async listRoutes(clusterName: string, ctx?: CallContext): Promise<Route[]> {
    this.record('list-routes', ctx);
    if (this.routeErr) throw this.routeErr;
    const routes = [...this.routeMap.values()].filter((r) => r.clusterName === clusterName).map((r) => ({ ...r.route }));
    return Promise.resolve(routes);
  }

  async createRoute(clusterName: string, _nameHint: string, route: Route, ctx?: CallContext): Promise<void> {
    this.record('create-route', ctx);
    if (this.routeErr) throw this.routeErr;
    const perCIDR = this.createRouteErrByCIDR.get(route.destinationCIDR);
    if (perCIDR) throw perCIDR;
    const name = `${clusterName}-${route.targetNode}-${route.destinationCIDR}`;
    if (this.routeMap.has(name)) {
      this.routeErr = new Error(`route ${name} already exists`);
      throw this.routeErr;
    }
    this.routeMap.set(name, { clusterName, route: { ...route, name } });
    return Promise.resolve();
  }

  async deleteRoute(clusterName: string, route: Route, ctx?: CallContext): Promise<void> {
    this.record('delete-route', ctx);
    if (this.routeErr) throw this.routeErr;
    const entry = [...this.routeMap.entries()].find(
      ([, r]) => r.clusterName === clusterName && r.route.targetNode === route.targetNode && r.route.destinationCIDR === route.destinationCIDR,
    );
    if (!entry) {
      this.routeErr = new Error(`no such route: ${route.targetNode} ${route.destinationCIDR}`);
      throw this.routeErr;
    }
    this.routeMap.delete(entry[0]);
    return Promise.resolve();
  }

  /** Seeds a route directly into the state (no call recorded). */
  addRoute(clusterName: string, route: Partial<Route> & Pick<Route, 'destinationCIDR'>): void {
    const full: Route = {
      name: '',
      targetNode: '',
      targetNodeAddresses: [],
      blackhole: false,
      enableNodeAddresses: false,
      ...route,
    };
    const name = full.name || `${clusterName}-${full.targetNode}-${full.destinationCIDR}`;
    this.routeMap.set(name, { clusterName, route: { ...full, name } });
  }
}

function toBalancer(service: V1Service, hosts: string[]): FakeBalancer {
  const meta = service.metadata ?? {};
  const spec = service.spec ?? {};
  return {
    name: defaultLoadBalancerName(service),
    serviceKey: `${meta.namespace ?? ''}/${meta.name ?? ''}`,
    loadBalancerIP: spec.loadBalancerIP ?? '',
    ports: (spec.ports ?? []).map((p) => ({ port: p.port, protocol: p.protocol ?? 'TCP', nodePort: p.nodePort ?? 0 })),
    hosts,
  };
}
