// The simcloud provider's InstancesV2 and Routes against an in-process simcloud: what they answer about real
// servers as they are powered off and deleted, and which routes exist in the network after CreateRoute and
// DeleteRoute (end state, never call order).
import type { V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Network, Server } from '../../simulator/api/schema/index.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { startSimcloudInProcess, type InProcessSimcloud } from '../../test/helpers/simcloud.ts';
import { InstanceNotFoundError } from '../cloud/errors.ts';
import type { InstancesV2 } from '../cloud/instances.ts';
import type { Route, Routes } from '../cloud/routes.ts';
import { HurriedClock } from '../kube/clock.ts';
import { toProviderId } from './provider-id.ts';
import { SimcloudProvider } from './provider.ts';

let sc: InProcessSimcloud;
let network: Network;
let instances: InstancesV2;
let routes: Routes;

function provider(net: string, onCall?: (operation: string) => void, clock = new HurriedClock()): SimcloudProvider {
  return new SimcloudProvider({
    endpoint: sc.url,
    token: sc.token,
    requestTimeoutMs: 5000,
    loadBalancersEnabled: false,
    loadBalancerStrategy: 'lb',
    routesEnabled: true,
    network: net,
    clock,
    ...(onCall ? { onCall } : {}),
  });
}

async function server(name: string, networks: string[] = []): Promise<Server> {
  const { server: made, action } = await sc.client.servers.create({ name, server_type: 'sc-small', image: 'ubuntu-24.04', zone: 'sim-1a', networks });
  await sc.client.waitForAction(action.id);
  return sc.client.servers.get(made.id);
}

const nodeOf = (s: Server, withProviderId = true): V1Node => ({ metadata: { name: s.name }, spec: withProviderId ? { providerID: toProviderId(s.id) } : {} });

beforeAll(async () => {
  sc = await startSimcloudInProcess();
  network = await sc.client.networks.create({ name: 'pods', ip_range: '10.0.0.0/16' });
  const p = provider(network.name);
  instances = p.instances();
  routes = p.routes()!;
});
afterAll(async () => {
  await sc?.stop();
});

describe('SimcloudProvider InstancesV2', () => {
  it('describes a running server: type, zone, region, providerID and addresses, found by providerID or by name', async () => {
    const s = await server('inst-meta', [network.id]);
    for (const node of [nodeOf(s), nodeOf(s, false)]) {
      expect(await instances.instanceExists(node)).toBe(true);
      expect(await instances.instanceShutdown(node)).toBe(false);
      expect(await instances.instanceMetadata(node)).toEqual({
        providerID: toProviderId(s.id),
        instanceType: s.server_type,
        zone: s.zone,
        region: s.region,
        additionalLabels: {},
        nodeAddresses: [
          { type: 'InternalIP', address: s.private_ipv4 },
          { type: 'ExternalIP', address: s.public_ipv4 },
          { type: 'Hostname', address: s.name },
        ],
      });
    }
  });

  it('says a powered-off server is shut down, and a deleted one does not exist', async () => {
    const s = await server('inst-life');
    const node = nodeOf(s);
    await sc.client.waitForAction((await sc.client.servers.poweroff(s.id)).id);
    await waitFor(() => instances.instanceShutdown(node), { timeoutMs: 10_000, description: 'shutdown seen' });
    expect(await instances.instanceExists(node)).toBe(true);
    await sc.client.waitForAction((await sc.client.servers.delete(s.id)).id);
    await waitFor(async () => !(await instances.instanceExists(node)), { timeoutMs: 10_000, description: 'deletion seen' });
    await expect(instances.instanceMetadata(node)).rejects.toBeInstanceOf(InstanceNotFoundError);
  });
});

