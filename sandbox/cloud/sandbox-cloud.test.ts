import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordSimEvents, type SimEventRecorder } from '../../test/helpers/sim-events.ts';
import { startSimcloudInProcess, type InProcessSimcloud } from '../../test/helpers/simcloud.ts';
import type { PowerEvent } from '../runtimes/runtime.ts';
import { HcloudMachines } from './hcloud/machines.ts';
import { LinodeMachines } from './linode/machines.ts';
import { DigitalOceanMachines } from './digitalocean/machines.ts';
import { digitaloceanCloud } from './digitalocean/cloud.ts';
import { BrightboxMachines } from './brightbox/machines.ts';
import { powerAction, SANDBOX_LABELS, SimcloudSandboxCloud } from './sandbox-cloud.ts';

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

/** Creates a server labelled for `cluster`, powers it off and deletes it; resolves when simcloud said it is gone. */
async function serverLifecycle(name: string, cluster: string): Promise<string> {
  const c = sc.client;
  const { server, action } = await c.servers.create({
    name,
    server_type: 'sc-small',
    image: 'ubuntu-24.04',
    zone: 'sim-1a',
    labels: { [SANDBOX_LABELS.cluster]: cluster },
  });
  await c.waitForAction(action.id);
  await c.waitForAction((await c.servers.poweroff(server.id)).id);
  await c.waitForAction((await c.servers.delete(server.id)).id);
  await rec.next(`server ${name} deleted`, (e) => e.type === 'resource_change' && e.resource_id === server.id && e.change === 'deleted');
  return server.id;
}

describe('power actions from server status transitions', () => {
  it.each([
    ['running', 'stopping', 'poweroff'],
    ['running', 'off', 'poweroff'],
    ['off', 'starting', 'poweron'],
    ['running', 'starting', 'reboot'],
    ['running', 'deleting', 'delete'],
    ['off', 'deleted', 'delete'],
    ['stopping', 'off', undefined],
    ['starting', 'running', undefined],
    ['deleting', 'deleted', undefined],
    [undefined, 'running', undefined],
  ])('%s -> %s is %s', (before, after, action) => {
    expect(powerAction(before, after)).toBe(action);
  });

  it("reports power events for the cluster's servers only, from the events simcloud sends", async () => {
    const mine = await serverLifecycle('c1-w1', 'c1');
    await serverLifecycle('other-w1', 'other');
    const cloud = new SimcloudSandboxCloud({ client: sc.client, clusterName: 'c1' });
    const seen: PowerEvent[] = [];
    cloud.onPowerEvent((e) => seen.push(e));
    for (const e of rec.events) cloud.handleSimEvent(e);
    expect(seen).toEqual([
      { serverId: mine, name: 'c1-w1', action: 'poweroff' },
      { serverId: mine, name: 'c1-w1', action: 'delete' },
    ]);
  });
});

const cloudFor = (clusterName: string): SimcloudSandboxCloud =>
  new SimcloudSandboxCloud({
    client: sc.client,
    clusterName,
    networkRange: '127.40.0.0/16',
    persona: { kind: 'hcloud', machines: new HcloudMachines({ endpoint: sc.url, token: sc.token }) },
  });

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

  it("refuses a machine with addresses of its own: Hetzner picks a server's addresses", async () => {
    await expect(cloudFor('hc2').registerServer({ name: 'hc2-worker-1', role: 'worker', privateIPv4: '127.40.9.9' })).rejects.toThrow(
      '--cloud hcloud cannot register hc2-worker-1 at its own addresses: use --runtime local',
    );
    expect(await cloudFor('hc2').servers()).toEqual([]);
  });
});

describe('a --cloud linode sandbox cloud', () => {
  const linodeCloud = (clusterName: string): SimcloudSandboxCloud =>
    new SimcloudSandboxCloud({
      client: sc.client,
      clusterName,
      networkRange: '127.41.0.0/16',
      persona: { kind: 'linode', machines: new LinodeMachines({ endpoint: sc.url, token: sc.token }) },
    });

  it('creates each machine as an instance through /v4 with the cluster tags, on the cluster network, read back through /v1', async () => {
    const cloud = linodeCloud('li1');
    const registered = await cloud.registerServer({ name: 'li1-worker-1', role: 'worker' });
    expect(registered.privateIPv4).toMatch(/^127\.41\./);
    const [server] = await cloud.servers();
    expect(server).toMatchObject({
      id: registered.id,
      name: 'li1-worker-1',
      status: 'running',
      zone: 'sim-1a',
      server_type: 'sc-medium',
      private_ipv4: registered.privateIPv4,
    });
    expect(server?.labels).toEqual({ [SANDBOX_LABELS.cluster]: 'li1', [SANDBOX_LABELS.role]: 'worker' });
    expect((await cloud.registerServer({ name: 'li1-worker-1', role: 'worker' })).id).toBe(registered.id);
    expect(await cloud.servers()).toHaveLength(1);
    const creates = rec.events.filter((e) => e.type === 'api_call' && e.method === 'POST' && e.path === '/v4/linode/instances');
    expect(creates).toHaveLength(1);
  });

  it("refuses a machine with addresses of its own: Linode picks an instance's addresses", async () => {
    await expect(linodeCloud('li2').registerServer({ name: 'li2-worker-1', role: 'worker', publicIPv4: '127.41.9.9' })).rejects.toThrow(
      '--cloud linode cannot register li2-worker-1 at its own addresses: use --runtime local',
    );
    expect(await linodeCloud('li2').servers()).toEqual([]);
  });
});

