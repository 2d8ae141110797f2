// The provider personas' HTTP surface against hostile requests, one table row per persona (persona-rows.ts):
// every route that takes an id aimed at another project's resource, the other project's ids inside one's own
// requests, lists, missing and wrong tokens, DNS-rebinding Host headers, foreign Origins, oversized and
// malformed bodies, path traversal in ids. Each refusal is checked for its answer in the persona's own error
// envelope AND for the store's commit sequence not having moved.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SimcloudClient } from '../../simulator/api/client/index.ts';
import { numericIdOf, simcloudId } from '../../simulator/personas/numeric-ids.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { startSimcloudInProcess, type InProcessSimcloud } from '../helpers/simcloud.ts';
import { PERSONA_ROWS, type PersonaRow, type Owned } from './persona-rows.ts';
import { hostileHosts, loopbackHosts, raw, unchangedBy, type RawResponse } from './support.ts';

async function createAll(client: SimcloudClient, tag: string, token: string): Promise<Owned> {
  const net = tag === 'own' ? 20 : 30;
  const { server, action } = await client.servers.create({
    name: `${tag}-srv`,
    server_type: 'sc-small',
    image: 'ubuntu-24.04',
    zone: 'sim-1a',
    labels: { role: tag },
  });
  const network = await client.networks.create({ name: `${tag}-net`, ip_range: `10.${net}.0.0/16` });
  const gateway = `10.${net}.0.5`;
  const { action: routed } = await client.networks.createRoute(network.id, { destination: '10.244.1.0/24', gateway });
  const health = { protocol: 'tcp', port: null, path: '/', interval_seconds: 15, timeout_seconds: 10, retries: 3 } as const;
  const { load_balancer: lb, action: built } = await client.loadBalancers.create({
    name: `${tag}-lb`,
    targets: [{ kind: 'server', server_id: server.id }],
    services: [{ protocol: 'tcp', listen_port: 80, destination_port: 8080, proxy_protocol: 'none', health_check: health }],
  });
  for (const id of [action.id, routed.id, built.id]) await client.waitForAction(id);
  const ip = (await client.servers.get(server.id)).public_ipv4;
  return {
    tag,
    token,
    extra: {},
    server: numericIdOf(server.id),
    network: numericIdOf(network.id),
    lb: numericIdOf(lb.id),
    gateway,
    serverIp: ip ?? '',
    actions: { servers: numericIdOf(action.id), networks: numericIdOf(routed.id), load_balancers: numericIdOf(built.id) },
  };
}

const json = (token?: string): Record<string, string> => ({
  'content-type': 'application/json',
  ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
});
const withParams = (path: string, values: Record<string, string>): string => path.replace(/:(\w+)/g, (_m, name: string) => values[name] ?? `:${name}`);
/** A victim's number showing as an id anywhere in an answer. */
const showsId = (text: string, n: number): boolean => new RegExp(`"id":${n}[,}]`).test(text);

