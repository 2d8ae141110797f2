// Every answer simcloud gives the client takes the compiled fast path of its schema (lib/zod-guard.ts): the
// server writes each resource with the schema's keys in the schema's order and nothing else. An answer that
// missed it would still parse (zod decides then), only at several times the CPU, which is what this guards.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { z } from 'zod';
import { guardOf } from '../../../lib/zod-guard.ts';
import { startSimcloudInProcess, type InProcessSimcloud } from '../../../test/helpers/simcloud.ts';
import { ActionResponse } from '../schema/actions.ts';
import { ImageListResponse, RegionListResponse, ServerTypeListResponse, ZoneListResponse } from '../schema/catalogue.ts';
import { FirewallPolicyListResponse, FirewallPolicyResponse } from '../schema/firewall-policies.ts';
import { IpBlockListResponse, IpBlockResponse } from '../schema/ip-blocks.ts';
import { LoadBalancerCreateResponse, LoadBalancerListResponse, LoadBalancerResponse, LoadBalancerSummaryListResponse } from '../schema/load-balancers.ts';
import { NetworkListResponse, NetworkResponse, RouteCreateResponse, RouteListResponse } from '../schema/networks.ts';
import { ServerGroupListResponse, ServerGroupResponse } from '../schema/server-groups.ts';
import { ServerCreateResponse, ServerListResponse, ServerResponse } from '../schema/servers.ts';
import type { Middleware } from './transport.ts';

/** The schema of each operation's answer, as the resource clients name them. */
const ANSWERS: Record<string, z.ZodType> = {
  'actions.get': ActionResponse,
  'catalogue.regions': RegionListResponse,
  'catalogue.zones': ZoneListResponse,
  'catalogue.serverTypes': ServerTypeListResponse,
  'catalogue.images': ImageListResponse,
  'servers.create': ServerCreateResponse,
  'servers.get': ServerResponse,
  'servers.list': ServerListResponse,
  'servers.attachToNetwork': ActionResponse,
  'networks.create': NetworkResponse,
  'networks.get': NetworkResponse,
  'networks.list': NetworkListResponse,
  'networks.createRoute': RouteCreateResponse,
  'networks.listRoutes': RouteListResponse,
  'serverGroups.create': ServerGroupResponse,
  'serverGroups.list': ServerGroupListResponse,
  'firewallPolicies.create': FirewallPolicyResponse,
  'firewallPolicies.list': FirewallPolicyListResponse,
  'ipBlocks.allocate': IpBlockResponse,
  'ipBlocks.list': IpBlockListResponse,
  'loadBalancers.create': LoadBalancerCreateResponse,
  'loadBalancers.get': LoadBalancerResponse,
  'loadBalancers.list': LoadBalancerListResponse,
  'loadBalancers.listSummaries': LoadBalancerSummaryListResponse,
};

let sc: InProcessSimcloud;
const answers: { operation: string; body: unknown }[] = [];

beforeAll(async () => {
  sc = await startSimcloudInProcess();
});
afterAll(async () => {
  await sc?.stop();
});

it('every answer the client reads passes its schema’s compiled predicate, so none is copied by zod', async () => {
  const recording: Middleware = (next) => async (req) => {
    const res = await next(req);
    answers.push({ operation: req.operation, body: res.body });
    return res;
  };
  const c = sc.clientFor(sc.token, { middlewares: [recording] });
  const [region] = await c.catalogue.regions();
  await Promise.all([c.catalogue.zones(), c.catalogue.serverTypes(), c.catalogue.images()]);
  const network = await c.networks.create({ name: 'fast-net', labels: { tier: 'x' } });
  const servers = [];
  for (const name of ['fast-1', 'fast-2']) {
    const { server, action } = await c.servers.create({ name, server_type: 'sc-small', image: 'ubuntu-24.04', zone: 'sim-1a', labels: { role: 'node' } });
    await c.waitForAction(action.id);
    await c.waitForAction(await c.servers.attachToNetwork(server.id, { network_id: network.id }));
    servers.push(await c.servers.get(server.id));
  }
  const gateway = servers[0]!.private_networks[0]!.ip;
  const { action: routed } = await c.networks.createRoute(network.id, { destination: '10.244.0.0/24', gateway });
  await c.waitForAction(routed);
  const group = await c.serverGroups.create({ name: 'fast-group', servers: servers.map((s) => s.id), labels: { a: 'b' } });
  await c.firewallPolicies.create({
    name: 'fast-policy',
    server_group_id: group.id,
    rules: [{ direction: 'inbound', protocol: 'tcp', ports: '30080', source_cidrs: ['0.0.0.0/0'] }],
  });
  const block = await c.ipBlocks.allocate({ location: region!.id, tags: { purpose: 'fast' } });
  const targets = [
    { kind: 'server_group', server_group_id: group.id },
    { kind: 'server', server_id: servers[1]!.id },
    { kind: 'label_selector', label_selector: 'role=node' },
    { kind: 'ip', ip: '127.0.0.1' },
  ] as const;
  const services = [
    {
      protocol: 'tcp',
      listen_port: 80,
      destination_port: 30080,
      proxy_protocol: 'none',
      health_check: { protocol: 'tcp', port: null, path: '/', interval_seconds: 5, timeout_seconds: 3, retries: 3 },
    },
  ] as const;
  const { load_balancer: lb, action } = await c.loadBalancers.create({
    name: 'fast-lb',
    labels: { a: 'b' },
    services: [...services],
    targets: [...targets],
    network_id: network.id,
    source_ranges: ['10.0.0.0/8'],
  });
  await c.waitForAction(action);
  await c.loadBalancers.create({ name: 'fast-lb-block', ip_block_id: block.id, targets: [targets[0]] });
  await Promise.all([
    c.servers.listAll(),
    c.networks.list({}),
    c.networks.listRoutes(network.id),
    c.networks.get(network.id),
    c.serverGroups.list({}),
    c.firewallPolicies.list({}),
    c.ipBlocks.list({}),
    c.loadBalancers.list({}),
    c.loadBalancers.listSummaries({}),
    c.loadBalancers.get(lb.id),
  ]);

  const missed = answers.filter((a) => {
    const schema = ANSWERS[a.operation];
    if (!schema) throw new Error(`no schema named for ${a.operation}: add it to ANSWERS`);
    return guardOf(schema)?.(a.body) !== true;
  });
  expect(missed.map((a) => `${a.operation}: ${JSON.stringify(a.body).slice(0, 300)}`)).toEqual([]);
  expect(new Set(answers.map((a) => a.operation)).size).toBe(Object.keys(ANSWERS).length);
});
