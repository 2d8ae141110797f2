/**
 * Pure route planning of the node-route-controller (upstream `route_controller.go` `reconcile`):
 * given the cached nodes and the cloud's routes, which routes to delete, which to create, and which
 * nodes get a NetworkUnavailable condition. Only the caller does I/O.
 */
import type { V1Node, V1NodeAddress } from '@kubernetes/client-node';
import type { Route } from '../../cloud/routes.ts';
import { isResponsibleForCIDR, type ParsedCIDR } from './cidr.ts';

export const RouteAction = { Keep: 'keep', Add: 'add', Update: 'update' } as const;
export type RouteAction = (typeof RouteAction)[keyof typeof RouteAction];

/** A route to create for a node's pod CIDR (action add or update). */
export interface RouteToCreate {
  readonly nodeName: string;
  /** The nameHint: the node UID (not its name). */
  readonly nameHint: string;
  readonly route: Route;
  readonly action: RouteAction;
}

export interface RoutePlan {
  /** Per node with podCIDRs: podCIDR → action. */
  readonly actions: Map<string, Map<string, RouteAction>>;
  readonly toDelete: Route[];
  readonly toCreate: RouteToCreate[];
  /** Upstream waits for deletes before creates when the first listed route has EnableNodeAddresses. */
  readonly deleteBeforeCreate: boolean;
  /** Nodes without podCIDRs that still had routes: NetworkUnavailable=True. */
  readonly nodesWithoutCIDRs: string[];
}

/** Upstream `equalNodeAddrs`: same length and every address of `a` appears in `b`. */
export function equalNodeAddrs(a: readonly V1NodeAddress[], b: readonly V1NodeAddress[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((x) => b.some((y) => x.type === y.type && x.address === y.address));
}

function indexRoutes(routes: readonly Route[]): Map<string, Route[]> {
  const byNode = new Map<string, Route[]>();
  for (const route of routes) {
    if (route.targetNode === '') continue;
    byNode.set(route.targetNode, [...(byNode.get(route.targetNode) ?? []), route]);
  }
  return byNode;
}

function actionFor(node: V1Node, podCIDR: string, nodeRoutes: readonly Route[]): RouteAction {
  const existing = nodeRoutes.find((r) => r.destinationCIDR === podCIDR);
  if (!existing) return RouteAction.Add;
  if (!existing.enableNodeAddresses || equalNodeAddrs(node.status?.addresses ?? [], existing.targetNodeAddresses)) return RouteAction.Keep;
  return RouteAction.Update;
}

function shouldDelete(route: Route, actions: Map<string, Map<string, RouteAction>>, clusterCIDRs: readonly ParsedCIDR[]): boolean {
  if (!isResponsibleForCIDR(route.destinationCIDR, clusterCIDRs)) return false;
  if (route.blackhole) return true;
  const action = actions.get(route.targetNode)?.get(route.destinationCIDR);
  return action === undefined || action === RouteAction.Update;
}

function creations(nodes: readonly V1Node[], actions: Map<string, Map<string, RouteAction>>): RouteToCreate[] {
  return nodes.flatMap((node) => {
    const name = node.metadata?.name ?? '';
    return [...(actions.get(name) ?? [])]
      .filter(([, action]) => action !== RouteAction.Keep)
      .map(([cidr, action]) => ({ nodeName: name, nameHint: node.metadata?.uid ?? '', route: routeFor(node, cidr), action }));
  });
}

function routeFor(node: V1Node, cidr: string): Route {
  return {
    name: '',
    targetNode: node.metadata?.name ?? '',
    targetNodeAddresses: node.status?.addresses ?? [],
    destinationCIDR: cidr,
    blackhole: false,
    enableNodeAddresses: false,
  };
}

/** Plans one reconciliation. */
export function planRoutes(nodes: readonly V1Node[], routes: readonly Route[], clusterCIDRs: readonly ParsedCIDR[]): RoutePlan {
  const byNode = indexRoutes(routes);
  const actions = new Map<string, Map<string, RouteAction>>();
  for (const node of nodes) {
    const podCIDRs = node.spec?.podCIDRs ?? [];
    if (podCIDRs.length === 0) continue;
    const name = node.metadata?.name ?? '';
    const nodeRoutes = byNode.get(name) ?? [];
    actions.set(name, new Map(podCIDRs.map((cidr) => [cidr, actionFor(node, cidr, nodeRoutes)] as const)));
  }
  const nodesWithoutCIDRs = nodes.map((n) => n.metadata?.name ?? '').filter((name) => !actions.has(name) && byNode.has(name));
  return {
    actions,
    toDelete: routes.filter((r) => shouldDelete(r, actions, clusterCIDRs)),
    toCreate: creations(nodes, actions),
    deleteBeforeCreate: routes[0]?.enableNodeAddresses === true,
    nodesWithoutCIDRs,
  };
}

/** After creations: true when no add/update action is left for the node. */
export function allRoutesCreated(nodeActions: ReadonlyMap<string, RouteAction>): boolean {
  return [...nodeActions.values()].every((a) => a === RouteAction.Keep);
}
