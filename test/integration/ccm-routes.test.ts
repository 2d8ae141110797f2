// node-route-controller with the simcloud provider: routes for node podCIDRs in the configured network.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CcmHarness, eventually, uniqueName } from './ccm-harness.ts';

describe('simcloud CCM: routes', () => {
  const network = uniqueName('net').slice(0, 50);
  const h = new CcmHarness({ prefix: 'ccm-routes', args: ['--controllers=cloud-node,route'], env: { SIMCLOUD_NETWORK: network } });
  let networkId = '';

  const routes = async () => h.sim.client.networks.listRoutes(networkId);

  beforeAll(async () => {
    await h.setUp();
    networkId = (await h.sim.client.networks.create({ name: network })).id;
    await h.startCcm();
  });
  afterAll(() => h.cleanup());

  it('creates a route per podCIDR to the node private IP, sets NetworkUnavailable=False, and removes a deleted node route', async () => {
    const names = [uniqueName('rt'), uniqueName('rt')];
    const servers = await Promise.all(names.map((n) => h.createServer(n, { networks: [networkId] })));
    for (const n of names) await h.startKubelet(n);
    const cidrs = await Promise.all(names.map((n) => eventually('podCIDR', async () => (await h.node(n)).spec?.podCIDR)));
    const wanted = names.map((_, i) => ({ destination: cidrs[i]!, gateway: servers[i]!.private_networks.find((p) => p.network_id === networkId)!.ip }));
    await eventually('routes', async () => {
      const have = await routes();
      return wanted.every((w) => have.some((r) => r.destination === w.destination && r.gateway === w.gateway));
    });
    for (const n of names) {
      const cond = await eventually('NetworkUnavailable condition', async () =>
        (await h.node(n)).status?.conditions?.find((c) => c.type === 'NetworkUnavailable'),
      );
      expect(cond).toMatchObject({ status: 'False', reason: 'RouteCreated' });
    }
    const gone = names[0]!;
    h.kubelet(gone)?.close();
    await h.cluster.core.deleteNode({ name: gone });
    await eventually('route of the deleted node removed', async () => !(await routes()).some((r) => r.destination === cidrs[0]));
    expect((await routes()).filter((r) => r.destination === cidrs[1])).toHaveLength(1);
    const calls = h.calls.byCaller('node-route-controller');
    console.log(`[figures] route controller cloud calls in this test: ${calls.length}`);
  });
});
