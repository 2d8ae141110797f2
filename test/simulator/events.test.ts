// The `/_sim/events` stream of a real `simcloud serve` process, read by the sandbox's own reader: every
// event it sends parses with the wire schema, each resource change carries the record of its type, the
// data plane's health checks arrive as target_health events, and the cloud-provider method header is kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimEvent } from '../../simulator/api/schema/events.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { recordSimEvents, runCloudScenario, type CloudScenario, type SimEventRecorder } from '../helpers/sim-events.ts';
import { followSimEvents } from '../../sandbox/cloud/events.ts';
import { claimLoopbackAddressPlan } from '../../sandbox/cloud/address-plan.ts';
import { startSimcloudProcess, type SimcloudProcess } from '../helpers/simcloud.ts';

// A loopback address plan of its own, so parallel simclouds and sandboxes never bind the same VIP or server address.
const plan = claimLoopbackAddressPlan();
let sc: SimcloudProcess;
let rec: SimEventRecorder;
let scenario: CloudScenario;
/** A second follower, asking for calls and server changes only. */
const narrow: SimEvent[] = [];
const narrowErrors: unknown[] = [];
const narrowAbort = new AbortController();

beforeAll(async () => {
  sc = await startSimcloudProcess({ args: ['--delay-ms', '20', ...plan.plan.simcloudArgs] });
  rec = await recordSimEvents(sc);
  const only = { types: ['api_call', 'resource_change'], resources: ['server'] } as const;
  void followSimEvents({
    endpoint: sc.url,
    adminToken: sc.adminToken,
    signal: narrowAbort.signal,
    only,
    onEvent: (e) => narrow.push(e),
    onError: (err) => narrowErrors.push(err),
  });
  await waitFor(async () => (await sc.admin.health({ caller: 'narrow-probe' }), narrow.some((e) => e.type === 'api_call' && e.caller === 'narrow-probe')), {
    description: 'the narrow stream to carry a call',
    timeoutMs: 15_000,
    intervalMs: 50,
  });
  scenario = await runCloudScenario(sc, rec, { 'ccm-sandbox.dev/cluster': 'events-test' });
}, 60_000);
afterAll(async () => {
  narrowAbort.abort();
  rec?.stop();
  await sc?.stop();
  plan.release();
});

const changesOf = (id: string): Extract<SimEvent, { type: 'resource_change' }>[] =>
  rec.events.filter((e): e is Extract<SimEvent, { type: 'resource_change' }> => e.type === 'resource_change' && e.resource_id === id);

