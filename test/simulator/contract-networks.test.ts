// Networks, subnets, routes and attachments through the typed client against a real simcloud process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimcloudProcess } from '../helpers/simcloud.ts';
import { apiError, serverBody, startContractProcess, unique } from './support.ts';

let sc: SimcloudProcess;
beforeAll(async () => {
  sc = await startContractProcess();
});
afterAll(async () => {
  await sc?.stop();
});

describe('networks', () => {
  it('creates a network with a default loopback /24 and subnets with gateways', async () => {
    const net = await sc.client.networks.create({ name: unique('net') });
    expect(net.ip_range).toMatch(/^127\.10\.\d+\.0\/24$/);
    const custom = await sc.client.networks.create({
      name: unique('net'),
      ip_range: '10.0.0.0/16',
      subnets: [{ zone: 'sim-1a', ip_range: '10.0.1.0/24' }],
      labels: { a: 'b' },
    });
    expect(custom.subnets).toEqual([{ zone: 'sim-1a', ip_range: '10.0.1.0/24', gateway: '10.0.1.1' }]);
    expect(await sc.client.networks.get(custom.id)).toEqual(custom);
    const listed = await sc.client.networks.list({ label_selector: 'a=b' });
    expect(listed.networks.map((n) => n.id)).toContain(custom.id);
  });

  it('validates subnets: outside the range, overlapping, host bits', async () => {
    const outside = await apiError(() =>
      sc.client.networks.create({ name: unique('n'), ip_range: '10.1.0.0/16', subnets: [{ zone: 'sim-1a', ip_range: '10.2.0.0/24' }] }),
    );
    expect(outside.fields[0]!.name).toBe('subnets.0.ip_range');
    const overlap = await apiError(() =>
      sc.client.networks.create({
        name: unique('n'),
        ip_range: '10.1.0.0/16',
        subnets: [
          { zone: 'sim-1a', ip_range: '10.1.0.0/24' },
          { zone: 'sim-1b', ip_range: '10.1.0.128/25' },
        ],
      }),
    );
    expect(overlap.code).toBe('conflict');
    const hostBits = await apiError(() => sc.client.networks.create({ name: unique('n'), ip_range: '10.1.0.1/16' }));
    expect(hostBits).toMatchObject({ code: 'invalid_input' });
    expect(hostBits.fields[0]!.name).toBe('ip_range');
  });

  it('adds, lists and deletes routes with validation (gateway in range, duplicates and overlaps conflict)', async () => {
    const net = await sc.client.networks.create({ name: unique('net'), ip_range: '10.20.0.0/16' });
    const { route, action } = await sc.client.networks.createRoute(net.id, { destination: '10.244.1.0/24', gateway: '10.20.0.5' });
    expect(action.command).toBe('add_route');
    await sc.client.waitForAction(action.id);
    expect(await sc.client.networks.listRoutes(net.id)).toEqual([route]);
    const dup = await apiError(() => sc.client.networks.createRoute(net.id, { destination: '10.244.1.0/24', gateway: '10.20.0.6' }));
    expect(dup).toMatchObject({ code: 'conflict' });
    const overlap = await apiError(() => sc.client.networks.createRoute(net.id, { destination: '10.244.0.0/16', gateway: '10.20.0.6' }));
    expect(overlap.code).toBe('conflict');
    const outside = await apiError(() => sc.client.networks.createRoute(net.id, { destination: '10.244.2.0/24', gateway: '192.168.1.1' }));
    expect(outside.code).toBe('invalid_input');
    expect(outside.fields[0]!.name).toBe('gateway');
    await sc.client.waitForAction((await sc.client.networks.deleteRoute(net.id, route.id)).id);
    expect(await sc.client.networks.listRoutes(net.id)).toEqual([]);
    expect((await apiError(() => sc.client.networks.deleteRoute(net.id, route.id))).code).toBe('not_found');
  });

  it('attaches servers with private IPs from the subnet of their zone and refuses delete while in use', async () => {
    const net = await sc.client.networks.create({ name: unique('net'), ip_range: '10.30.0.0/16', subnets: [{ zone: 'sim-1a', ip_range: '10.30.1.0/24' }] });
    const { server, action } = await sc.client.servers.create(serverBody({ networks: [net.id] }));
    expect(server.private_networks).toEqual([{ network_id: net.id, ip: '10.30.1.2' }]);
    expect(server.private_ipv4).toBe('10.30.1.2');
    await sc.client.waitForAction(action.id);
    const other = await sc.client.servers.create(serverBody({ public_net: false }));
    await sc.client.waitForAction(other.action.id);
    await sc.client.waitForAction((await sc.client.servers.attachToNetwork(other.server.id, { network_id: net.id, ip: '10.30.1.50' })).id);
    expect((await sc.client.servers.get(other.server.id)).private_ipv4).toBe('10.30.1.50');
    const taken = await apiError(() => sc.client.servers.create(serverBody({ networks: [net.id], private_ipv4: '10.30.1.50' })));
    expect(taken).toMatchObject({ code: 'conflict' });
    expect((await sc.client.networks.get(net.id)).servers.sort()).toEqual([server.id, other.server.id].sort());
    expect((await apiError(() => sc.client.networks.delete(net.id))).code).toBe('conflict');
    await sc.client.waitForAction((await sc.client.servers.detachFromNetwork(other.server.id, { network_id: net.id })).id);
    await sc.client.waitForAction((await sc.client.servers.delete(server.id)).id);
    await sc.client.networks.delete(net.id);
    expect((await apiError(() => sc.client.networks.get(net.id))).code).toBe('not_found');
  });

  it('updates names and labels', async () => {
    const net = await sc.client.networks.create({ name: unique('net') });
    const name = unique('renamed');
    expect(await sc.client.networks.update(net.id, { name, labels: { x: 'y' } })).toMatchObject({ name, labels: { x: 'y' } });
  });
});
