// Load balancers, server groups and firewall policies through the typed client against a real process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimcloudProcess } from '../helpers/simcloud.ts';
import { mapWithConcurrency as pool } from '../../lib/concurrency.ts';
import { apiError, lbBody, serverBody, startContractProcess, tcpService, unique } from './support.ts';

let sc: SimcloudProcess;
beforeAll(async () => {
  sc = await startContractProcess();
});
afterAll(async () => {
  await sc?.stop();
});

async function runningServer(labels: Record<string, string> = {}, networks?: string[]) {
  const { server, action } = await sc.client.servers.create(serverBody({ labels, ...(networks ? { networks } : {}) }));
  await sc.client.waitForAction(action.id);
  return server;
}

describe('load balancers', () => {
  it('provisions then becomes active with a loopback VIP and resolved targets of every kind', async () => {
    const app = unique('app');
    const a = await runningServer({ app });
    const b = await runningServer({ app });
    const c = await runningServer();
    const group = await sc.client.serverGroups.create({ name: unique('grp'), servers: [c.id] });
    const { load_balancer: lb, action } = await sc.client.loadBalancers.create(
      lbBody({
        labels: { app },
        targets: [
          { kind: 'label_selector', label_selector: `app=${app}` },
          { kind: 'server', server_id: a.id },
          { kind: 'server_group', server_group_id: group.id },
          { kind: 'ip', ip: '127.0.0.9' },
        ],
      }),
    );
    expect(lb.status).toBe('provisioning');
    expect(lb.public_ipv4).toMatch(/^127\.1\.\d+\.\d+$/);
    expect(lb.public_ipv6).toMatch(/^2001:db8:2::[0-9a-f]{1,4}$/); // data only: nothing listens on it
    await sc.client.waitForAction(action.id);
    const got = await sc.client.loadBalancers.get(lb.id);
    expect(got.status).toBe('active');
    expect(got.resolved_targets.map((t) => t.id).sort()).toEqual([a.id, b.id, c.id, 'ip:127.0.0.9'].sort());
    expect(got.resolved_targets.find((t) => t.id === a.id)).toMatchObject({ ip: a.public_ipv4, health: [{ listen_port: 80, status: 'unknown' }] });
    expect((await sc.client.loadBalancers.list({ label_selector: `app=${app}` })).load_balancers.map((l) => l.id)).toEqual([lb.id]);
    expect((await sc.client.loadBalancers.list({ name: lb.name })).load_balancers).toHaveLength(1);
    // Without resolved targets: the same load balancer, less what was resolved from its targets.
    const [summary] = (await sc.client.loadBalancers.listSummaries({ name: lb.name })).load_balancers;
    const { resolved_targets: _, ...configured } = got;
    expect(summary).toEqual(configured);
    expect(summary).not.toHaveProperty('resolved_targets');
    const res = await fetch(`${sc.url}/v1/load_balancers?resolved_targets=no`, { headers: { authorization: `Bearer ${sc.token}` } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'invalid_input', details: { fields: [{ name: 'resolved_targets' }] } } });
  });

  it('updates name, labels, algorithm, services, targets and session affinity', async () => {
    const { load_balancer: lb } = await sc.client.loadBalancers.create(lbBody());
    const s = await runningServer();
    const name = unique('lb2');
    const updated = await sc.client.loadBalancers.update(lb.id, {
      name,
      labels: { k: 'v' },
      algorithm: 'least_connections',
      session_affinity: 'source_ip',
      services: [tcpService(443, 8443, { proxy_protocol: 'v2', protocol: 'https' })],
      targets: [{ kind: 'server', server_id: s.id }],
      source_ranges: ['10.0.0.0/8'],
    });
    expect(updated).toMatchObject({ name, labels: { k: 'v' }, algorithm: 'least_connections', session_affinity: 'source_ip', source_ranges: ['10.0.0.0/8'] });
    expect(updated.services[0]).toMatchObject({ listen_port: 443, proxy_protocol: 'v2' });
    const dupPorts = await apiError(() => sc.client.loadBalancers.update(lb.id, { services: [tcpService(80, 1), tcpService(80, 2)] }));
    expect(dupPorts.code).toBe('invalid_input');
    expect(dupPorts.fields[0]!.name).toBe('services');
    const missing = await apiError(() => sc.client.loadBalancers.update(lb.id, { targets: [{ kind: 'server', server_id: 'srv-99999999' }] }));
    expect(missing).toMatchObject({ code: 'not_found' });
    expect(missing.fields[0]!.name).toBe('targets.0.server_id');
  });

  it('attaches to a network, getting a private IP, and targets use private addresses', async () => {
    const net = await sc.client.networks.create({ name: unique('net') });
    const s = await runningServer({}, [net.id]);
    const { load_balancer: lb, action } = await sc.client.loadBalancers.create(lbBody({ targets: [{ kind: 'server', server_id: s.id }] }));
    await sc.client.waitForAction(action.id);
    await sc.client.waitForAction((await sc.client.loadBalancers.attachToNetwork(lb.id, { network_id: net.id })).id);
    const got = await sc.client.loadBalancers.get(lb.id);
    expect(got.network_id).toBe(net.id);
    expect(got.private_ipv4).toMatch(/^127\.10\./);
    expect(got.resolved_targets[0]!.ip).toBe(s.private_ipv4);
    expect((await sc.client.networks.get(net.id)).load_balancers).toEqual([lb.id]);
    await sc.client.waitForAction((await sc.client.loadBalancers.detachFromNetwork(lb.id)).id);
    expect((await sc.client.loadBalancers.get(lb.id)).private_ipv4).toBeNull();
  });

  it('drops a deleted server from its server targets, as Hetzner and DigitalOcean do', async () => {
    const [kept, gone] = await Promise.all([runningServer(), runningServer()]);
    const { load_balancer: lb, action } = await sc.client.loadBalancers.create(
      lbBody({
        targets: [
          { kind: 'server', server_id: kept.id },
          { kind: 'server', server_id: gone.id },
        ],
      }),
    );
    await sc.client.waitForAction(action.id);
    await sc.client.waitForAction((await sc.client.servers.delete(gone.id)).id);
    expect((await sc.client.loadBalancers.get(lb.id)).targets).toEqual([{ kind: 'server', server_id: kept.id }]);
  });

  it('takes its VIP from an IP block and frees the block on delete', async () => {
    const block = await sc.client.ipBlocks.allocate({ location: 'sim-1', tags: { use: 'vip' } });
    const { load_balancer: lb, action } = await sc.client.loadBalancers.create(lbBody({ ip_block_id: block.id }));
    expect(lb.public_ipv4).toBe(block.usable_addresses[0]);
    expect((await sc.client.ipBlocks.get(block.id)).assigned_to).toEqual({ kind: 'load_balancer', id: lb.id });
    await sc.client.waitForAction(action.id);
    const taken = await apiError(() => sc.client.loadBalancers.create(lbBody({ ip_block_id: block.id })));
    expect(taken.code).toBe('conflict');
    await sc.client.waitForAction((await sc.client.loadBalancers.delete(lb.id)).id);
    expect((await sc.client.ipBlocks.get(block.id)).status).toBe('unassigned');
    expect((await apiError(() => sc.client.loadBalancers.get(lb.id))).code).toBe('not_found');
  });

  it('reports zero counters without a data plane', async () => {
    const s = await runningServer();
    const { load_balancer: lb } = await sc.client.loadBalancers.create(lbBody({ targets: [{ kind: 'server', server_id: s.id }] }));
    expect(await sc.client.loadBalancers.metrics(lb.id)).toEqual([{ target_id: s.id, connections: 0, active_connections: 0, bytes_in: 0, bytes_out: 0 }]);
  });
});

