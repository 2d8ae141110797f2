// Every error code of the closed list, observed through the typed client, and cross-project isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiErrorCode, SimcloudClient } from '../../simulator/api/client/index.ts';
import { ErrorCode } from '../../simulator/api/schema/errors.ts';
import type { SimcloudProcess } from '../helpers/simcloud.ts';
import { apiError, lbBody, serverBody, startContractProcess, unique } from './support.ts';

let sc: SimcloudProcess;
let other: SimcloudClient;
beforeAll(async () => {
  sc = await startContractProcess();
  const project = await sc.admin.createProject(unique('other'));
  const token = await sc.admin.createToken(project.id, { name: 'other' });
  other = sc.clientFor(token.token, { retry: { maxRetries: 0 } });
});
afterAll(async () => {
  await sc?.stop();
});

describe('error codes', () => {
  const seen = new Set<ApiErrorCode>();
  afterAll(() => {
    expect([...seen].sort()).toEqual(Object.keys(ErrorCode).sort());
  });

  it('invalid_input names every bad field', async () => {
    const err = await apiError(() => sc.client.servers.create({ name: 'bad name!', server_type: 7, extra: true } as never));
    seen.add(err.code);
    expect(err).toMatchObject({ code: 'invalid_input', status: 400, operation: 'servers.create' });
    expect(err.requestId).toMatch(/^req-/);
    expect(err.fields.map((f) => f.name).sort()).toEqual(['extra', 'image', 'name', 'server_type', 'zone']);
  });

  it('unauthorized for a missing or unknown token', async () => {
    const anon = sc.clientFor('not-a-token-at-all', { retry: { maxRetries: 0 } });
    const err = await apiError(() => anon.servers.list());
    seen.add(err.code);
    expect(err).toMatchObject({ code: 'unauthorized', status: 401 });
  });

  it('forbidden for a project token on /_sim', async () => {
    const res = await fetch(`${sc.url}/_sim/faults`, { headers: { authorization: `Bearer ${sc.token}` } });
    const body = (await res.json()) as { error: { code: ApiErrorCode } };
    seen.add(body.error.code);
    expect(res.status).toBe(403);
    expect(body.error.code).toBe('forbidden');
  });

  it('not_found for unknown ids and routes', async () => {
    const err = await apiError(() => sc.client.loadBalancers.get('lb-00000000'));
    seen.add(err.code);
    expect(err).toMatchObject({ code: 'not_found', status: 404, operation: 'loadBalancers.get' });
    const res = await fetch(`${sc.url}/v1/nothing`, { headers: { authorization: `Bearer ${sc.token}` } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('conflict and locked', async () => {
    // Hold the create action so the server stays locked for as long as the test needs.
    await sc.admin.addFault({ kind: 'stuck_transition', match: { resource_type: 'server' } });
    const body = serverBody();
    const { server } = await sc.client.servers.create(body);
    const c = await apiError(() => sc.client.servers.create(body));
    const l = await apiError(() => sc.client.servers.delete(server.id));
    await sc.admin.clearFaults();
    seen.add(c.code).add(l.code);
    expect([c.code, l.code]).toEqual(['conflict', 'locked']);
    expect(l.status).toBe(423);
  });

  it('rate_limit_exceeded, service_unavailable and server_error (injected)', async () => {
    const match = { path: '/v1/zones' };
    await sc.admin.addFault({ kind: 'error', status: 429, code: 'rate_limit_exceeded', count: 1, match });
    await sc.admin.addFault({ kind: 'error', status: 503, code: 'service_unavailable', count: 1, match });
    await sc.admin.addFault({ kind: 'error', status: 500, code: 'server_error', count: 1, match });
    const codes: ApiErrorCode[] = [];
    for (let i = 0; i < 3; i++) codes.push((await apiError(() => sc.client.catalogue.zones())).code);
    for (const c of codes) seen.add(c);
    expect(codes).toEqual(['rate_limit_exceeded', 'service_unavailable', 'server_error']);
    expect((await sc.client.catalogue.zones()).length).toBeGreaterThan(0);
    await sc.admin.clearFaults();
  });
});

describe('cross-project isolation', () => {
  it("a token never sees or changes another project's resources", async () => {
    const net = await sc.client.networks.create({ name: unique('net') });
    const { server, action } = await sc.client.servers.create(serverBody({ labels: { iso: 'yes' } }));
    await sc.client.waitForAction(action.id);
    const { load_balancer: lb } = await sc.client.loadBalancers.create(lbBody());
    const block = await sc.client.ipBlocks.allocate({ location: 'sim-1', tags: { iso: 'yes' } });
    const group = await sc.client.serverGroups.create({ name: unique('g') });
    const policy = await sc.client.firewallPolicies.create({ name: unique('fw') });

    expect((await other.servers.list({ label_selector: 'iso=yes' })).servers).toEqual([]);
    expect(await other.ipBlocks.listAll({ tags: { iso: 'yes' } })).toEqual([]);
    for (const call of [
      () => other.servers.get(server.id),
      () => other.servers.update(server.id, { labels: {} }),
      () => other.servers.delete(server.id),
      () => other.servers.poweroff(server.id),
      () => other.networks.get(net.id),
      () => other.networks.listRoutes(net.id),
      () => other.loadBalancers.get(lb.id),
      () => other.loadBalancers.delete(lb.id),
      () => other.ipBlocks.release(block.id),
      () => other.serverGroups.get(group.id),
      () => other.firewallPolicies.delete(policy.id),
      () => other.actions.get(action.id),
    ])
      expect((await apiError(call)).code).toBe('not_found');
    const viaNet = await apiError(() => other.servers.create(serverBody({ networks: [net.id] })));
    expect(viaNet.fields[0]!.name).toBe('networks.0');
    const viaTarget = await apiError(() => other.loadBalancers.create(lbBody({ targets: [{ kind: 'server', server_id: server.id }] })));
    expect(viaTarget.code).toBe('not_found');
    const viaBlock = await apiError(() => other.loadBalancers.create(lbBody({ ip_block_id: block.id })));
    expect(viaBlock.code).toBe('not_found');
    // The same name is free in another project.
    await other.servers.create(serverBody({ name: server.name }));
    expect((await sc.client.servers.get(server.id)).labels).toEqual({ iso: 'yes' });
  });
});
