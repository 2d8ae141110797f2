/**
 * The LoadBalancer capability on simcloud, in two strategies chosen by the cloud config:
 * - `lb` (Brightbox): one load balancer + one server group (its target) + one firewall policy (one rule per
 *   node port, sources = `loadBalancerSourceRanges`) per Service;
 * - `ip-block` (phoenixNAP): one /29 IP block per Service, tagged; the LB's VIP is the block's third address.
 * Every Ensure reads like a recipe: validate (annotations, ports, ranges: no cloud call on error) → resolve
 * targets → reconcile each resource (find by owner labels, else create) → status. Everything is labelled with
 * the cluster name and Service UID, so a restart finds it again, and deletion removes it all (unless preserve).
 */
import type { V1LoadBalancerStatus, V1Node, V1Service } from '@kubernetes/client-node';
import type { SimcloudClient } from '../../simulator/api/client/index.ts';
import type { LoadBalancer, LoadBalancerLookup } from '../cloud/load-balancer.ts';
import { CloudMethod, inMethod, type CallContext } from '../cloud/provider.ts';
import {
  loadBalancerAnnotations,
  loadBalancerConfigOf,
  parseLoadBalancerAnnotations,
  InvalidAnnotationError,
  type LoadBalancerAnnotationConfig,
} from './annotations.ts';
import { callOptions } from './client.ts';
import { blockVip, ensureIpBlock, findIpBlock, releaseIpBlock } from './ops/ip-block.ts';
import {
  createLoadBalancer,
  deleteLoadBalancer,
  findLoadBalancer,
  ingressStatus,
  loadBalancerSpec,
  reconcileLoadBalancer,
  type LoadBalancerSpec,
  type LoadBalancerView,
  type OpsContext,
} from './ops/load-balancer.ts';
import { resourceName, serviceKey } from './ops/naming.ts';
import { OwnedListing } from './ops/owned-listing.ts';
import { planLoadBalancer, type LoadBalancerPlan } from './ops/plan.ts';
import {
  deleteGroupAndPolicy,
  ensureFirewallPolicy,
  ensureServerGroup,
  findFirewallPolicy,
  findServerGroup,
  firewallRules,
  reconcileServerGroupMembers,
} from './ops/server-group.ts';
import { nodesRegion, serverIdsForNodes } from './ops/targets.ts';
import type { ServerCache } from './server-cache.ts';
import type { Clock } from '../kube/clock.ts';

export const LoadBalancerStrategy = { lb: 'lb', ipBlock: 'ip-block' } as const;
export type LoadBalancerStrategy = (typeof LoadBalancerStrategy)[keyof typeof LoadBalancerStrategy];

export interface SimcloudLoadBalancersOptions {
  readonly client: SimcloudClient;
  readonly strategy: LoadBalancerStrategy;
  /** Server list cache: nodes without a providerID are matched by name from it, not by listing every server. */
  readonly servers?: ServerCache;
  /** Ages of the shared listing of owned resources (default the wall clock). */
  readonly clock?: Clock;
}

/** Annotations for read-only paths (status, lookup): invalid values fall back to defaults. */
function lenientConfig(service: V1Service): LoadBalancerAnnotationConfig | undefined {
  const parsed = parseLoadBalancerAnnotations(service.metadata?.annotations);
  return parsed.ok ? parsed.config : undefined;
}

/** Only the `preserve` annotation, strictly: deleting must not guess. */
function preserveOf(service: V1Service): boolean {
  const def = loadBalancerAnnotations.preserve;
  const raw = service.metadata?.annotations?.[def.key];
  if (raw === undefined) return def.defaultValue;
  const parsed = def.parse(raw);
  if (parsed.ok) return parsed.value;
  throw new InvalidAnnotationError([{ annotation: def.key, value: raw, allowed: def.allowed, message: `annotation ${def.key}="${raw}" ${parsed.message}` }]);
}

export class SimcloudLoadBalancers implements LoadBalancer {
  readonly #client: SimcloudClient;
  readonly #strategy: LoadBalancerStrategy;
  readonly #cache: ServerCache | undefined;
  /** Service UID -> IP block id allocated or found by this process (lists may lag behind a new block). */
  readonly #blocks = new Map<string, string>();
  readonly #owned: OwnedListing;

