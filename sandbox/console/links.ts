// The links between the two worlds, computed from the two snapshots: Node ↔ server (providerID, else the
// server with the Node's name), Service ↔ load balancer / server group / firewall policy / IP block (the
// owner labels and tags carrying the Service UID), and podCIDR ↔ route (the route whose destination is the
// Node's podCIDR). Pure, so the UI gets the same answer the tests check.
import type { NodeView, ServiceView } from './cluster.ts';

export interface CloudLinkInput {
  readonly servers: readonly { id: string; name: string }[];
  readonly loadBalancers: readonly { id: string; labels: Record<string, string> }[];
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
}

const UID_LABEL = 'simcloud.dev/service-uid';

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
      loadBalancers: owned(cloud.loadBalancers),
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

export function computeLinks(cluster: { nodes: readonly NodeView[]; services: readonly ServiceView[] }, cloud: CloudLinkInput): Links {
  return { ...linkNodes(cluster.nodes, cloud), ...linkServices(cluster.services, cloud), ...linkRoutes(cluster.nodes, cloud) };
}
