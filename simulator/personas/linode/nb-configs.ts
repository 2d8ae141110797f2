/**
 * Linode persona: a NodeBalancer's configs (list, create, get, update, delete, rebuild) and their nodes
 * (list, create, get, update, delete). Every change recomputes the LB's simcloud services and targets
 * (nb-model.ts), so the data plane carries it at once.
 */
import { z } from 'zod';
import type { LinodeLbAttrs, LinodeNode } from './attrs.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField, notFound } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import type { LoadBalancerRec } from '../../server/store/state.ts';
import { NumericPathId } from '../numeric-ids.ts';
import { ListQuery, PREFIX, owned, pageOf } from './common.ts';
import { loopbackNode, presentedOf } from './addresses.ts';
import { attrsOf, checkConfig, commitConfigs, configsOf, newConfig, newNode, tlsFor, type Config } from './nb-model.ts';
import { ConfigBody, ConfigUpdateBody, NodeBody, NodeUpdateBody, RebuildBody } from './nb-schemas.ts';
import { configView, nodeView, nodeViews } from './nb-view.ts';
import { Empty, NodeBalancerConfig, NodeBalancerNode, page } from './responses.ts';

const LbParams = z.object({ id: NumericPathId });
const ConfigParams = LbParams.extend({ cid: NumericPathId });
const NodeParams = ConfigParams.extend({ nid: NumericPathId });

/** What a config route works on: the LB, its configs, a copy of its attributes to advance ids on. */
interface Ctx {
  sim: Sim;
  caller: Caller;
  lb: LoadBalancerRec;
  configs: Config[];
  attrs: LinodeLbAttrs;
}

function ctx(sim: Sim, caller: Caller, n: number): Ctx {
  const lb = owned(sim, caller, 'nodebalancers', n);
  return { sim, caller, lb, configs: configsOf(sim, lb), attrs: structuredClone(attrsOf(lb)) };
}

function configOf(c: Ctx, cid: number): Config {
  const found = c.configs.find((x) => x.id === cid);
  if (found === undefined) throw notFound('config', String(cid));
  return found;
}

function nodeOf(config: Config, nid: number): LinodeNode {
  const found = config.nodes.find((n) => n.id === nid);
  if (found === undefined) throw notFound('node', String(nid));
  return found;
}

/** Replaces one config (or appends it) and commits; returns the stored LB and the config as stored. */
async function save(c: Ctx, next: Config): Promise<{ lb: LoadBalancerRec; config: Config }> {
  const configs = c.configs.some((x) => x.id === next.id) ? c.configs.map((x) => (x.id === next.id ? next : x)) : [...c.configs, next];
  const lb = await commitConfigs(c.sim, c.caller, c, configs);
  return { lb, config: configsOf(c.sim, lb).find((x) => x.id === next.id)! };
}

function updated(current: Config, body: z.infer<typeof ConfigUpdateBody>): Config {
  const { ssl_cert: _cert, ssl_key: _key, ...rest } = body;
  const defined = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as Partial<Config>;
  // A config turned to udp takes Linode's UDP defaults for what the body leaves out.
  const udpDefaults =
    body.protocol === 'udp' && current.protocol !== 'udp' ? { stickiness: 'session' as const, udp_check_port: current.udp_check_port ?? 80 } : {};
  const protocol = body.protocol ?? current.protocol;
  return checkConfig({ ...current, ...udpDefaults, ...defined, tls: tlsFor(protocol, body, current.tls) });
}

/** Rebuild: the config's settings as given; nodes with an id are updated, without one created, the rest removed. */
function rebuilt(c: Ctx, current: Config, body: z.infer<typeof RebuildBody>): Config {
  const { nodes, ...settings } = body;
  const next = updated(current, settings);
  next.nodes = nodes.map((n, i) => {
    const { id, ...fields } = n;
    if (id === undefined) return newNode(c.attrs.next_id++, loopbackNode(c.sim, fields), next.protocol);
    if (!current.nodes.some((x) => x.id === id)) throw invalidField(`nodes.${i}.id`, `node ${id} is not in config ${current.id}`);
    return newNode(id, loopbackNode(c.sim, fields), next.protocol);
  });
  return next;
}

const configRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${PREFIX}/nodebalancers/:id/configs`,
    operation: 'linode.nodebalancers.configs.list',
    summary: 'List configs',
    params: LbParams,
    query: ListQuery,
    queryHeaders: ['X-Filter'],
    response: page(NodeBalancerConfig),
    handle: (sim, { caller, params, query }) => {
      const c = ctx(sim, caller, params.id);
      return pageOf(
        c.configs.map((x) => configView(sim, c.lb, x)),
        query,
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/nodebalancers/:id/configs`,
    operation: 'linode.nodebalancers.configs.create',
    summary: 'Create a config',
    params: LbParams,
    body: ConfigBody,
    response: NodeBalancerConfig,
    handle: async (sim, { caller, params, body }) => {
      const c = ctx(sim, caller, params.id);
      const { lb, config } = await save(
        c,
        newConfig(
          c.attrs,
          body,
          (body.nodes ?? []).map((n) => loopbackNode(sim, n)),
        ),
      );
      return configView(sim, lb, config);
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/nodebalancers/:id/configs/:cid`,
    operation: 'linode.nodebalancers.configs.get',
    summary: 'Get a config',
    params: ConfigParams,
    response: NodeBalancerConfig,
    handle: (sim, { caller, params }) => {
      const c = ctx(sim, caller, params.id);
      return configView(sim, c.lb, configOf(c, params.cid));
    },
  }),
  defineRoute({
    method: 'put',
    path: `${PREFIX}/nodebalancers/:id/configs/:cid`,
    operation: 'linode.nodebalancers.configs.update',
    summary: 'Update a config',
    params: ConfigParams,
    body: ConfigUpdateBody,
    response: NodeBalancerConfig,
    handle: async (sim, { caller, params, body }) => {
      const c = ctx(sim, caller, params.id);
      const { lb, config } = await save(c, updated(configOf(c, params.cid), body));
      return configView(sim, lb, config);
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/nodebalancers/:id/configs/:cid/rebuild`,
    operation: 'linode.nodebalancers.configs.rebuild',
    summary: 'Rebuild a config with its nodes',
    params: ConfigParams,
    body: RebuildBody,
    response: NodeBalancerConfig,
    handle: async (sim, { caller, params, body }) => {
      const c = ctx(sim, caller, params.id);
      const { lb, config } = await save(c, rebuilt(c, configOf(c, params.cid), body));
      return configView(sim, lb, config);
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${PREFIX}/nodebalancers/:id/configs/:cid`,
    operation: 'linode.nodebalancers.configs.delete',
    summary: 'Delete a config',
    params: ConfigParams,
    response: Empty,
    handle: async (sim, { caller, params }) => {
      const c = ctx(sim, caller, params.id);
      configOf(c, params.cid);
      await commitConfigs(
        sim,
        caller,
        c,
        c.configs.filter((x) => x.id !== params.cid),
      );
      return {};
    },
  }),
];

const nodeRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${PREFIX}/nodebalancers/:id/configs/:cid/nodes`,
    operation: 'linode.nodebalancers.nodes.list',
    summary: 'List nodes',
    params: ConfigParams,
    query: ListQuery,
    queryHeaders: ['X-Filter'],
    response: page(NodeBalancerNode),
    handle: (sim, { caller, params, query }) => {
      const c = ctx(sim, caller, params.id);
      return pageOf(nodeViews(sim, c.lb, configOf(c, params.cid)), query);
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/nodebalancers/:id/configs/:cid/nodes`,
    operation: 'linode.nodebalancers.nodes.create',
    summary: 'Create a node',
    params: ConfigParams,
    body: NodeBody,
    response: NodeBalancerNode,
    handle: async (sim, { caller, params, body }) => {
      const c = ctx(sim, caller, params.id);
      const config = configOf(c, params.cid);
      const node = newNode(c.attrs.next_id++, loopbackNode(sim, body), config.protocol);
      const saved = await save(c, { ...config, nodes: [...config.nodes, node] });
      return nodeView(saved.lb, saved.config, { ...node, address: presentedOf(sim).hostPort(node.address, node.presented) }, 'unknown');
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/nodebalancers/:id/configs/:cid/nodes/:nid`,
    operation: 'linode.nodebalancers.nodes.get',
    summary: 'Get a node',
    params: NodeParams,
    response: NodeBalancerNode,
    handle: (sim, { caller, params }) => {
      const c = ctx(sim, caller, params.id);
      const config = configOf(c, params.cid);
      nodeOf(config, params.nid);
      return nodeViews(sim, c.lb, config).find((n) => n.id === params.nid);
    },
  }),
  defineRoute({
    method: 'put',
    path: `${PREFIX}/nodebalancers/:id/configs/:cid/nodes/:nid`,
    operation: 'linode.nodebalancers.nodes.update',
    summary: 'Update a node',
    params: NodeParams,
    body: NodeUpdateBody,
    response: NodeBalancerNode,
    handle: async (sim, { caller, params, body }) => {
      const c = ctx(sim, caller, params.id);
      const config = configOf(c, params.cid);
      const node = {
        ...nodeOf(config, params.nid),
        ...Object.fromEntries(Object.entries(loopbackNode(sim, body)).filter(([k, v]) => v !== undefined && k !== 'subnet_id')),
      };
      const saved = await save(c, { ...config, nodes: config.nodes.map((n) => (n.id === node.id ? node : n)) });
      return nodeViews(sim, saved.lb, saved.config).find((n) => n.id === node.id);
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${PREFIX}/nodebalancers/:id/configs/:cid/nodes/:nid`,
    operation: 'linode.nodebalancers.nodes.delete',
    summary: 'Delete a node',
    params: NodeParams,
    response: Empty,
    handle: async (sim, { caller, params }) => {
      const c = ctx(sim, caller, params.id);
      const config = configOf(c, params.cid);
      nodeOf(config, params.nid);
      await save(c, { ...config, nodes: config.nodes.filter((n) => n.id !== params.nid) });
      return {};
    },
  }),
];

export const nodeBalancerConfigRoutes: RouteDef[] = [...configRoutes, ...nodeRoutes];
