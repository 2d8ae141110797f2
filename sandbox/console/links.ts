// The links between the two worlds, computed from the two snapshots: Node ↔ server (providerID, else the
// server with the Node's name), Service ↔ load balancer / server group / firewall policy / IP block, and
// podCIDR ↔ route (the route whose destination is the Node's podCIDR). A Service owns what carries its UID
// (our CCMs' labels and tags) and, whichever CCM made it, the load balancer named as Kubernetes names a
// Service's load balancer or as a cloud CCM's name annotation says, or holding the Service's ingress address.
// Pure, so the UI gets the same answer the tests check.
import { CLOUD_DESCRIPTORS } from '../cloud/registry.ts';
import type { NodeView, ServiceView } from './cluster.ts';

export interface CloudLinkInput {
  readonly servers: readonly { id: string; name: string }[];
  readonly loadBalancers: readonly { id: string; name: string; public_ipv4: string | null; labels: Record<string, string> }[];
  readonly serverGroups: readonly { id: string; labels: Record<string, string> }[];
  readonly firewallPolicies: readonly { id: string; labels: Record<string, string> }[];
  readonly ipBlocks: readonly { id: string; tags: Record<string, string> }[];
  readonly networks: readonly { id: string; routes: readonly { id: string; destination: string; gateway: string }[] }[];
}

export interface ServiceLinks {
  loadBalancers: string[];
  serverGroups: string[];
  firewallPolicies: string[];
  ipBlocks: string[];
}

export interface Links {
  /** Node name → server id. */
  readonly nodeToServer: Record<string, string>;
  /** Server id → Node name. */
  readonly serverToNode: Record<string, string>;
  /** `<ns>/<name>` → owned cloud resources. */
  readonly serviceToCloud: Record<string, ServiceLinks>;
  /** Cloud resource id (LB, group, policy, IP block) → `<ns>/<name>`. */
  readonly cloudToService: Record<string, string>;
  /** Node name → route id (`<network id>/<route id>`). */
  readonly nodeToRoute: Record<string, string>;
  /** Route id → Node name. */
  readonly routeToNode: Record<string, string>;
  /** Server, load balancer, IP block and network id → the same resource as the persona's API spells it (`Hetzner Cloud 42`); empty on simcloud. */
  readonly personaIds: Record<string, string>;
}

/** The persona a sandbox presents, for spelling simcloud ids its way. */
/** How the sandbox's cloud shows a simcloud resource (`Linode: NodeBalancer 10`); undefined where it has none. */
export type PersonaSpelling = (simcloudId: string) => string | undefined;

const UID_LABEL = 'simcloud.dev/service-uid';

/** The name k8s.io/cloud-provider gives a Service's load balancer: `a` and the UID without dashes, 32 characters at most. */
export function defaultLoadBalancerName(uid: string): string {
  return `a${uid.replaceAll('-', '')}`.slice(0, 32);
}

/** The Service annotations cloud CCMs name their load balancers by, from the clouds' descriptors. */
const NAME_ANNOTATIONS = CLOUD_DESCRIPTORS.flatMap((d) => d.lbNameAnnotation ?? []);

/** Whether `lb` is the Service's whichever CCM made it: its UID label, its name, or its address. */
export function ownsLoadBalancer(s: Pick<ServiceView, 'uid' | 'ingress' | 'annotations'>, lb: CloudLinkInput['loadBalancers'][number]): boolean {
  if (lb.labels[UID_LABEL] === s.uid) return true;
  const names = [defaultLoadBalancerName(s.uid), ...NAME_ANNOTATIONS.map((k) => s.annotations[k]).filter((v) => v !== undefined)];
  return names.includes(lb.name) || (lb.public_ipv4 !== null && s.ingress.includes(lb.public_ipv4));
}

function linkNodes(nodes: readonly NodeView[], cloud: CloudLinkInput): Pick<Links, 'nodeToServer' | 'serverToNode'> {
  const nodeToServer: Record<string, string> = {};
  const serverToNode: Record<string, string> = {};
  const ids = new Set(cloud.servers.map((s) => s.id));
  const byName = new Map(cloud.servers.map((s) => [s.name, s.id]));
  for (const n of nodes) {
    const id = n.serverId && ids.has(n.serverId) ? n.serverId : byName.get(n.name);
    if (!id) continue;
    nodeToServer[n.name] = id;
    serverToNode[id] = n.name;
  }
  return { nodeToServer, serverToNode };
}

function linkServices(services: readonly ServiceView[], cloud: CloudLinkInput): Pick<Links, 'serviceToCloud' | 'cloudToService'> {
  const serviceToCloud: Record<string, ServiceLinks> = {};
  const cloudToService: Record<string, string> = {};
  for (const s of services) {
    const key = `${s.namespace}/${s.name}`;
    const owned = (xs: readonly { id: string; labels: Record<string, string> }[]): string[] => xs.filter((x) => x.labels[UID_LABEL] === s.uid).map((x) => x.id);
    const links: ServiceLinks = {
      loadBalancers: cloud.loadBalancers.filter((lb) => ownsLoadBalancer(s, lb)).map((lb) => lb.id),
      serverGroups: owned(cloud.serverGroups),
      firewallPolicies: owned(cloud.firewallPolicies),
      ipBlocks: cloud.ipBlocks.filter((b) => b.tags['service-uid'] === s.uid).map((b) => b.id),
    };
    serviceToCloud[key] = links;
    const ids: string[] = [...links.loadBalancers, ...links.serverGroups, ...links.firewallPolicies, ...links.ipBlocks];
    for (const id of ids) cloudToService[id] = key;
  }
  return { serviceToCloud, cloudToService };
}

function linkRoutes(nodes: readonly NodeView[], cloud: CloudLinkInput): Pick<Links, 'nodeToRoute' | 'routeToNode'> {
  const nodeToRoute: Record<string, string> = {};
  const routeToNode: Record<string, string> = {};
  const routes = cloud.networks.flatMap((n) => n.routes.map((r) => ({ id: `${n.id}/${r.id}`, destination: r.destination })));
  for (const n of nodes) {
    const route = n.podCIDR ? routes.find((r) => r.destination === n.podCIDR) : undefined;
    if (!route) continue;
    nodeToRoute[n.name] = route.id;
    routeToNode[route.id] = n.name;
  }
  return { nodeToRoute, routeToNode };
}

function personaIds(cloud: CloudLinkInput, persona: PersonaSpelling | undefined): Record<string, string> {
  if (!persona) return {};
  const ids = [...cloud.servers, ...cloud.loadBalancers, ...cloud.serverGroups, ...cloud.firewallPolicies, ...cloud.ipBlocks, ...cloud.networks].map(
    (r) => r.id,
  );
  return Object.fromEntries(
    ids.flatMap((id) => {
      const spelled = persona(id);
      return spelled === undefined ? [] : [[id, spelled]];
    }),
  );
}

export function computeLinks(
  cluster: { nodes: readonly NodeView[]; services: readonly ServiceView[] },
  cloud: CloudLinkInput,
  persona?: PersonaSpelling,
): Links {
  return {
    ...linkNodes(cluster.nodes, cloud),
    ...linkServices(cluster.services, cloud),
    ...linkRoutes(cluster.nodes, cloud),
    personaIds: personaIds(cloud, persona),
  };
}