describe('server groups and firewall policies', () => {
  it('changes members with idempotent add_servers/remove_servers and grows past one request of 1000 ids', async () => {
    const servers = await pool(
      Array.from({ length: 1003 }, () => serverBody()),
      16,
      (body) => sc.client.servers.create(body).then((r) => r.server.id),
    );
    const [first, rest] = [servers.slice(0, 1000), servers.slice(1000)];
    const group = await sc.client.serverGroups.create({ name: unique('grp'), servers: first });
    const tooMany = await apiError(() => sc.client.serverGroups.setServers(group.id, servers));
    expect(tooMany).toMatchObject({ status: 400, code: 'invalid_input' });
    expect(tooMany.fields?.[0]?.name).toBe('servers');
    const grown = await sc.client.serverGroups.addServers(group.id, [rest[0]!, first[0]!, ...rest.slice(1)]);
    expect(grown.servers).toHaveLength(1003);
    expect(new Set(grown.servers)).toEqual(new Set(servers));
    const shrunk = await sc.client.serverGroups.removeServers(group.id, [first[1]!, 'srv-notamember']);
    expect(shrunk.servers).toHaveLength(1002);
    expect(shrunk.servers).not.toContain(first[1]);
    expect((await apiError(() => sc.client.serverGroups.addServers(group.id, ['srv-missing']))).fields?.[0]?.name).toBe('servers.0');
    expect((await apiError(() => sc.client.serverGroups.addServers(group.id, []))).fields?.[0]?.name).toBe('servers');
    expect((await sc.client.serverGroups.get(group.id)).servers).toHaveLength(1002);
    await sc.client.serverGroups.delete(group.id);
    await pool(servers, 16, (id) => sc.client.servers.delete(id));
  });

  it('creates, updates, sets members, applies a policy and refuses group delete while applied', async () => {
    const a = await runningServer();
    const b = await runningServer();
    const group = await sc.client.serverGroups.create({ name: unique('grp'), description: 'nodes', labels: { k: 'v' }, servers: [a.id] });
    expect(group).toMatchObject({ servers: [a.id], firewall_policy_id: null });
    expect((await sc.client.serverGroups.setServers(group.id, [a.id, b.id])).servers).toEqual([a.id, b.id]);
    expect((await sc.client.serverGroups.update(group.id, { description: 'all nodes' })).description).toBe('all nodes');
    const policy = await sc.client.firewallPolicies.create({
      name: unique('fw'),
      rules: [{ direction: 'inbound', protocol: 'tcp', ports: '80', source_cidrs: ['10.0.0.0/8'] }],
    });
    expect(policy.rules[0]).toEqual({
      direction: 'inbound',
      protocol: 'tcp',
      ports: '80',
      source_cidrs: ['10.0.0.0/8'],
      destination_cidrs: [],
      description: '',
    });
    const replaced = await sc.client.firewallPolicies.setRules(policy.id, [{ direction: 'inbound', protocol: 'any' }]);
    expect(replaced.rules).toHaveLength(1);
    expect((await sc.client.firewallPolicies.apply(policy.id, group.id)).server_group_id).toBe(group.id);
    expect((await sc.client.serverGroups.get(group.id)).firewall_policy_id).toBe(policy.id);
    const second = await sc.client.firewallPolicies.create({ name: unique('fw') });
    expect((await apiError(() => sc.client.firewallPolicies.apply(second.id, group.id))).code).toBe('conflict');
    expect((await apiError(() => sc.client.serverGroups.delete(group.id))).code).toBe('conflict');
    await sc.client.firewallPolicies.remove(policy.id);
    await sc.client.serverGroups.delete(group.id);
    await sc.client.firewallPolicies.delete(policy.id);
    expect((await apiError(() => sc.client.firewallPolicies.get(policy.id))).code).toBe('not_found');
    expect((await sc.client.firewallPolicies.update(second.id, { labels: { x: 'y' } })).labels).toEqual({ x: 'y' });
    expect((await sc.client.firewallPolicies.list({ label_selector: 'x=y' })).firewall_policies.map((p) => p.id)).toContain(second.id);
  });

  it('validates members and rule ports', async () => {
    const missing = await apiError(() => sc.client.serverGroups.create({ name: unique('grp'), servers: ['srv-99999999'] }));
    expect(missing.fields[0]!.name).toBe('servers.0');
    const badPorts = await apiError(() =>
      sc.client.firewallPolicies.create({ name: unique('fw'), rules: [{ direction: 'inbound', protocol: 'tcp', ports: '90-80' }] }),
    );
    expect(badPorts.code).toBe('invalid_input');
    expect(badPorts.fields[0]!.name).toBe('rules.0.ports');
  });

  it('removes a deleted server from its groups', async () => {
    const a = await runningServer();
    const group = await sc.client.serverGroups.create({ name: unique('grp'), servers: [a.id] });
    await sc.client.waitForAction((await sc.client.servers.delete(a.id)).id);
    expect((await sc.client.serverGroups.get(group.id)).servers).toEqual([]);
    expect((await sc.client.serverGroups.listAll()).map((g) => g.id)).toContain(group.id);
  });
});

describe('load balancer deleted while provisioning', () => {
  it('ends the create action and removes the LB without flipping it back to active', async () => {
    const stuck = await sc.admin.addFault({ kind: 'stuck_transition', match: { resource_type: 'load_balancer' } });
    const { load_balancer: lb, action } = await sc.client.loadBalancers.create(lbBody());
    const del = await sc.client.loadBalancers.delete(lb.id);
    expect((await sc.client.loadBalancers.get(lb.id)).status).toBe('deleting');
    await sc.admin.deleteFault(stuck.id);
    expect((await sc.client.waitForAction(action.id)).status).toBe('success');
    await sc.client.waitForAction(del.id);
    expect((await apiError(() => sc.client.loadBalancers.get(lb.id))).code).toBe('not_found');
  });
});
