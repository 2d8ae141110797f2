// Each fault kind observed through the typed client exactly as configured; the client honours Retry-After.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SimcloudClient } from '../../simulator/api/client/index.ts';
import type { SimcloudProcess } from '../helpers/simcloud.ts';
import { apiError, lbBody, serverBody, startContractProcess } from './support.ts';

let sc: SimcloudProcess;
beforeAll(async () => {
  sc = await startContractProcess();
});
afterEach(async () => {
  await sc.admin.clearFaults();
});
afterAll(async () => {
  await sc?.stop();
});

const elapsed = async (fn: () => Promise<unknown>): Promise<number> => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};

describe('faults', () => {
  it('latency: adds the configured delay to matching requests only, count times', async () => {
    await sc.admin.addFault({ kind: 'latency', latency_ms: 800, count: 1, match: { method: 'GET', path: '/v1/servers' } });
    expect(await elapsed(() => sc.client.catalogue.regions())).toBeLessThan(600);
    expect(await elapsed(() => sc.client.servers.list())).toBeGreaterThanOrEqual(790);
    expect(await elapsed(() => sc.client.servers.list())).toBeLessThan(600);
    expect((await sc.admin.listFaults())[0]!.fired).toBe(1);
  });

  it('error: answers the configured status and code, then stops after count', async () => {
    await sc.admin.addFault({ kind: 'error', status: 503, code: 'service_unavailable', message: 'maintenance', count: 2, match: { path: '/v1/networks' } });
    for (let i = 0; i < 2; i++) {
      const err = await apiError(() => sc.client.networks.list());
      expect(err).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(err.message).toContain('maintenance');
    }
    await sc.client.networks.list();
  });

  it('error with probability fires about that often', async () => {
    await sc.admin.addFault({ kind: 'error', status: 500, code: 'server_error', probability: 0.5, match: { path: '/v1/images' } });
    let failures = 0;
    for (let i = 0; i < 200; i++) await sc.client.catalogue.images().catch(() => failures++);
    expect(failures).toBeGreaterThan(60);
    expect(failures).toBeLessThan(140);
  });

  it('rate_limit: a per-token budget with RateLimit headers, then 429 with Retry-After', async () => {
    const [project] = await sc.admin.listProjects();
    const tok = await sc.admin.createToken(project!.id, { name: 'limited' });
    await sc.admin.addFault({ kind: 'rate_limit', limit: 3, window_seconds: 60, match: { token: tok.id } });
    const limited = sc.clientFor(tok.token, { retry: { maxRetries: 0 } });
    for (let i = 0; i < 3; i++) await limited.catalogue.zones();
    const res = await fetch(`${sc.url}/v1/zones`, { headers: { authorization: `Bearer ${tok.token}` } });
    expect(res.status).toBe(429);
    expect(res.headers.get('ratelimit-limit')).toBe('3');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    const err = await apiError(() => limited.catalogue.zones());
    expect(err.code).toBe('rate_limit_exceeded');
    expect(err.retryAfterMs).toBeGreaterThan(0);
    await sc.client.catalogue.zones(); // other tokens are unaffected
  });

  it.each([
    ['/hcloud/v1/servers', 'ratelimit'],
    ['/v4/linode/instances', 'x-ratelimit'],
    ['/v2/droplets', 'ratelimit'],
  ] as const)("a 429 on %s carries that provider's rate-limit headers (%s-*, reset a Unix time)", async (path, name) => {
    await sc.admin.addFault({ kind: 'rate_limit', limit: 1, window_seconds: 60, match: { path } });
    const get = (): Promise<Response> => fetch(`${sc.url}${path}`, { headers: { authorization: `Bearer ${sc.token}` } });
    await get();
    const res = await get();
    expect(res.status).toBe(429);
    expect(res.headers.get(`${name}-limit`)).toBe('1');
    expect(res.headers.get(`${name}-remaining`)).toBe('0');
    expect(Number(res.headers.get(`${name}-reset`))).toBeGreaterThan(Date.now() / 1000);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a configured default budget (--rate-limit) limits every token and sends RateLimit headers', async () => {
    const limited = await startContractProcess(['--rate-limit', '2/60', '--no-destructive']);
    try {
      const first = await fetch(`${limited.url}/v1/zones`, { headers: { authorization: `Bearer ${limited.token}` } });
      expect(first.headers.get('ratelimit-remaining')).toBe('1');
      await limited.client.catalogue.zones();
      const err = await apiError(() => limited.client.catalogue.zones());
      expect(err).toMatchObject({ code: 'rate_limit_exceeded', status: 429 });
      expect(err.retryAfterMs).toBeGreaterThan(0);
      expect((await apiError(() => limited.admin.reset())).code).toBe('forbidden');
    } finally {
      await limited.stop();
    }
  });

  it('the client honours Retry-After before retrying', async () => {
    await sc.admin.addFault({ kind: 'error', status: 429, code: 'rate_limit_exceeded', retry_after_seconds: 1, count: 1, match: { path: '/v1/regions' } });
    const slept: number[] = [];
    const retrying = new SimcloudClient({
      endpoint: sc.url,
      token: sc.token,
      sleep: async (ms) => {
        slept.push(ms);
        await new Promise((r) => setTimeout(r, ms));
      },
    });
    const ms = await elapsed(() => retrying.catalogue.regions());
    expect(slept).toEqual([1000]);
    expect(ms).toBeGreaterThanOrEqual(1000);
  });

  it('eventual_consistency: new servers stay out of lists for hide_seconds but are gettable', async () => {
    await sc.admin.addFault({ kind: 'eventual_consistency', hide_seconds: 30, match: { resource_type: 'server' } });
    const { server } = await sc.client.servers.create(serverBody({ labels: { ec: 'x' } }));
    expect((await sc.client.servers.list({ label_selector: 'ec=x' })).servers).toEqual([]);
    expect((await sc.client.servers.get(server.id)).id).toBe(server.id);
    await sc.admin.fastForward(31_000);
    expect((await sc.client.servers.list({ label_selector: 'ec=x' })).servers.map((s) => s.id)).toEqual([server.id]);
  });

  it('stuck_transition: LBs stay provisioning while the rule exists, then finish', async () => {
    const rule = await sc.admin.addFault({ kind: 'stuck_transition', match: { resource_type: 'load_balancer' } });
    const { load_balancer: lb, action } = await sc.client.loadBalancers.create(lbBody());
    await sc.admin.fastForward(60_000);
    await new Promise((r) => setTimeout(r, 100));
    expect((await sc.client.loadBalancers.get(lb.id)).status).toBe('provisioning');
    expect((await sc.client.actions.get(action.id)).status).toBe('running');
    await sc.admin.deleteFault(rule.id);
    await sc.client.waitForAction(action.id);
    expect((await sc.client.loadBalancers.get(lb.id)).status).toBe('active');
  });

  it('intermittent_not_found: GET of a labelled server answers not_found; others and lists are unaffected', async () => {
    const chaos = await sc.client.servers.create(serverBody({ labels: { chaos: 'true' } }));
    const calm = await sc.client.servers.create(serverBody());
    await sc.admin.addFault({ kind: 'intermittent_not_found', match: { label: 'chaos=true' }, probability: 1 });
    expect((await apiError(() => sc.client.servers.get(chaos.server.id))).code).toBe('not_found');
    expect((await sc.client.servers.get(calm.server.id)).id).toBe(calm.server.id);
    expect((await sc.client.servers.list({ label_selector: 'chaos=true' })).servers).toHaveLength(1);
  });

  it('matches faults by token and resource label', async () => {
    const [project] = await sc.admin.listProjects();
    const tok = await sc.admin.createToken(project!.id, { name: 'faulty' });
    await sc.admin.addFault({ kind: 'error', status: 503, code: 'service_unavailable', match: { token: tok.id } });
    const faulty = sc.clientFor(tok.token, { retry: { maxRetries: 0 } });
    expect((await apiError(() => faulty.catalogue.regions())).code).toBe('service_unavailable');
    await sc.client.catalogue.regions();
  });
});