describe('SimcloudProvider Routes', () => {
  const route = (s: Server, cidr: string): Route => ({
    name: '',
    targetNode: s.name,
    targetNodeAddresses: [],
    destinationCIDR: cidr,
    blackhole: false,
    enableNodeAddresses: false,
  });

  it("creates a route to the node's private IP under its name hint, lists it for the node, and deletes it", async () => {
    const s = await server('route-node', [network.id]);
    const hint = '5b0c2f7e-1d7a-4b61-8d9e-0e6f3a9c2b11';
    await routes.createRoute('c', hint, route(s, '10.244.7.0/24'));
    await routes.createRoute('c', hint, route(s, '10.244.7.0/24'));
    const inCloud = (await sc.client.networks.get(network.id)).routes.filter((r) => r.destination === '10.244.7.0/24');
    expect(inCloud.map((r) => ({ name: r.name, gateway: r.gateway }))).toEqual([{ name: hint, gateway: s.private_ipv4 }]);
    const listed = (await routes.listRoutes('c')).find((r) => r.destinationCIDR === '10.244.7.0/24');
    expect(listed).toMatchObject({ name: hint, targetNode: s.name, blackhole: false });
    await routes.deleteRoute('c', listed!);
    expect((await sc.client.networks.get(network.id)).routes.some((r) => r.destination === '10.244.7.0/24')).toBe(false);
  });

  it('reports a route whose gateway belongs to no server as a blackhole', async () => {
    const { action } = await sc.client.networks.createRoute(network.id, { destination: '10.244.99.0/24', gateway: '10.0.255.254' });
    await sc.client.waitForAction(action.id);
    expect((await routes.listRoutes('c')).find((r) => r.destinationCIDR === '10.244.99.0/24')).toMatchObject({ targetNode: '', blackhole: true });
  });

  it("lists a deleted server's route as a blackhole by the next pass, as a provider listing servers every pass does", async () => {
    const clock = new HurriedClock();
    const own = provider(network.name, undefined, clock).routes()!;
    const s = await server('route-gone', [network.id]);
    await own.createRoute('c', 'route-gone', route(s, '10.244.10.0/24'));
    const find = async (): Promise<Route | undefined> => (await own.listRoutes('c')).find((r) => r.destinationCIDR === '10.244.10.0/24');
    expect(await find()).toMatchObject({ targetNode: s.name, blackhole: false });
    await sc.client.waitForAction((await sc.client.servers.delete(s.id)).id);
    clock.setTimeout(() => undefined, 10_001); // one route period (10 s) later
    expect(await find()).toMatchObject({ targetNode: '', blackhole: true });
  });

  it('moves a route to another node by replacing its gateway', async () => {
    const [a, b] = [await server('route-a', [network.id]), await server('route-b', [network.id])];
    await routes.createRoute('c', 'move-a', route(a, '10.244.8.0/24'));
    await routes.createRoute('c', 'move-b', route(b, '10.244.8.0/24'));
    const inCloud = (await sc.client.networks.get(network.id)).routes.filter((r) => r.destination === '10.244.8.0/24');
    expect(inCloud.map((r) => r.gateway)).toEqual([b.private_ipv4]);
  });

  it("creates and deletes from the pass's listing without reading the network again; a stale listing is decided again on a fresh read", async () => {
    const calls: string[] = [];
    const own = provider(network.name, (operation) => calls.push(operation)).routes()!;
    const [a, b] = [await server('reuse-a', [network.id]), await server('reuse-b', [network.id])];
    await own.listRoutes('c');
    calls.length = 0;
    await own.createRoute('c', 'reuse-a', route(a, '10.244.9.0/24'));
    expect(calls.filter((op) => op.startsWith('networks.'))).toEqual(['networks.createRoute']);
    // The listing has no route to 10.244.9.0/24 yet: the POST conflicts, and the fresh read moves it to b.
    await own.createRoute('c', 'reuse-b', route(b, '10.244.9.0/24'));
    const inCloud = (await sc.client.networks.get(network.id)).routes.filter((r) => r.destination === '10.244.9.0/24');
    expect(inCloud.map((r) => r.gateway)).toEqual([b.private_ipv4]);
    await own.deleteRoute('c', { ...route(b, '10.244.9.0/24'), name: 'reuse-b' });
    expect((await sc.client.networks.get(network.id)).routes.some((r) => r.destination === '10.244.9.0/24')).toBe(false);
  });

  it('shares one network read among concurrent creates once the listing is older than a route period', async () => {
    const calls: string[] = [];
    const clock = new HurriedClock();
    const own = provider(network.name, (operation) => calls.push(operation), clock).routes()!;
    const nodes = await Promise.all(['share-a', 'share-b', 'share-c', 'share-d'].map((n) => server(n, [network.id])));
    await own.listRoutes('c');
    clock.setTimeout(() => undefined, 10_001); // the pass outlived its listing
    calls.length = 0;
    await Promise.all(nodes.map((n, i) => own.createRoute('c', `share-${i}`, route(n, `10.244.${20 + i}.0/24`))));
    const ops = calls.filter((op) => op.startsWith('networks.'));
    expect(ops.filter((op) => op === 'networks.get')).toHaveLength(1);
    expect(ops.filter((op) => op === 'networks.createRoute')).toHaveLength(4);
    const inCloud = (await sc.client.networks.get(network.id)).routes;
    for (const [i, n] of nodes.entries()) expect(inCloud.find((r) => r.destination === `10.244.${20 + i}.0/24`)?.gateway).toBe(n.private_ipv4);
  });
});