describe('a --cloud digitalocean sandbox cloud', () => {
  const doCloud = (clusterName: string): SimcloudSandboxCloud =>
    new SimcloudSandboxCloud({
      client: sc.client,
      clusterName,
      networkRange: '127.42.0.0/16',
      persona: { kind: 'digitalocean', machines: new DigitalOceanMachines({ endpoint: sc.url, token: sc.token }) },
    });

  it('creates each machine as a droplet through /v2, labelled and on the cluster network through /v1', async () => {
    const cloud = doCloud('do1');
    const registered = await cloud.registerServer({ name: 'do1-worker-1', role: 'worker' });
    expect(registered.privateIPv4).toMatch(/^127\.42\./);
    const [server] = await cloud.servers();
    expect(server).toMatchObject({
      id: registered.id,
      name: 'do1-worker-1',
      status: 'running',
      zone: 'sim-1a',
      server_type: 'sc-medium',
      private_ipv4: registered.privateIPv4,
    });
    expect(server?.labels).toEqual({ [SANDBOX_LABELS.cluster]: 'do1', [SANDBOX_LABELS.role]: 'worker' });
    expect((await cloud.registerServer({ name: 'do1-worker-1', role: 'worker' })).id).toBe(registered.id);
    expect(await cloud.servers()).toHaveLength(1);
    const creates = rec.events.filter((e) => e.type === 'api_call' && e.method === 'POST' && e.path === '/v2/droplets');
    expect(creates).toHaveLength(1);
  });

  it("refuses a machine with addresses of its own: DigitalOcean picks a droplet's addresses", async () => {
    await expect(doCloud('do2').registerServer({ name: 'do2-worker-1', role: 'worker', privateIPv4: '127.42.9.9' })).rejects.toThrow(
      '--cloud digitalocean cannot register do2-worker-1 at its own addresses: use --runtime local',
    );
    expect(await doCloud('do2').servers()).toEqual([]);
  });
});

describe("a sandbox cloud's kubelet --provider-id", () => {
  it("is the cloud's <cloud>://<id> with --kubelet-provider-id: DigitalOcean's droplet id as its API lists it", async () => {
    const cloud = new SimcloudSandboxCloud({
      client: sc.client,
      clusterName: 'do3',
      networkRange: '127.43.0.0/16',
      persona: { kind: 'digitalocean', machines: new DigitalOceanMachines({ endpoint: sc.url, token: sc.token }) },
      kubeletProviderId: (id) => digitaloceanCloud.providerId(id),
    });
    const registered = await cloud.registerServer({ name: 'do3-worker-1', role: 'worker' });
    const res = await fetch(`${sc.url}/v2/droplets?per_page=200`, { headers: { authorization: `Bearer ${sc.token}` } });
    const { droplets } = (await res.json()) as { droplets: { id: number; name: string }[] };
    const droplet = droplets.find((d) => d.name === 'do3-worker-1');
    expect(droplet).toBeDefined();
    expect(cloud.kubeletProviderId(registered.id)).toBe(`digitalocean://${droplet?.id}`);
  });

  it("is none by default, the CCM's to set", () => {
    const cloud = new SimcloudSandboxCloud({
      client: sc.client,
      clusterName: 'do4',
      persona: { kind: 'digitalocean', machines: new DigitalOceanMachines({ endpoint: sc.url, token: sc.token }) },
    });
    expect(cloud.kubeletProviderId('srv-0000000000000001')).toBeUndefined();
  });

  it("is the persona machines' own where they need one, whatever the sandbox chose", () => {
    const machines = new BrightboxMachines({ endpoint: sc.url, token: sc.token, providerId: (id) => `brightbox://own-${id}` });
    const cloud = new SimcloudSandboxCloud({
      client: sc.client,
      clusterName: 'bb1',
      persona: { kind: 'brightbox', machines },
      kubeletProviderId: (id) => `brightbox://chosen-${id}`,
    });
    expect(cloud.kubeletProviderId('srv-1')).toBe('brightbox://own-srv-1');
  });
});
