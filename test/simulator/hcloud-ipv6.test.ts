// IPv6 in the Hetzner persona: servers and load balancers show the public IPv6 simcloud gives them (a server its
// /64 network, as Hetzner does; a load balancer its address), and change_dns_ptr takes a load balancer's IPv6
// and any address of a server's /64.
// Hetzner's CCM writes a load balancer's public_net.ipv6.ip into the Service status by default (a null there
// made the status invalid: `ingress[1].ip: Invalid value: "<nil>"`) and sends it to change_dns_ptr for its
// load-balancer.hetzner.cloud/ipv6-rdns annotation. The addresses are data only: nothing listens on them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { waitFor } from '../../sandbox/wait.ts';
import { startSimcloudInProcess, type InProcessSimcloud } from '../helpers/simcloud.ts';
import { unique } from './support.ts';

let sc: InProcessSimcloud;
beforeAll(async () => {
  sc = await startSimcloudInProcess({ config: { dataplane: false }, clientOptions: { retry: { maxRetries: 0 } } });
});
afterAll(async () => {
  await sc?.stop();
});

const HAction = z.object({ id: z.number(), status: z.string() });
const HServer = z.object({
  id: z.number(),
  public_net: z.object({
    ipv4: z.object({ ip: z.string(), dns_ptr: z.string() }).nullable(),
    ipv6: z.object({ ip: z.string(), blocked: z.boolean(), dns_ptr: z.array(z.object({ ip: z.string(), dns_ptr: z.string() })) }).nullable(),
  }),
});
const HLoadBalancer = z.object({
  id: z.number(),
  public_net: z.object({ ipv4: z.object({ ip: z.string(), dns_ptr: z.string() }), ipv6: z.object({ ip: z.string(), dns_ptr: z.string() }) }),
});
const HError = z.object({ error: z.object({ code: z.string(), details: z.object({ fields: z.array(z.object({ name: z.string() })) }).optional() }) });

async function hcloud<T>(schema: z.ZodType<T>, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${sc.url}/hcloud/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${sc.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: schema.parse(await res.json()) };
}

async function finished(id: number): Promise<void> {
  await waitFor(
    async () => {
      const { body } = await hcloud(z.object({ action: HAction }), 'GET', `/actions/${id}`);
      return body.action.status === 'success' ? true : undefined;
    },
    { timeoutMs: 10_000, intervalMs: 20, description: `action ${id}` },
  );
}

const simId = (prefix: string, n: number): string => `${prefix}-${String(n).padStart(8, '0')}`;

async function server(publicNet?: { enable_ipv4: boolean; enable_ipv6: boolean }): Promise<z.infer<typeof HServer>> {
  const made = await hcloud(z.object({ server: HServer, action: HAction }), 'POST', '/servers', {
    name: unique('v6'),
    server_type: 'sc-small',
    image: 'debian-13',
    location: 'sim-1',
    ...(publicNet === undefined ? {} : { public_net: publicNet }),
  });
  expect(made.status).toBe(201);
  await finished(made.body.action.id);
  return made.body.server;
}