describe.each(PERSONA_ROWS)('the $name persona', (row: PersonaRow) => {
  let sc: InProcessSimcloud;
  let own: Owned;
  let victim: Owned;
  let port: number;

  beforeAll(async () => {
    sc = await startSimcloudInProcess({ config: { allowedHosts: ['sim.dev.test'] } });
    port = Number(new URL(sc.url).port);
    own = await createAll(sc.client, 'own', sc.token);
    const project = await sc.admin.createProject('victim');
    const tokenB = (await sc.admin.createToken(project.id, { name: 'victim' })).token;
    victim = await createAll(sc.clientFor(tokenB, { retry: { maxRetries: 0 } }), 'victim', tokenB);
    // A persona that takes only tokens it issues gets the bearer of each project token.
    const withBearer = async (o: Owned): Promise<Owned> => (row.bearer === undefined ? o : { ...o, token: await row.bearer(sc.url, o.token) });
    [own, victim] = [await personaSetup(await withBearer(own)), await personaSetup(await withBearer(victim))];
    await quiet();
  });

  /** Until no action runs: a refusal is then the only thing that could move the commit sequence. */
  const quiet = (): Promise<boolean> =>
    waitFor(() => sc.sim.store.all('actions').every((a) => a.status !== 'running'), {
      timeoutMs: 10_000,
      intervalMs: 10,
      description: 'every action finished',
    });

  // A request an earlier case let through (its own Origin, a lenient schema) may have started an action.
  beforeEach(async () => {
    await quiet();
  });

  afterAll(async () => {
    await sc?.stop();
  });

  async function personaSetup(o: Owned): Promise<Owned> {
    const extra: Record<string, number> = {};
    for (const [name, path, body] of row.setup?.(o) ?? []) {
      const r = await send('POST', path, json(o.token), typeof body === 'function' ? (body as (made: Record<string, number>) => unknown)(extra) : body);
      expect(r.status, `${row.name} setup ${name}: ${r.text.slice(0, 200)}`).toBeLessThan(300);
      extra[name] = row.madeId?.(r.json()) ?? (r.json() as { id: number }).id;
    }
    return { ...o, extra };
  }
  const seq = (): number => sc.sim.store.state.seq;
  const unchanged = (attack: () => Promise<RawResponse>): Promise<RawResponse> => unchangedBy(seq, attack);
  const send = (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<RawResponse> =>
    raw(`${sc.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) });
  const mutating = (): [string, string, unknown] => [
    'PUT',
    withParams(row.routes.find((r) => r.method === 'put')!.path, row.params(row.routes.find((r) => r.method === 'put')!.path, own)),
    row.body(`put ${row.routes.find((r) => r.method === 'put')!.path}`, own),
  ];

  it("answers every route aimed at another project's resource with the persona's not-found, changing nothing (and the owner reaches it)", async () => {
    const routes = row.routes.filter((r) => r.path.includes(':') && !row.catalogue.test(r.path));
    expect(routes.length).toBeGreaterThan(10);
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      const path = withParams(route.path, row.params(route.path, victim));
      const r = await unchanged(() => send(route.method.toUpperCase(), path, json(own.token), row.body(key, own)));
      expect(r.status, `${key}: ${r.text.slice(0, 200)}`).toBe(404);
      expect(row.read(r).code, key).toBe(row.codes.notFound);
      expect(r.text, key).not.toContain('victim');
      // The same path with the owner's token reads the resource, so the 404 above is the ownership check.
      if (route.method === 'get') expect((await send('GET', path, json(victim.token))).status, `owner's ${key}`).toBe(200);
    }
  });

  it("refuses the other project's ids inside one's own requests, naming the field", async () => {
    for (const [method, path, body] of row.foreignRefs(own, victim)) {
      const r = await unchanged(() => send(method, path, json(own.token), body));
      const what = `${method} ${path} ${JSON.stringify(body)}: ${r.text.slice(0, 200)}`;
      expect([400, 404, row.codes.invalidStatus], what).toContain(r.status);
      if (method !== 'GET') expect(row.read(r).fields.length, what).toBeGreaterThan(0);
      expect(r.text, what).not.toContain('victim');
    }
  });

  it("lists only the caller's own project", async () => {
    for (const path of row.lists(victim)) {
      const r = await send('GET', path, json(own.token));
      expect(r.status, `${path}: ${r.text.slice(0, 200)}`).toBe(200);
      expect(r.text, path).not.toContain('victim');
      if (victim.serverIp !== '') expect(r.text, path).not.toContain(`"${victim.serverIp}"`);
      for (const n of [victim.server, victim.network, victim.lb, ...Object.values(victim.actions)])
        expect(showsId(r.text, n), `${path} shows ${n}`).toBe(false);
    }
    const mine = await send('GET', row.lists(victim)[0]!, json(own.token));
    expect(mine.text, 'the caller sees its own').toContain('own-');
  });

  it("resolves a label selector or tag target only among the caller's own servers, though the other project's match it", async () => {
    const selector = row.selector?.(own, victim);
    if (selector === undefined) return;
    const [method, path, body] = selector.request;
    const r = await send(method, path, json(own.token), body);
    expect(r.status, r.text.slice(0, 200)).toBeLessThan(300);
    await quiet();
    const shown = await send('GET', selector.show, json(own.token));
    expect(shown.status).toBe(200);
    expect(showsId(shown.text, victim.server), shown.text.slice(0, 300)).toBe(false);
    expect(shown.text).not.toContain(`"${victim.serverIp}"`);
    const lb = sc.sim.store.state.load_balancers[simcloudId('lb', own.lb)]!;
    expect(sc.sim.targets.resolve(lb).map((t) => t.server_id)).not.toContain(simcloudId('srv', victim.server));
  });

  it("refuses missing, wrong and misplaced tokens with 401 in the persona's envelope", async () => {
    const [method, path, body] = mutating();
    const list = row.lists(victim)[0]!;
    const cases: [string, string, Record<string, string>][] = [
      ['GET', list, json()],
      ['GET', list, json('sct_not-a-real-token-000000')],
      ['GET', list, json(sc.adminToken)],
      ['GET', `${list}${list.includes('?') ? '&' : '?'}token=${sc.token}`, json()],
      ['GET', list, { authorization: `Basic ${Buffer.from(`x:${sc.token}`).toString('base64')}` }],
      [method, path, json()],
      [method, path, json(`${sc.token}x`)],
      [method, path, { ...json(), authorization: sc.token }],
    ];
    for (const [m, p, headers] of cases) {
      const r = await unchanged(() => send(m, p, headers, m === 'GET' ? undefined : body));
      expect(r.status, `${m} ${p} ${JSON.stringify(headers)}`).toBe(401);
      expect(row.read(r).code).toBe(row.codes.unauthorized);
    }
  });

  it('refuses every DNS-rebinding Host with 403 naming the host, even with a valid token', async () => {
    const [method, path, body] = mutating();
    for (const host of hostileHosts(port)) {
      for (const [m, p, b] of [
        ['GET', row.lists(victim)[0]!, undefined],
        [method, path, body],
      ] as const) {
        const r = await unchanged(() =>
          raw(`${sc.url}${p}`, { method: m, host, headers: json(own.token), ...(b === undefined ? {} : { body: JSON.stringify(b) }) }),
        );
        expect(r.status, `${host} ${m} ${p}`).toBe(403);
        expect(row.read(r).fields, `${host} ${p}`).toEqual(['host']);
      }
    }
    for (const host of [...loopbackHosts(port), 'sim.dev.test:443']) {
      expect((await raw(`${sc.url}${row.lists(victim)[0]!}`, { host, headers: json(own.token) })).status, host).toBe(200);
    }
  });

  it('refuses a state change carrying a foreign browser Origin, takes its own, and grants no cross-origin read', async () => {
    const [method, path, body] = mutating();
    const del = row.routes.find((r) => r.method === 'delete')!;
    const deletion = withParams(del.path, row.params(del.path, own));
    for (const origin of ['http://attacker.example', 'null', `https://127.0.0.1:${port}`, `http://localhost:${port + 1}`]) {
      for (const [m, p, b] of [
        [method, path, body],
        ['DELETE', deletion, undefined],
        ['POST', row.create.path, row.create.body(own)],
      ] as const) {
        const r = await unchanged(() => send(m, p, { ...json(own.token), origin }, b));
        expect(r.status, `${origin} ${m} ${p}`).toBe(403);
        expect(row.read(r).fields).toEqual(['origin']);
      }
    }
    const read = await send('GET', row.lists(victim)[0]!, { ...json(own.token), origin: 'http://attacker.example' });
    expect(read.status).toBe(200);
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
    const ok = await send(method, path, { ...json(own.token), origin: `http://localhost:${port}` }, body);
    expect(ok.status, ok.text.slice(0, 200)).toBeLessThan(300);
  });

  it("refuses oversized, malformed and non-object bodies, and bad fields, with the persona's invalid-input answer", async () => {
    const valid = row.create.body(own);
    const unreadable = [`{"label":"${'x'.repeat(3 * 1024 * 1024)}"}`, '{"name":', '\u0000\u0001', '{"name":"a",}', '"just a string"', 'null', '42'];
    for (const body of [...unreadable, `${'['.repeat(50_000)}${']'.repeat(50_000)}`, '[]', '[{}]']) {
      const r = await unchanged(() => send('POST', row.create.path, json(own.token), body));
      const broken = unreadable.includes(body);
      expect(r.status, body.slice(0, 40)).toBe(broken ? 400 : row.codes.invalidStatus);
      expect(row.read(r).code, body.slice(0, 40)).toMatch(broken ? row.codes.unreadable : row.codes.invalid);
    }
    for (const [extra, field] of row.create.invalid) {
      const body = JSON.stringify({ ...valid, ...extra });
      const r = await unchanged(() => send('POST', row.create.path, json(own.token), body));
      expect(r.status, `${body.slice(0, 80)}: ${r.text.slice(0, 200)}`).toBe(row.codes.invalidStatus);
      const answer = row.read(r);
      expect(answer.code).toMatch(row.codes.invalid);
      if (field !== '') expect(answer.fields, body.slice(0, 80)).toContain(field);
      else expect(answer.fields.length, body.slice(0, 80)).toBeGreaterThan(0);
    }
    // `__proto__` and `constructor` keys: refused by a strict schema, or dropped by a lenient one; never merged into prototypes.
    const before = seq();
    const r = await send(
      'POST',
      row.create.path,
      json(own.token),
      `{"__proto__":{"admin":true},${JSON.stringify(valid).slice(1, -1)},"constructor":{"prototype":{"admin":true}}}`,
    );
    expect(r.status, r.text.slice(0, 200)).toBeLessThan(500);
    if (r.status >= 400) expect(seq()).toBe(before);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect(r.text).not.toContain('"admin"');
  });

  it("refuses path traversal and other spellings in every path id with 404 or the persona's invalid-input answer, never reaching a resource", async () => {
    const routes = row.routes.filter((r) => r.path.includes(':') && !row.catalogue.test(r.path));
    // Each parameter in turn takes a hostile value while the others name the caller's own resources.
    const hostile = (mine: string, theirs: string): string[] => [
      '..%2F..%2F_sim%2Freset',
      '%2e%2e',
      '..',
      '.',
      `${mine}%00`,
      `${mine}%2F..%2F${theirs}`,
      `${mine}/../${theirs}`,
      `${theirs}/..`,
      `${theirs}%2F..`,
      '0',
      '-1',
      '9'.repeat(40),
      `${mine}.0`,
      `${mine}e0`,
      `0x${Number(mine).toString(16)}`,
      `%20${mine}`,
      `+${mine}`,
      `${mine}%3B${theirs}`,
    ];
    let tried = 0;
    for (const route of routes) {
      const mine = row.params(route.path, own);
      const theirs = row.params(route.path, victim);
      for (const name of Object.keys(mine)) {
        for (const id of hostile(mine[name]!, theirs[name]!)) {
          const target = withParams(route.path, { ...mine, [name]: id });
          const body = row.body(`${route.method} ${route.path}`, own);
          const r = await unchanged(() =>
            raw(`${sc.url}/`, {
              method: route.method.toUpperCase(),
              target,
              headers: json(own.token),
              ...(body === undefined ? {} : { body: JSON.stringify(body) }),
            }),
          );
          expect([400, 404, row.codes.invalidStatus], `${route.method} ${target}: ${r.status} ${r.text.slice(0, 200)}`).toContain(r.status);
          expect(r.text, target).not.toContain('victim');
          expect(() => row.read(r), `${target} answers in the persona's envelope`).not.toThrow();
          tried++;
        }
      }
    }
    expect(tried).toBeGreaterThan(routes.length * 10);
    for (const target of [`${row.prefix}/../../_sim/reset`, `${row.prefix}/..%2F..%2F_sim%2Freset`, `${row.prefix}/%2e%2e/%2e%2e/_sim/reset`]) {
      const r = await unchanged(() => raw(`${sc.url}/`, { method: 'POST', target, headers: json(sc.adminToken), body: '{}' }));
      expect([401, 404], `${target}: ${r.text.slice(0, 200)}`).toContain(r.status);
    }
  });
});
