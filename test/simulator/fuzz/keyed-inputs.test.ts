// Every input a client keys a lookup with, tried with the names an object inherits: each answers as for any
// other unknown name (a 401, 404, empty list or refusal naming the field), never a 500 and never a match.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { phoenixnapAccessToken } from '../../../sandbox/cloud/phoenixnap/env.ts';
import { startSimcloudInProcess, type InProcessSimcloud } from '../../helpers/simcloud.ts';

const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'] as const;
const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');

let sc: InProcessSimcloud;
let pnap: string;

beforeAll(async () => {
  sc = await startSimcloudInProcess();
  pnap = await phoenixnapAccessToken(sc.url, sc.token);
  const { action } = await sc.client.servers.create({ name: 'keyed', server_type: 'sc-small', image: 'ubuntu-24.04', zone: 'sim-1a', labels: { role: 'x' } });
  await sc.client.waitForAction(action.id);
  await sc.client.ipBlocks.allocate({ location: 'sim-1', tags: { k: 'v' } });
});

afterAll(async () => {
  await sc?.stop();
});

async function call(
  path: string,
  opts: { token?: string; method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; text: string }> {
  const res = await fetch(`${sc.url}${path}`, {
    method: opts.method ?? 'GET',
    body: opts.body,
    headers: { authorization: `Bearer ${opts.token ?? sc.token}`, 'content-type': 'application/json', ...opts.headers },
  });
  return { status: res.status, text: await res.text() };
}

describe.each(NAMES)('the name %s', (name) => {
  it('as a phoenixNAP access token subject is a 401, not a lookup', async () => {
    const forged = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: name, exp: 4_102_444_800, iat: 0, azp: 'x', scope: 'bmc', iss: 'x' })}.${'A'.repeat(43)}`;
    expect((await call('/pnap/bmc/v1/servers', { token: forged })).status).toBe(401);
  });

  it('as a phoenixNAP tag filter matches nothing', async () => {
    for (const path of ['/pnap/bmc/v1/servers', '/pnap/ips/v1/ip-blocks']) {
      const r = await call(`${path}?tag=${encodeURIComponent(name)}`, { token: pnap });
      expect(r.status, r.text).toBe(200);
      expect(JSON.parse(r.text)).toEqual([]);
    }
  });

  it('as a phoenixNAP tag name is one tag like any other (or refused naming it)', async () => {
    const r = await call('/pnap/ips/v1/ip-blocks', {
      token: pnap,
      method: 'POST',
      body: `{"location":"sim-1","tags":[{"name":${JSON.stringify(name)},"value":"v"}]}`,
    });
    // A tag is a label: `__proto__` is no label name (it starts with an underscore); the others are.
    if (name === '__proto__') expect([r.status, r.text]).toEqual([400, expect.stringContaining('tags.0.name')]);
    else expect(r.status, r.text).toBe(201);
  });

  it('as a /v1 label key or IP-block tag is refused naming the field, or kept', async () => {
    const labels = await call('/v1/servers', {
      method: 'POST',
      body: `{"name":"k-${name.replace(/_/g, '')}","server_type":"sc-small","image":"ubuntu-24.04","zone":"sim-1a","labels":{${JSON.stringify(name)}:"v"}}`,
    });
    expect(labels.status, labels.text).toBe(name === '__proto__' ? 400 : 201);
    if (name === '__proto__') expect(labels.text).toContain('labels.__proto__');
    const filtered = await call(`/v1/ip_blocks?tags=${encodeURIComponent(`${name}=`)}`);
    expect(filtered.status, filtered.text).toBe(200);
    expect((JSON.parse(filtered.text) as { ip_blocks: unknown[] }).ip_blocks).toEqual([]);
  });

  it('as a DigitalOcean tag is a tag like any other (or refused naming it)', async () => {
    const r = await call('/v2/droplets', {
      method: 'POST',
      body: JSON.stringify({ name: `do-${name.replace(/_/g, '')}`, region: 'sim-1', size: 'sc-small', image: 'ubuntu-24.04', tags: [name, `${name}:x`] }),
    });
    expect(r.status, r.text).toBe(422);
    expect(r.text).toContain('tags.');
  });

  it('as a Linode X-Filter field or operator is no match or a refusal naming X-Filter', async () => {
    for (const filter of [`{${JSON.stringify(name)}:"x"}`, `{"label":{${JSON.stringify(name)}:"x"}}`, `{"+order_by":${JSON.stringify(name)}}`]) {
      const r = await call('/v4/linode/instances', { headers: { 'x-filter': filter } });
      expect(r.status, `${filter}: ${r.text}`).toBeLessThan(500);
      if (r.status === 200) expect((JSON.parse(r.text) as { data: unknown[] }).data.length, filter).toBeLessThanOrEqual(filter.includes('order_by') ? 10 : 0);
      else expect(r.text, filter).toContain('X-Filter');
    }
  });

  it('as a path id is a 404 on every API (DigitalOcean: 422, its answer to an id that is not a number)', async () => {
    for (const path of [
      `/v1/servers/${name}`,
      `/hcloud/v1/servers/${name}`,
      `/v4/linode/instances/${name}`,
      `/v2/droplets/${name}`,
      `/brightbox/1.0/servers/${name}`,
    ]) {
      const r = await call(path, path.startsWith('/brightbox') ? { token: 'x' } : {});
      expect(r.status, `${path}: ${r.text}`).toBe(path.startsWith('/brightbox') ? 401 : path.startsWith('/v2') ? 422 : 404);
    }
    expect((await call(`/pnap/bmc/v1/servers/${name}`, { token: pnap })).status).toBe(404);
  });
});