  constructor(options: SimcloudLoadBalancersOptions) {
    this.#client = options.client;
    this.#strategy = options.strategy;
    this.#cache = options.servers;
    this.#owned = new OwnedListing({
      client: options.client,
      withGroups: options.strategy === LoadBalancerStrategy.lb,
      ...(options.clock ? { clock: options.clock } : {}),
    });
  }

  getLoadBalancerName(clusterName: string, service: V1Service): string {
    return resourceName(clusterName, service);
  }

  async getLoadBalancer(clusterName: string, service: V1Service, ctx?: CallContext): Promise<LoadBalancerLookup> {
    const ops = this.#ops(clusterName, inMethod(ctx, CloudMethod.getLoadBalancer), service);
    const config = lenientConfig(service);
    const lb = await findLoadBalancer(ops, service, config?.loadBalancerId);
    if (lb) return { exists: true, status: ingressStatus(lb, config ?? loadBalancerConfigOf(undefined)) };
    return { exists: await this.#anyOtherResource(ops, service), status: undefined };
  }

  async ensureLoadBalancer(clusterName: string, service: V1Service, nodes: readonly V1Node[], ctx?: CallContext): Promise<V1LoadBalancerStatus> {
    const config = loadBalancerConfigOf(service.metadata?.annotations);
    const plan = planLoadBalancer(service, config);
    const ops = this.#ops(clusterName, inMethod(ctx, CloudMethod.ensureLoadBalancer), service, true);
    const serverIds = await this.#serverIds(nodes, ops.ctx);
    const lb =
      this.#strategy === LoadBalancerStrategy.lb
        ? await this.#ensureWithGroup(ops, service, { plan, config, serverIds })
        : await this.#ensureWithIpBlock(ops, service, { plan, config, serverIds, nodes });
    return ingressStatus(lb, config);
  }

  async updateLoadBalancer(clusterName: string, service: V1Service, nodes: readonly V1Node[], ctx?: CallContext): Promise<void> {
    const ops = this.#ops(clusterName, inMethod(ctx, CloudMethod.updateLoadBalancer), service, true);
    const serverIds = await this.#serverIds(nodes, ops.ctx);
    if (this.#strategy === LoadBalancerStrategy.lb) {
      const group = await findServerGroup(ops, service);
      if (!group) throw new Error(`simcloud/LoadBalancers.updateLoadBalancer: no server group for service ${serviceKey(service)} yet`);
      await reconcileServerGroupMembers(ops, group, serverIds);
      return;
    }
    const lb = await findLoadBalancer(ops, service, lenientConfig(service)?.loadBalancerId);
    if (!lb) throw new Error(`simcloud/LoadBalancers.updateLoadBalancer: no load balancer for service ${serviceKey(service)} yet`);
    await reconcileLoadBalancer(ops, service, lb, { ...currentSpec(lb), targets: serverTargets(serverIds) });
  }

  async ensureLoadBalancerDeleted(clusterName: string, service: V1Service, ctx?: CallContext): Promise<void> {
    if (preserveOf(service)) return;
    const ops = this.#ops(clusterName, inMethod(ctx, CloudMethod.ensureLoadBalancerDeleted), service);
    const lb = await findLoadBalancer(ops, service, lenientConfig(service)?.loadBalancerId);
    if (lb) await deleteLoadBalancer(ops, lb);
    if (this.#strategy === LoadBalancerStrategy.lb) {
      await deleteGroupAndPolicy(ops, service);
      return;
    }
    const uid = service.metadata?.uid ?? '';
    const block = await findIpBlock(ops, service, this.#blocks.get(uid));
    if (block) await releaseIpBlock(ops, block);
    this.#blocks.delete(uid);
  }

  /**
   * Writes to `service`'s resources are always marked in the shared listing. With `reads`, a Service that
   * already shows an ingress (it has resources to find) looks them up there first; a new Service has nothing
   * to find there, and deletes and status reads ask the API.
   */
  #ops(clusterName: string, ctx: CallContext | undefined, service: V1Service, reads = false): OpsContext {
    const uid = service.metadata?.uid;
    if (uid === undefined) return { client: this.#client, clusterName, ctx };
    const established = (service.status?.loadBalancer?.ingress?.length ?? 0) > 0;
    return { client: this.#client, clusterName, ctx, owned: this.#owned.forService(clusterName, uid, ctx, reads && established) };
  }

  async #serverIds(nodes: readonly V1Node[], ctx: CallContext | undefined): Promise<string[]> {
    const cache = this.#cache;
    if (!cache) return serverIdsForNodes(nodes, () => this.#client.servers.listAll({}, callOptions(ctx)));
    // From the cache while it knows every unresolved node's server (a node joining refreshes it once).
    const complete = (servers: readonly { name: string }[]): boolean => {
      const names = new Set(servers.map((s) => s.name));
      return nodes.every((n) => (n.spec?.providerID ?? '') !== '' || names.has(n.metadata?.name ?? ''));
    };
    return serverIdsForNodes(nodes, () => cache.list(ctx, { complete }));
  }

  async #anyOtherResource(ops: OpsContext, service: V1Service): Promise<boolean> {
    if (this.#strategy === LoadBalancerStrategy.ipBlock) return (await findIpBlock(ops, service, this.#blocks.get(service.metadata?.uid ?? ''))) !== undefined;
    if (await findServerGroup(ops, service)) return true;
    return (await findFirewallPolicy(ops, service)) !== undefined;
  }

  async #ensureWithGroup(
    ops: OpsContext,
    service: V1Service,
    want: { plan: LoadBalancerPlan; config: LoadBalancerAnnotationConfig; serverIds: string[] },
  ): Promise<LoadBalancerView> {
    const group = (await ensureServerGroup(ops, service, want.serverIds)).resource;
    await ensureFirewallPolicy(ops, service, group, firewallRules(service, want.plan.firewallRules));
    const spec = loadBalancerSpec(want.plan, [{ kind: 'server_group', server_group_id: group.id }], false);
    const existing = await findLoadBalancer(ops, service, want.config.loadBalancerId);
    if (existing) return this.#reconcileExisting(ops, service, existing, { spec, vip: want.plan.requestedIp });
    const ipBlockId = want.plan.requestedIp === undefined ? undefined : (await this.#blockForIp(ops, service, want.plan.requestedIp)).id;
    return createLoadBalancer(ops, service, spec, ipBlockId === undefined ? {} : { ipBlockId });
  }

  async #ensureWithIpBlock(
    ops: OpsContext,
    service: V1Service,
    want: { plan: LoadBalancerPlan; config: LoadBalancerAnnotationConfig; serverIds: string[]; nodes: readonly V1Node[] },
  ): Promise<LoadBalancerView> {
    const location = async (): Promise<string> => nodesRegion(want.nodes) ?? (await this.#client.catalogue.regions(callOptions(ops.ctx)))[0]?.id ?? '';
    const uid = service.metadata?.uid ?? '';
    const block = (
      await ensureIpBlock(ops, service, { adoptId: want.config.loadBalancerId, requestedIp: want.plan.requestedIp, location, knownId: this.#blocks.get(uid) })
    ).resource;
    this.#blocks.set(uid, block.id);
    const spec = loadBalancerSpec(want.plan, serverTargets(want.serverIds));
    const existing = await findLoadBalancer(ops, service, undefined);
    if (existing) return this.#reconcileExisting(ops, service, existing, { spec, vip: blockVip(block) });
    return createLoadBalancer(ops, service, spec, { ipBlockId: block.id, location: block.location });
  }

  async #reconcileExisting(
    ops: OpsContext,
    service: V1Service,
    lb: LoadBalancerView,
    want: { spec: LoadBalancerSpec; vip: string | undefined },
  ): Promise<LoadBalancerView> {
    const wantedVip = want.vip;
    if (wantedVip !== undefined && lb.public_ipv4 !== wantedVip) {
      throw new Error(
        `load balancer ${lb.id} of ${serviceKey(service)} has VIP ${lb.public_ipv4}, not ${wantedVip}; a VIP cannot change in place: delete and recreate the Service`,
      );
    }
    return (await reconcileLoadBalancer(ops, service, lb, want.spec)).resource;
  }

  async #blockForIp(ops: OpsContext, service: V1Service, ip: string): Promise<{ id: string }> {
    const blocks = await this.#client.ipBlocks.listAll({}, callOptions(ops.ctx));
    const block = blocks.find((b) => blockVip(b) === ip && b.assigned_to === null);
    if (!block) throw new Error(`spec.loadBalancerIP ${ip} of ${serviceKey(service)}: no unassigned IP block has it as its VIP (third address)`);
    return block;
  }
}

function serverTargets(serverIds: readonly string[]): LoadBalancerSpec['targets'] {
  return serverIds.map((id) => ({ kind: 'server', server_id: id }));
}

function currentSpec(lb: LoadBalancerView): LoadBalancerSpec {
  return { algorithm: lb.algorithm, session_affinity: lb.session_affinity, services: lb.services, targets: lb.targets, source_ranges: lb.source_ranges };
}