describe('/_sim/events from a real simcloud process', () => {
  it('sends only events the wire schema accepts, of all three kinds', () => {
    expect(rec.errors).toEqual([]);
    expect(new Set(rec.events.map((e) => e.type))).toEqual(new Set(['api_call', 'resource_change', 'target_health']));
    const types = new Set(rec.events.flatMap((e) => (e.type === 'resource_change' ? [e.resource_type] : [])));
    expect([...types].sort()).toEqual(['action', 'firewall_policy', 'ip_block', 'load_balancer', 'network', 'server', 'server_group', 'tombstone']);
  });

  it('carries the stored record of its type with each change, and null on delete', () => {
    const server = changesOf(scenario.serverId);
    expect(server.map((e) => e.change)).toEqual(expect.arrayContaining(['created', 'updated', 'deleted']));
    const statuses = server.flatMap((e) => (e.resource_type === 'server' && e.resource ? [e.resource.status] : []));
    expect(statuses).toEqual(expect.arrayContaining(['initializing', 'running', 'off', 'deleting']));
    expect(server.at(-1)).toMatchObject({ change: 'deleted', resource: null });
    const lb = changesOf(scenario.loadBalancerId).flatMap((e) =>
      e.resource_type === 'load_balancer' && e.resource?.status === 'active' ? [e.resource] : [],
    )[0];
    expect(lb).toMatchObject({ labels: { 'simcloud.dev/service': 'default.web' } });
    expect(lb?.project_id).toMatch(/^prj-/);
    const routes = changesOf(scenario.networkId).flatMap((e) => (e.resource_type === 'network' && e.resource ? [e.resource.routes.length] : []));
    expect(routes).toEqual(expect.arrayContaining([0, 1]));
  });

  it('names the request that made each change, or started the action that made it', () => {
    const created = changesOf(scenario.serverId).find((e) => e.change === 'created');
    const call = rec.events.find((e) => e.type === 'api_call' && e.method === 'POST' && e.path === '/v1/servers');
    expect(created?.request_id).toMatch(/^req-/);
    expect(call?.type === 'api_call' ? call.request_id : undefined).toBe(created?.request_id);
    // The server goes from initializing to running when its create action finishes on simcloud's clock, after
    // other requests have come and gone: the change is still the create's.
    const running = changesOf(scenario.serverId).find((e) => e.resource_type === 'server' && e.resource?.status === 'running');
    expect(running?.request_id).toBe(created?.request_id);
  });

  it('reports target health as target_health events, never as a load balancer change', () => {
    const health = rec.events.filter((e) => e.type === 'target_health');
    expect(health.map((e) => [e.load_balancer_id, e.target_id, e.listen_port, e.status])).toEqual(
      expect.arrayContaining([
        [scenario.loadBalancerId, scenario.serverId, scenario.listenPort, 'healthy'],
        [scenario.loadBalancerId, scenario.serverId, scenario.listenPort, 'unhealthy'],
      ]),
    );
    for (const e of changesOf(scenario.loadBalancerId)) expect(e.resource === null || 'status' in e.resource).toBe(true);
  });

  it('records the caller and cloud-provider method headers of each call, null when absent', async () => {
    const res = await fetch(`${sc.url}/v1/servers`, {
      headers: { authorization: `Bearer ${sc.token}`, 'x-simcloud-caller': 'cloud-node-controller w1', 'x-simcloud-method': 'InstanceMetadata' },
    });
    expect(res.status).toBe(200);
    const call = await rec.next('the call with the method header', (e) => e.type === 'api_call' && e.caller === 'cloud-node-controller w1');
    expect(call).toMatchObject({ method: 'GET', path: '/v1/servers', upstream_method: 'InstanceMetadata' });
    const plain = rec.events.find((e) => e.type === 'api_call' && e.path === '/v1/networks' && e.method === 'POST');
    expect(plain).toMatchObject({ upstream_method: null, caller: 'test' });
  });

  it('records a call whose client went away before the answer, and counts it in flight until it ends', async () => {
    const fault = await sc.admin.addFault({ kind: 'latency', latency_ms: 400, match: { method: 'POST', path: '/v1/networks' } });
    const abort = new AbortController();
    const sent = fetch(`${sc.url}/v1/networks`, {
      method: 'POST',
      signal: abort.signal,
      body: JSON.stringify({ name: 'abandoned' }),
      headers: { authorization: `Bearer ${sc.token}`, 'content-type': 'application/json', 'x-simcloud-caller': 'killed-client' },
    }).catch(() => 'aborted');
    const inFlight = async (): Promise<number> => Number(/^simcloud_http_requests_in_flight (\d+)/m.exec(await (await fetch(`${sc.url}/metrics`)).text())?.[1]);
    // The held call and the metrics read itself.
    await waitFor(async () => (await inFlight()) >= 2, { description: 'the fault to hold the call', timeoutMs: 5000, intervalMs: 20 });
    abort.abort();
    expect(await sent).toBe('aborted');
    const call = await rec.next('the abandoned call recorded', (e) => e.type === 'api_call' && e.caller === 'killed-client');
    expect(call).toMatchObject({ method: 'POST', path: '/v1/networks', status: 201 });
    expect((await sc.client.networks.listAll()).map((n) => n.name)).toContain('abandoned');
    expect(await inFlight()).toBe(1);
    await sc.admin.deleteFault(fault.id);
  });

  it('sends a follower that asks for some kinds and resource types exactly those events of the whole stream', () => {
    expect(narrowErrors).toEqual([]);
    const from = narrow[0]!.seq;
    const wanted = (e: SimEvent): boolean => e.type === 'api_call' || (e.type === 'resource_change' && e.resource_type === 'server');
    expect(narrow.map((e) => e.seq)).toEqual(rec.events.filter((e) => e.seq >= from && e.seq <= narrow.at(-1)!.seq && wanted(e)).map((e) => e.seq));
    expect(narrow.some((e) => e.type === 'resource_change' && e.resource_id === scenario.serverId)).toBe(true);
    expect(rec.events.some((e) => e.seq > from && e.type === 'resource_change' && e.resource_type === 'network')).toBe(true);
  });

  it('refuses an unknown event kind or resource type with a 400 naming the parameter', async () => {
    for (const [query, name] of [
      ['types=api_call,nope', 'types'],
      ['resources=server,routers', 'resources'],
      ['resources=', 'resources'],
    ] as const) {
      const res = await fetch(`${sc.url}/_sim/events?${query}`, { headers: { authorization: `Bearer ${sc.adminToken}` } });
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as { error: { code: string; details: { fields: { name: string }[] } } };
      expect(body.error.code).toBe('invalid_input');
      expect(body.error.details.fields.map((f) => f.name)).toEqual([name]);
    }
  });
});
