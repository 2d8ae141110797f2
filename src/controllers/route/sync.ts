/**
 * One reconciliation of the node-route-controller (upstream `reconcileNodeRoutes` + `reconcile` +
 * `updateNetworkingCondition`): list the cloud's routes, plan (route-plan.ts), delete and create with
 * at most 200 cloud operations in flight, then write NetworkUnavailable only where it changes.
 */
import type { V1Node, V1NodeCondition } from '@kubernetes/client-node';
import type { Routes } from '../../cloud/routes.ts';
import { errorMessage, wrapError } from '../../cloud/errors.ts';
import type { Clock } from '../../kube/clock.ts';
import { EventType, Reason, type EventRecorder } from '../../kube/events.ts';
import type { KubePort } from '../../kube/kube-port.ts';
import type { Logger } from '../../kube/logger.ts';
import { NodeWriteBackoff, retryOnConflict } from '../../kube/retry.ts';
import type { SharedInformer } from '../../kube/shared-informer.ts';
import { callerOf, ControllerName } from '../names.ts';
import type { ParsedCIDR } from './cidr.ts';
import { Semaphore } from '../../../lib/semaphore.ts';
import { allRoutesCreated, planRoutes, RouteAction, type RoutePlan, type RouteToCreate } from './route-plan.ts';

/** Upstream `maxConcurrentRouteOperations`. */
export const MaxConcurrentRouteOperations = 200;

export interface RouteSyncDeps {
  readonly nodes: SharedInformer<V1Node>;
  readonly kube: KubePort;
  readonly routes: Routes;
  readonly recorder: EventRecorder;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly clusterName: string;
  readonly clusterCIDRs: readonly ParsedCIDR[];
  readonly random?: () => number;
}

const caller = (what: string): string => callerOf(ControllerName.Route, what);

/** Upstream `reconcileNodeRoutes`: a list error aborts the run. */
export async function reconcileNodeRoutes(deps: RouteSyncDeps): Promise<void> {
  let routes;
  try {
    routes = await deps.routes.listRoutes(deps.clusterName, { caller: caller('list') });
  } catch (err) {
    throw wrapError('error listing routes', err);
  }
  const nodes = deps.nodes.list();
  const plan = planRoutes(nodes, routes, deps.clusterCIDRs);
  await applyPlan(deps, plan);
  await updateConditions(deps, nodes, plan);
}

async function applyPlan(deps: RouteSyncDeps, plan: RoutePlan): Promise<void> {
  const semaphore = new Semaphore(MaxConcurrentRouteOperations);
  const deletes = plan.toDelete.map((route) =>
    semaphore.run(async () => {
      const what = `${route.name} ${route.destinationCIDR}`;
      try {
        await deps.routes.deleteRoute(deps.clusterName, route, { caller: caller(route.targetNode || what) });
        deps.logger.info(`Deleted route ${what}`);
      } catch (err) {
        deps.logger.error({ err }, `Could not delete route ${what}: ${errorMessage(err)}`);
      }
    }),
  );
  if (plan.deleteBeforeCreate) await Promise.all(deletes);
  const creates = plan.toCreate.map((item) => semaphore.run(() => createRoute(deps, plan, item)));
  await Promise.all([...deletes, ...creates]);
}

async function createRoute(deps: RouteSyncDeps, plan: RoutePlan, item: RouteToCreate): Promise<void> {
  const started = deps.clock.now();
  const { nodeName, nameHint, route } = item;
  try {
    await deps.routes.createRoute(deps.clusterName, nameHint, route, { caller: caller(nodeName) });
    deps.logger.info({ node: nodeName }, `Created route for node ${nodeName} ${route.destinationCIDR} with hint ${nameHint}`);
    plan.actions.get(nodeName)?.set(route.destinationCIDR, RouteAction.Keep);
  } catch (err) {
    const message = `Could not create route ${nameHint} ${route.destinationCIDR} for node ${nodeName} after ${formatGoDuration(deps.clock.now() - started)}: ${errorMessage(err)}`;
    // Upstream quirk: the event's object UID is the node *name*.
    deps.recorder.event({ kind: 'Node', name: nodeName, uid: nodeName, namespace: '' }, EventType.Warning, Reason.FailedToCreateRoute, message);
    deps.logger.error({ node: nodeName, err }, message);
  }
}

async function updateConditions(deps: RouteSyncDeps, nodes: readonly V1Node[], plan: RoutePlan): Promise<void> {
  const byName = new Map(nodes.map((n) => [n.metadata?.name ?? '', n]));
  const writes: Array<Promise<void>> = [];
  for (const [name, actions] of plan.actions) writes.push(conditionFor(deps, byName.get(name), allRoutesCreated(actions)));
  for (const name of plan.nodesWithoutCIDRs) writes.push(conditionFor(deps, byName.get(name), false));
  await Promise.all(writes);
}

async function conditionFor(deps: RouteSyncDeps, node: V1Node | undefined, routesCreated: boolean): Promise<void> {
  if (!node) return;
  try {
    await updateNetworkingCondition(deps, node, routesCreated);
  } catch (err) {
    deps.logger.error({ node: node.metadata?.name, err }, `Error updating node ${node.metadata?.name ?? ''}: ${errorMessage(err)}`);
  }
}

/** The NetworkUnavailable condition upstream writes. */
export function networkingCondition(routesCreated: boolean, now: Date): V1NodeCondition {
  return routesCreated
    ? {
        type: 'NetworkUnavailable',
        status: 'False',
        reason: 'RouteCreated',
        message: 'RouteController created a route',
        lastTransitionTime: now,
        lastHeartbeatTime: now,
      }
    : {
        type: 'NetworkUnavailable',
        status: 'True',
        reason: 'NoRouteCreated',
        message: 'RouteController failed to create a route',
        lastTransitionTime: now,
        lastHeartbeatTime: now,
      };
}

/** Upstream `updateNetworkingCondition`: skipped when the cached condition already has the wanted status. */
export async function updateNetworkingCondition(deps: RouteSyncDeps, node: V1Node, routesCreated: boolean): Promise<void> {
  const current = node.status?.conditions?.find((c) => c.type === 'NetworkUnavailable');
  const wanted = routesCreated ? 'False' : 'True';
  if (current?.status === wanted) return;
  const name = node.metadata?.name ?? '';
  await retryOnConflict(NodeWriteBackoff, () => deps.kube.patchNodeCondition(name, networkingCondition(routesCreated, new Date(deps.clock.now()))), {
    clock: deps.clock,
    random: deps.random,
  });
}

/** Formats milliseconds like Go's `time.Duration.String()` for short durations (`0s`, `1.5ms`, `2.003s`, `1m4s`). */
export function formatGoDuration(ms: number): string {
  if (ms <= 0) return '0s';
  if (ms < 1) return `${trim(ms * 1000)}µs`;
  if (ms < 1000) return `${trim(ms)}ms`;
  const totalSeconds = ms / 1000;
  if (totalSeconds < 60) return `${trim(totalSeconds)}s`;
  const minutes = Math.floor(totalSeconds / 60);
  const seconds = totalSeconds - minutes * 60;
  if (minutes < 60) return `${minutes}m${trim(seconds)}s`;
  return `${Math.floor(minutes / 60)}h${minutes % 60}m${trim(seconds)}s`;
}

function trim(n: number): string {
  return String(Number(n.toFixed(9)));
}