describe('IPv6 in the Hetzner persona', () => {
  it("shows a server's public IPv6 as its /64 network, the one simcloud gave it, and none when create asks for none", async () => {
    const s = await server();
    const v1 = await sc.client.servers.get(simId('srv', s.id));
    expect(v1.public_ipv6).toMatch(/^2001:db8:1:(?:[0-9a-f]{1,4}:)?:1$/);
    expect(s.public_net.ipv6).toEqual({ ip: `${v1.public_ipv6!.slice(0, -1)}/64`, blocked: false, dns_ptr: [] });
    expect((await server({ enable_ipv4: true, enable_ipv6: false })).public_net.ipv6).toBeNull();
    const v6only = await server({ enable_ipv4: false, enable_ipv6: true });
    expect(v6only.public_net.ipv4).toBeNull();
    expect(v6only.public_net.ipv6?.ip).toMatch(/^2001:db8:1:[0-9a-f:]*\/64$/);
  });

  it("shows a load balancer's public IPv6 and sets its reverse DNS through change_dns_ptr, in any spelling of the address", async () => {
    const made = await hcloud(z.object({ load_balancer: HLoadBalancer, action: HAction }), 'POST', '/load_balancers', {
      name: unique('lb6'),
      load_balancer_type: 'lb11',
      location: 'sim-1',
    });
    expect(made.status).toBe(201);
    await finished(made.body.action.id);
    const { id, public_net: net } = made.body.load_balancer;
    expect(net.ipv6.ip).toBe((await sc.client.loadBalancers.get(simId('lb', id))).public_ipv6);
    expect(net.ipv6.ip).toMatch(/^2001:db8:2::[0-9a-f]{1,4}$/);

    const spelled = net.ipv6.ip.replace('2001:db8:2::', '2001:0db8:0002:0:0:0:0:'); // hcloud-go sends Go's form; any form is the address
    const set = await hcloud(z.object({ action: HAction }), 'POST', `/load_balancers/${id}/actions/change_dns_ptr`, {
      ip: spelled,
      dns_ptr: 'lb6.example.test',
    });
    expect(set.status).toBe(201);
    await finished(set.body.action.id);
    const after = await hcloud(z.object({ load_balancer: HLoadBalancer }), 'GET', `/load_balancers/${id}`);
    expect(after.body.load_balancer.public_net).toMatchObject({ ipv6: { ip: net.ipv6.ip, dns_ptr: 'lb6.example.test' }, ipv4: { dns_ptr: net.ipv4.dns_ptr } });

    const reset = await hcloud(z.object({ action: HAction }), 'POST', `/load_balancers/${id}/actions/change_dns_ptr`, { ip: net.ipv6.ip, dns_ptr: null });
    await finished(reset.body.action.id);
    expect((await hcloud(z.object({ load_balancer: HLoadBalancer }), 'GET', `/load_balancers/${id}`)).body.load_balancer.public_net.ipv6.dns_ptr).toBe(
      net.ipv6.dns_ptr,
    );

    const wrong = await hcloud(HError, 'POST', `/load_balancers/${id}/actions/change_dns_ptr`, { ip: '2001:db8:2::ffff:ffff', dns_ptr: 'x.example.test' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'invalid_input', details: { fields: [{ name: 'ip' }] } });
  });

  it("sets a server's reverse DNS for its IPv4 and for any address of its IPv6 /64, kept off /v1", async () => {
    const s = await server();
    const net = s.public_net.ipv6!.ip.replace('/64', '');
    const set = async (ip: string, name: string | null): Promise<number> => {
      const res = await hcloud(z.object({ action: HAction.extend({ command: z.string() }) }), 'POST', `/servers/${s.id}/actions/change_dns_ptr`, {
        ip,
        dns_ptr: name,
      });
      expect(res.body.action.command).toBe('change_dns_ptr');
      await finished(res.body.action.id);
      return res.status;
    };
    expect(await set(`${net}1`, 'node.example.test')).toBe(201);
    expect(await set(`${net}abcd`, 'other.example.test')).toBe(201);
    expect(await set(s.public_net.ipv4!.ip, 'v4.example.test')).toBe(201);
    let got = (await hcloud(z.object({ server: HServer }), 'GET', `/servers/${s.id}`)).body.server.public_net;
    expect(got.ipv4?.dns_ptr).toBe('v4.example.test');
    expect(got.ipv6?.dns_ptr).toEqual([
      { ip: `${net}1`, dns_ptr: 'node.example.test' },
      { ip: `${net}abcd`, dns_ptr: 'other.example.test' },
    ]);
    await set(`${net}abcd`, null);
    got = (await hcloud(z.object({ server: HServer }), 'GET', `/servers/${s.id}`)).body.server.public_net;
    expect(got.ipv6?.dns_ptr).toEqual([{ ip: `${net}1`, dns_ptr: 'node.example.test' }]);
    expect(await sc.client.servers.get(simId('srv', s.id))).not.toHaveProperty('dialect_attrs');

    const outside = await hcloud(HError, 'POST', `/servers/${s.id}/actions/change_dns_ptr`, { ip: '2001:db8:ffff::1', dns_ptr: 'x.example.test' });
    expect(outside.status).toBe(400);
    expect(outside.body.error).toMatchObject({ code: 'invalid_input', details: { fields: [{ name: 'ip' }] } });
  });
});
