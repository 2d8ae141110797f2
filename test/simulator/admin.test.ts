// The /_sim surface through SimcloudAdminClient: health, projects and tokens, snapshot save/load,
// reset, seeds, time control, the SSE event stream, /metrics and /openapi.json.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiCallEvent } from '../../simulator/api/schema/events.ts';
import { recordSimEvents } from '../helpers/sim-events.ts';
import { startSimcloudInProcess, type InProcessSimcloud } from '../helpers/simcloud.ts';
import { apiError, serverBody, unique } from './support.ts';

let sc: InProcessSimcloud;
beforeAll(async () => {
  sc = await startSimcloudInProcess({ clientOptions: { retry: { maxRetries: 0 } } });
});
afterAll(async () => {
  await sc?.stop();
});

describe('/_sim', () => {
  it('reports health without a token', async () => {
    const h = await sc.admin.health();
    expect(h).toMatchObject({ status: 'ok', store: { kind: 'memory' }, dataplane: false });
  });

  it('manages projects and tokens', async () => {
    const p = await sc.admin.createProject(unique('p'));
    const t = await sc.admin.createToken(p.id, { name: 'ci' });
    expect(t.token).toMatch(/^sct_/);
    expect((await sc.admin.listTokens(p.id)).map((x) => x.id)).toEqual([t.id]);
    const c = sc.clientFor(t.token, { retry: { maxRetries: 0 } });
    await c.servers.create(serverBody());
    await sc.admin.deleteToken(t.id);
    expect((await apiError(() => c.servers.list())).code).toBe('unauthorized');
    await sc.admin.deleteProject(p.id);
    expect((await sc.admin.listProjects()).map((x) => x.id)).not.toContain(p.id);
  });

  it('saves and loads snapshots, resets and seeds', async () => {
    await sc.admin.reset();
    const { server, action } = await sc.client.servers.create(serverBody());
    await sc.client.waitForAction(action.id);
    const snap = await sc.admin.snapshot();
    await sc.admin.reset();
    expect((await sc.client.servers.list()).servers).toEqual([]);
    await sc.admin.loadSnapshot(snap);
    expect((await sc.client.servers.get(server.id)).status).toBe('running');
    const bad = await apiError(() => sc.admin.loadSnapshot({ schema_version: 99 }));
    expect(bad.code).toBe('invalid_input');
    // Persona attributes are checked by each persona's schema; a persona not registered here keeps its own.
    const lb = { id: 'lb-00000090', dialect_attrs: { hcloud: { load_balancer_type: 7 }, retired: { any: 1 } } };
    const badAttrs = await apiError(() => sc.admin.loadSnapshot({ ...snap, load_balancers: { [lb.id]: lb } }));
    expect(badAttrs.fields.map((f) => f.name)).toContain('load_balancers.lb-00000090.dialect_attrs.hcloud.load_balancer_type');
    await sc.admin.seed('demo');
    const servers = await sc.client.servers.listAll();
    expect(servers.map((s) => s.name)).toEqual(['node-1', 'node-2', 'node-3']);
    expect(servers.every((s) => s.status === 'running' && s.private_networks.length === 1)).toBe(true);
    expect(await sc.client.networks.listAll()).toHaveLength(1);
    await sc.admin.seed('empty');
    expect(await sc.client.servers.listAll()).toEqual([]);
  });

  it('controls time: slow delays, fast-forward finishes transitions', async () => {
    await sc.admin.setTime({ delays: { server: { delay_ms: 600_000, jitter_ms: 0 } } });
    const { server, action } = await sc.client.servers.create(serverBody());
    expect((await sc.client.servers.get(server.id)).status).toBe('initializing');
    const before = Date.parse((await sc.admin.time()).now);
    const t = await sc.admin.fastForward(600_000);
    expect(Date.parse(t.now) - before).toBeGreaterThanOrEqual(600_000);
    expect((await sc.client.servers.get(server.id)).status).toBe('starting');
    await sc.admin.fastForward(600_000);
    expect((await sc.client.actions.get(action.id)).status).toBe('success');
    await sc.admin.setTime({ speed: 10, delays: { server: { delay_ms: 20, jitter_ms: 0 } } });
    expect((await sc.admin.time()).speed).toBe(10);
    await sc.admin.setTime({ speed: 1 });
  });

  it('streams every API call with the caller header, and resource changes', async () => {
    const caller = `test-controller ${unique('default/web')}`;
    const rec = await recordSimEvents(sc);
    try {
      const network = await sc.client.networks.create({ name: unique('evt') }, { caller });
      const call = await rec.next('the create call', (e): e is ApiCallEvent => e.type === 'api_call' && e.caller === caller);
      expect(call).toMatchObject({ method: 'POST', path: '/v1/networks', status: 201 });
      expect(call.request_id).toMatch(/^req-/);
      expect(call.project_id).toMatch(/^prj-/);
      expect(await rec.next('the network created', (e) => e.type === 'resource_change' && e.resource_id === network.id)).toMatchObject({
        change: 'created',
        resource_type: 'network',
      });
      expect(rec.errors).toEqual([]);
    } finally {
      rec.stop();
    }
  });

  it('replays buffered events after Last-Event-ID and filters by type', async () => {
    const name = unique('replay');
    await sc.client.networks.create({ name });
    const res = await fetch(`${sc.url}/_sim/events?types=resource_change`, { headers: { authorization: `Bearer ${sc.adminToken}`, 'last-event-id': '0' } });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes(name)) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(text).toMatch(/^id: \d+\nevent: resource_change\n/m);
    expect(text).not.toContain('event: api_call');
  });

  it('exports Prometheus metrics and an OpenAPI 3.1 document', async () => {
    await sc.client.servers.list();
    const text = await (await fetch(`${sc.url}/metrics`)).text();
    expect(text).toMatch(/simcloud_http_requests_total\{method="GET",route="\/v1\/servers",status="200"\} \d+/);
    expect(text).toContain('simcloud_http_request_duration_seconds_bucket');
    expect(text).toContain('simcloud_actions_total');
    const doc = (await (await fetch(`${sc.url}/openapi.json`)).json()) as { openapi: string; paths: Record<string, Record<string, { operationId: string }>> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/v1/servers/{id}']!.get!.operationId).toBe('servers.get');
    expect(Object.keys(doc.paths).length).toBeGreaterThan(20);
  });
});
