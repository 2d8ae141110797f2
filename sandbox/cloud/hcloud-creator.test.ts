import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordSimEvents, type SimEventRecorder } from '../../test/helpers/sim-events.ts';
import { startSimcloudInProcess, type InProcessSimcloud } from '../../test/helpers/simcloud.ts';
import { HcloudDialectCreator } from './hcloud-creator.ts';
import { SANDBOX_LABELS, SimcloudSandboxCloud } from './sandbox-cloud.ts';

let sc: InProcessSimcloud;
let rec: SimEventRecorder;
beforeAll(async () => {
  sc = await startSimcloudInProcess();
  rec = await recordSimEvents(sc);
});
afterAll(async () => {
  rec?.stop();
  await sc?.stop();
});

const cloudFor = (clusterName: string): SimcloudSandboxCloud =>
  new SimcloudSandboxCloud({ client: sc.client, clusterName, networkRange: '127.40.0.0/16', hcloud: new HcloudDialectCreator({ endpoint: sc.url, token: sc.token }) });

describe('a --cloud hcloud sandbox cloud', () => {
  it('creates the network and the servers through /hcloud/v1 and reads them back through /v1 (one store)', async () => {
    const cloud = cloudFor('hc1');
    const network = await cloud.ensureNetwork();
    expect(network).toMatchObject({ name: 'hc1', ip_range: '127.40.0.0/16', labels: { [SANDBOX_LABELS.cluster]: 'hc1' } });
    const registered = await cloud.registerServer({ name: 'hc1-worker-1', role: 'worker' });
    expect(registered.privateIPv4).toMatch(/^127\.40\./);
    const [server] = await cloud.servers();
    expect(server).toMatchObject({ id: registered.id, name: 'hc1-worker-1', status: 'running', zone: 'sim-1a', server_type: 'sc-medium' });
    expect(server?.labels).toEqual({ [SANDBOX_LABELS.cluster]: 'hc1', [SANDBOX_LABELS.role]: 'worker' });
    // Registering again finds it: no second server.
    expect((await cloud.registerServer({ name: 'hc1-worker-1', role: 'worker' })).id).toBe(registered.id);
    expect(await cloud.servers()).toHaveLength(1);
    const creates = rec.events.filter((e) => e.type === 'api_call' && e.method === 'POST' && /^\/hcloud\/v1\/(networks|servers)$/.test(e.path));
    expect(creates.map((e) => (e.type === 'api_call' ? e.path : ''))).toEqual(['/hcloud/v1/networks', '/hcloud/v1/servers']);
  });

  it('refuses a machine with addresses of its own: Hetzner picks a server\'s addresses', async () => {
    await expect(cloudFor('hc2').registerServer({ name: 'hc2-worker-1', role: 'worker', privateIPv4: '127.40.9.9' })).rejects.toThrow(
      '--cloud hcloud cannot register hc2-worker-1 at its own addresses: use --runtime local',
    );
    expect(await cloudFor('hc2').servers()).toEqual([]);
  });
});
