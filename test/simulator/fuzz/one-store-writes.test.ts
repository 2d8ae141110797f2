// Writes the fuzz suite's one-store check found /v1 unable to present: Linode and phoenixNAP stored tags that are no
// label (`;`, `tiP9.`, a value `.`), Linode labels and phoenixNAP public network names over 63 characters, a Linode
// node address that is none, Brightbox names of any text and firewall rules whose ports or addresses are none, and
// from then on /v1's list of that collection answered 500 to every client.
// Each such write is refused in the persona's envelope, naming the field, and /v1 still lists what the personas
// stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { numericIdOf } from '../../../simulator/personas/numeric-ids.ts';
import { startSimcloudInProcess, type InProcessSimcloud } from '../../helpers/simcloud.ts';
import { PERSONA_ROWS } from '../../security/persona-rows.ts';
import type { RawResponse } from '../../security/support.ts';

let sc: InProcessSimcloud;
/** A Brightbox firewall policy the rule cases add to. */
let policy = '';
beforeAll(async () => {
  sc = await startSimcloudInProcess({ clientOptions: { retry: { maxRetries: 0 } } });
  const made = await call('brightbox', 'POST', '/brightbox/1.0/firewall_policies', { name: 'one-store-policy' });
  policy = (made.json() as { id: string }).id;
});
afterAll(() => sc.stop());

const row = (name: string): (typeof PERSONA_ROWS)[number] => PERSONA_ROWS.find((r) => r.name === name)!;

