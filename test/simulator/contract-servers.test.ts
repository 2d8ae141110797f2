// Servers through the typed client against a real simcloud process: lifecycle, actions, addresses,
// pagination, label selectors, sort and names.
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

describe('servers', () => {
  it('creates a server that goes initializing → running through its create action', async () => {
    const { server, action } = await sc.client.servers.create(serverBody({ labels: { role: 'node' } }));
    expect(server.status).toBe('initializing');
    expect(server.locked).toBe(true);
    expect(server.public_ipv4).toMatch(/^127\.0\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\.\d+$/);
    expect(action).toMatchObject({ command: 'create_server', status: 'running', resources: [{ id: server.id, type: 'server' }] });
    const done = await sc.client.waitForAction(action.id);
    expect(done.status).toBe('success');
    expect(done.progress).toBe(100);
    const got = await sc.client.servers.get(server.id);
    expect(got).toMatchObject({ status: 'running', locked: false, region: 'sim-1', labels: { role: 'node' } });
  });

  it('powers off, on, reboots and deletes through actions', async () => {
    const { server, action } = await sc.client.servers.create(serverBody());
    await sc.client.waitForAction(action.id);
    await sc.client.waitForAction((await sc.client.servers.poweroff(server.id)).id);
    expect((await sc.client.servers.get(server.id)).status).toBe('off');
    await sc.client.waitForAction((await sc.client.servers.poweron(server.id)).id);
    expect((await sc.client.servers.get(server.id)).status).toBe('running');
    await sc.client.waitForAction((await sc.client.servers.reboot(server.id)).id);
    await sc.client.waitForAction((await sc.client.servers.shutdown(server.id)).id);
    expect((await sc.client.servers.get(server.id)).status).toBe('off');
    const del = await sc.client.servers.delete(server.id);
    expect(del.command).toBe('delete_server');
    await sc.client.waitForAction(del.id);
    expect((await apiError(() => sc.client.servers.get(server.id))).code).toBe('not_found');
  });

  it('answers locked while an action runs and conflict for a power action in the wrong state', async () => {
    const stuck = await sc.admin.addFault({ kind: 'stuck_transition', match: { resource_type: 'server' } });
    const { server, action } = await sc.client.servers.create(serverBody());
    const locked = await apiError(() => sc.client.servers.poweroff(server.id));
    await sc.admin.deleteFault(stuck.id);
    expect(locked).toMatchObject({ code: 'locked', status: 423, operation: 'servers.poweroff' });
    await sc.client.waitForAction(action.id);
    const err = await apiError(() => sc.client.servers.poweron(server.id));
    expect(err).toMatchObject({ code: 'conflict', status: 409 });
  });

  it('accepts explicit public and private addresses and refuses taken ones', async () => {
    const { server } = await sc.client.servers.create(serverBody({ public_ipv4: '127.0.100.7', private_ipv4: '172.18.0.7' }));
    expect(server).toMatchObject({ public_ipv4: '127.0.100.7', private_ipv4: '172.18.0.7', private_networks: [] });
    const dupPublic = await apiError(() => sc.client.servers.create(serverBody({ public_ipv4: '127.0.100.7' })));
    expect(dupPublic.code).toBe('conflict');
    expect(dupPublic.fields.map((f) => f.name)).toEqual(['public_ipv4']);
    const dupPrivate = await apiError(() => sc.client.servers.create(serverBody({ private_ipv4: '172.18.0.7' })));
    expect(dupPrivate.fields.map((f) => f.name)).toEqual(['private_ipv4']);
    const noPublic = await sc.client.servers.create(serverBody({ public_net: false }));
    expect(noPublic.server.public_ipv4).toBeNull();
  });

  it('gives each server its own public IPv6 /64 from the documentation prefix, none without a public net unless asked', async () => {
    const [a, b] = await Promise.all([sc.client.servers.create(serverBody()), sc.client.servers.create(serverBody())]);
    for (const { server } of [a, b]) expect(server.public_ipv6).toMatch(/^2001:db8:1:(?:[0-9a-f]{1,4}:)?:1$/);
    expect(a.server.public_ipv6).not.toBe(b.server.public_ipv6);
    expect((await sc.client.servers.get(a.server.id)).public_ipv6).toBe(a.server.public_ipv6);
    expect((await sc.client.servers.create(serverBody({ public_net: false }))).server.public_ipv6).toBeNull();
    const v4only = (await sc.client.servers.create(serverBody({ ipv6: false }))).server;
    expect([v4only.public_ipv4 === null, v4only.public_ipv6]).toEqual([false, null]);
    const v6only = (await sc.client.servers.create(serverBody({ public_net: false, ipv6: true }))).server;
    expect(v6only.public_ipv4).toBeNull();
    expect(v6only.public_ipv6).toMatch(/^2001:db8:1:/);
  });

  it('creates a stopped server when start_after_create is false', async () => {
    const { server, action } = await sc.client.servers.create(serverBody({ start_after_create: false }));
    expect(server.status).toBe('off');
    expect(action.status).toBe('success');
  });

  it('refuses a duplicate name in the project with conflict on field name', async () => {
    const body = serverBody();
    await sc.client.servers.create(body);
    const err = await apiError(() => sc.client.servers.create(body));
    expect(err).toMatchObject({ code: 'conflict', status: 409 });
    expect(err.fields[0]!.name).toBe('name');
  });

  it('refuses unknown catalogue entries with invalid_input naming the field', async () => {
    for (const [field, over] of [
      ['server_type', { server_type: 'nope' }],
      ['image', { image: 'nope' }],
      ['zone', { zone: 'nope' }],
    ] as const) {
      const err = await apiError(() => sc.client.servers.create(serverBody(over)));
      expect(err.code).toBe('invalid_input');
      expect(err.fields.map((f) => f.name)).toEqual([field]);
    }
  });

  it('updates name and labels (labels are replaced)', async () => {
    const { server } = await sc.client.servers.create(serverBody({ labels: { a: '1', b: '2' } }));
    const name = unique('renamed');
    const updated = await sc.client.servers.update(server.id, { name, labels: { c: '3' } });
    expect(updated).toMatchObject({ name, labels: { c: '3' } });
  });

  it('filters by name, label selector and status, pages and sorts', async () => {
    const group = unique('g');
    for (let i = 0; i < 7; i++)
      await sc.client.servers.create(serverBody({ name: `${group}-${i}`, labels: { group, idx: String(i), parity: i % 2 === 0 ? 'even' : 'odd' } }));
    const page1 = await sc.client.servers.list({ label_selector: `group=${group}`, per_page: 3 });
    expect(page1.servers).toHaveLength(3);
    expect(page1.meta.pagination).toEqual({ page: 1, per_page: 3, previous_page: null, next_page: 2, last_page: 3, total_entries: 7 });
    const page3 = await sc.client.servers.list({ label_selector: `group=${group}`, per_page: 3, page: 3 });
    expect(page3.servers).toHaveLength(1);
    expect(page3.meta.pagination.next_page).toBeNull();
    const all = await sc.client.servers.listAll({ label_selector: `group=${group}`, per_page: 2 });
    expect(all.map((s) => s.name)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `${group}-${i}`));
    const odd = await sc.client.servers.listAll({ label_selector: `group=${group},parity!=even` });
    expect(odd.map((s) => s.labels.idx)).toEqual(['1', '3', '5']);
    const inSet = await sc.client.servers.listAll({ label_selector: `group=${group},idx in (2,4),!missing` });
    expect(inSet.map((s) => s.labels.idx)).toEqual(['2', '4']);
    const byName = await sc.client.servers.list({ name: `${group}-3` });
    expect(byName.servers.map((s) => s.labels.idx)).toEqual(['3']);
    const desc = await sc.client.servers.listAll({ label_selector: `group=${group}`, sort: 'name:desc' });
    expect(desc[0]!.name).toBe(`${group}-6`);
    const off = await sc.client.servers.list({ label_selector: `group=${group}`, status: 'off' });
    expect(off.servers).toHaveLength(0);
  });

  it('rejects a malformed label selector with invalid_input on label_selector', async () => {
    const err = await apiError(() => sc.client.servers.list({ label_selector: 'a in (' }));
    expect(err).toMatchObject({ code: 'invalid_input' });
    expect(err.fields[0]!.name).toBe('label_selector');
  });

  it('serves the catalogue', async () => {
    expect((await sc.client.catalogue.regions()).map((r) => r.id)).toContain('sim-1');
    expect((await sc.client.catalogue.zones()).find((z) => z.id === 'sim-1a')?.region).toBe('sim-1');
    expect((await sc.client.catalogue.serverTypes()).length).toBeGreaterThan(0);
    expect((await sc.client.catalogue.images()).length).toBeGreaterThan(0);
  });
});