async function call(persona: string, method: string, path: string, body: unknown): Promise<RawResponse> {
  const bearer = (await row(persona).bearer?.(sc.url, sc.token)) ?? sc.token;
  const r = await fetch(`${sc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, headers: {}, text, json: () => JSON.parse(text) as unknown };
}

/** A server made through /v1 and running (no action left to write), by its number (every persona names it by that). */
let servers = 0;
async function server(): Promise<number> {
  const { server: s, action } = await sc.client.servers.create({
    name: `one-store-${++servers}`,
    server_type: 'sc-small',
    image: 'ubuntu-24.04',
    zone: 'sim-1a',
  });
  await sc.client.waitForAction(action.id, { intervalMs: 5 });
  return numericIdOf(s.id);
}

const pnapId = (n: number): string => `a1${String(n).padStart(22, '0')}`;
const pnapServer = { hostname: 'one-store-pnap', os: 'ubuntu-24.04', type: 'sc-small', location: 'sim-1' };

const CASES: readonly { persona: string; write: string; request: (srv: number) => [method: string, path: string, body: unknown]; field: string }[] = [
  {
    persona: 'linode',
    write: 'an instance tagged `;`',
    request: () => ['POST', '/v4/linode/instances', { region: 'sim-1', type: 'sc-small', label: 'one-store-lin', tags: ['web', ';'] }],
    field: 'tags.1',
  },
  { persona: 'linode', write: 'an instance retagged `a=.`', request: (srv) => ['PUT', `/v4/linode/instances/${srv}`, { tags: ['a=.'] }], field: 'tags.0' },
  {
    persona: 'linode',
    write: 'a NodeBalancer tagged `tiP9.`',
    request: () => ['POST', '/v4/nodebalancers', { region: 'sim-1', label: 'one-store-nb', tags: ['tiP9.'] }],
    field: 'tags.0',
  },
  {
    persona: 'linode',
    write: 'a reserved IP tagged `h<J:W`',
    request: () => ['POST', '/v4/networking/reserved/ips', { region: 'sim-1', tags: ['h<J:W'] }],
    field: 'tags.0',
  },
  {
    persona: 'phoenixnap',
    write: 'a server tagged P with the value `.`',
    request: () => ['POST', '/pnap/bmc/v1/servers', { ...pnapServer, tags: [{ name: 'P', value: '.' }] }],
    field: 'tags.0.value',
  },
  {
    persona: 'phoenixnap',
    write: 'a server retagged with the value `a.`',
    request: (srv) => ['PUT', `/pnap/bmc/v1/servers/${pnapId(srv)}/tags`, [{ name: 'zone', value: 'a.' }]],
    field: '0.value',
  },
  {
    persona: 'linode',
    write: 'an instance labelled with 64 characters',
    request: () => ['POST', '/v4/linode/instances', { region: 'sim-1', type: 'sc-small', label: 'a'.repeat(64) }],
    field: 'label',
  },
  {
    persona: 'linode',
    write: 'a VPC labelled with 64 characters',
    request: () => ['POST', '/v4/vpcs', { region: 'sim-1', label: 'a'.repeat(64) }],
    field: 'label',
  },
  {
    persona: 'linode',
    write: 'a NodeBalancer node at `25.33.677.52:80`',
    request: () => [
      'POST',
      '/v4/nodebalancers',
      { region: 'sim-1', label: 'one-store-nb2', configs: [{ port: 80, nodes: [{ address: '25.33.677.52:80', label: 'node-1' }] }] },
    ],
    field: 'configs.0.nodes.0.address',
  },
  {
    persona: 'phoenixnap',
    write: 'a public network named with 64 characters',
    request: () => ['POST', '/pnap/networks/v1/public-networks', { name: 'a'.repeat(64), location: 'sim-1' }],
    field: 'name',
  },
  { persona: 'brightbox', write: 'a server group named `k>/`', request: () => ['POST', '/brightbox/1.0/server_groups', { name: 'k>/' }], field: 'name' },
  {
    persona: 'brightbox',
    write: 'a firewall policy named `*+&]`',
    request: () => ['POST', '/brightbox/1.0/firewall_policies', { name: '*+&]' }],
    field: 'name',
  },
  { persona: 'brightbox', write: 'a load balancer named `a b`', request: () => ['POST', '/brightbox/1.0/load_balancers', { name: 'a b' }], field: 'name' },
  {
    persona: 'brightbox',
    write: 'a firewall rule for the ports `80,10.0.0.0/33`',
    request: () => ['POST', '/brightbox/1.0/firewall_rules', { firewall_policy: policy, protocol: 'tcp', destination_port: '80,10.0.0.0/33' }],
    field: 'destination_port',
  },
  {
    persona: 'brightbox',
    write: 'a firewall rule from `300.0.0.0/8`',
    request: () => ['POST', '/brightbox/1.0/firewall_rules', { firewall_policy: policy, source: '300.0.0.0/8' }],
    field: 'source',
  },
];

describe('writes a persona stores for /v1 to show', () => {
  it.each(CASES)('$persona refuses $write, naming $field, and stores nothing', async ({ persona, request, field }) => {
    const srv = await server();
    const before = sc.sim.store.state.seq;
    const [method, path, body] = request(srv);
    const r = await call(persona, method, path, body);
    expect(r.status, r.text).toBe(400);
    expect(row(persona).read(r).fields, r.text).toContain(field);
    expect(sc.sim.store.state.seq).toBe(before);
  });

  it('leaves /v1 able to list every collection the personas wrote, the labels they made included', async () => {
    const made = await call('linode', 'POST', '/v4/linode/instances', { region: 'sim-1', type: 'sc-small', label: 'one-store-ok', tags: ['team=a.b', 'web'] });
    expect(made.status, made.text).toBe(200);
    const id = `srv-${String((made.json() as { id: number }).id).padStart(8, '0')}`;
    expect((await sc.client.servers.get(id)).labels).toEqual({ team: 'a.b', web: '' });
    for (const coll of ['servers', 'load_balancers', 'ip_blocks', 'networks', 'server_groups', 'firewall_policies'] as const) {
      const r = await fetch(`${sc.url}/v1/${coll}?per_page=500`, { headers: { authorization: `Bearer ${sc.token}` } });
      expect(r.status, `${coll}: ${await r.clone().text()}`).toBe(200);
    }
  });
});
