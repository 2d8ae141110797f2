// The fuzz run: an in-process simcloud on a state file (so commits wait on fsync, as a write does in a sandbox),
// one project's resources made through /v1 and each persona, then fast-check batches of requests sent at once:
// a route of one API with its path ids (the project's, or hostile), query, headers, token and body generated
// from the route's schemas and mutated (arbitraries.ts), or a write and a DELETE on the same resource. After every
// batch: no answer was a 5xx, every 4xx is the API's own envelope (naming the field when it refuses input),
// health is OK, and no prototype gained a property; at the end, once the last batch has ended and no action runs,
// every API's lists agree with /v1's.
// The CI test (fuzz.test.ts), the planted-fault test and `npm run fuzz` all call runFuzz.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { numericIdOf } from '../../../simulator/personas/numeric-ids.ts';
import { TOKEN_PATH as BB_TOKEN_PATH } from '../../../simulator/personas/brightbox/common.ts';
import { TOKEN_PATH as PNAP_TOKEN_PATH } from '../../../simulator/personas/phoenixnap/common.ts';
import type { RouteDef } from '../../../simulator/server/route-definitions.ts';
import { waitFor } from '../../../sandbox/wait.ts';
import { startSimcloudInProcess, type InProcessSimcloud } from '../../helpers/simcloud.ts';
import type { Owned } from '../../security/persona-rows.ts';
import type { RawResponse } from '../../security/support.ts';
import { FUZZ_APIS, type FuzzApi, type Listed } from './apis.ts';
import { HOSTILE_IDS, OWN_ID, PROTO_KEYS, filterHeader, fromSchema, queryArb, type Json } from './arbitraries.ts';

/** The CI budget: a fixed seed, so a run is the same sequence of batches (how far it gets depends on the machine). */
export const CI_SEED = 48;
export const CI_TIME_LIMIT_MS = 40_000;

export interface FuzzOptions {
  readonly seed: number;
  /** Stop generating after this long (fast-check's interruptAfterTimeLimit); the shrink of a failure comes after. */
  readonly timeLimitMs: number;
  /** Only these APIs (default: all). */
  readonly apis?: readonly string[];
  /** Report the first failure as found, without shrinking it (the planted-fault test). */
  readonly noShrink?: boolean;
}

export interface FuzzReport {
  readonly seed: number;
  readonly runs: number;
  readonly durationMs: number;
  readonly requests: Readonly<Record<string, number>>;
  /** The counterexample fast-check shrank to, and what failed, if anything did. */
  readonly failure?: { readonly message: string; readonly counterexample: string; readonly shrinks: number };
}

type Auth = 'valid' | 'none' | 'garbage' | 'forged' | 'expired' | 'cross' | 'basic';
const CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/xml',
  'multipart/form-data; boundary=x',
  '',
  'application/json; charset=utf-16',
] as const;

interface FuzzRequest {
  readonly api: number;
  readonly route: number;
  /** Per path parameter: the project's resource (null) or a hostile id. */
  readonly ids: readonly (string | null)[];
  readonly query: string;
  readonly filter: string | null;
  readonly auth: Auth;
  readonly authPick: number;
  readonly contentType: (typeof CONTENT_TYPES)[number];
  /** The body: a JSON value, or raw text (unreadable, deep, huge). */
  readonly body: { json: Json } | { text: string } | null;
}

const WHOLE_PART = /request body|\(body\)|\(root\)|\(path\)|query parameters/i;

const paramNames = (path: string): string[] => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);

/** Bodies no JSON parser reads as the route expects: unreadable, nested past any parser's depth, past the size limit. */
const RAW_BODY: fc.Arbitrary<{ text: string }> = fc
  .oneof(
    fc.constantFrom(
      '{',
      '{"a":',
      'null',
      '[]',
      '1',
      '"x"',
      'garbage',
      '{"a":1}}',
      '\u0000',
      '{"__proto__":{"polluted":1}}',
      '{"constructor":{"prototype":{"polluted":1}}}',
    ),
    fc.integer({ min: 1000, max: 200_000 }).map((d) => '['.repeat(d) + ']'.repeat(d)),
    fc.constant(JSON.stringify({ name: 'x'.repeat(2_200_000) })),
  )
  .map((text) => ({ text }));

function requestArb(apiIndex: number, api: FuzzApi, routeIndex: number, real: fc.Arbitrary<boolean>): fc.Arbitrary<FuzzRequest> {
  const route = api.routes[routeIndex]!;
  const names = paramNames(route.path);
  const id = fc.oneof(
    { weight: 4, arbitrary: real.map((r) => (r ? null : HOSTILE_IDS[0]!)) },
    { weight: 1, arbitrary: fc.constantFrom<string | null>(...HOSTILE_IDS) },
  );
  const body =
    route.body === undefined
      ? fc.constant(null)
      : fc.oneof({ weight: 10, arbitrary: fromSchema(route.body).map((json) => ({ json })) }, { weight: 1, arbitrary: RAW_BODY });
  return fc.record({
    api: fc.constant(apiIndex),
    route: fc.constant(routeIndex),
    ids: fc.tuple(...names.map(() => id)),
    query: queryArb(route.query),
    filter: route.queryHeaders === undefined ? fc.constant(null) : fc.option(filterHeader, { freq: 2 }),
    auth: fc.oneof(
      { weight: 14, arbitrary: fc.constant<Auth>('valid') },
      { weight: 6, arbitrary: fc.constantFrom<Auth>('none', 'garbage', 'forged', 'expired', 'cross', 'basic') },
    ),
    authPick: fc.nat(1000),
    contentType: fc.oneof({ weight: 12, arbitrary: fc.constant(CONTENT_TYPES[0]) }, { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) }),
    body,
  });
}

/** A write's DELETE on the same resource: the DELETE route whose path is the longest prefix of the write's. */
function deleteFor(api: FuzzApi, route: RouteDef): number {
  let best = -1;
  api.routes.forEach((r, i) => {
    if (
      r.method === 'delete' &&
      r !== route &&
      (route.path === r.path || route.path.startsWith(`${r.path}/`)) &&
      (best < 0 || r.path.length > api.routes[best]!.path.length)
    )
      best = i;
  });
  return best;
}

/** One batch: requests of one API sent at once, or writes raced against a DELETE of the same resources. */
function batchArb(apis: readonly FuzzApi[]): fc.Arbitrary<FuzzRequest[]> {
  const perApi = apis.map((api, a) => {
    // Built once per route: building a schema's arbitrary costs far more than drawing from it.
    const requests = api.routes.map((_r, i) =>
      requestArb(
        a,
        api,
        i,
        fc.nat(4).map((n) => n > 0),
      ),
    );
    const anyRequest = fc.oneof(...requests);
    const writes = api.routes.flatMap((r, i) => (r.method !== 'get' && deleteFor(api, r) >= 0 ? [i] : []));
    const valid = <T extends FuzzRequest>(r: T): T => ({ ...r, auth: 'valid', contentType: 'application/json', query: '', ids: r.ids.map(() => null) });
    const pairs = writes.map((i) =>
      fc
        .tuple(requests[i]!, requests[deleteFor(api, api.routes[i]!)]!, fc.boolean())
        .map(([w, d, twice]) => (twice ? [valid(w), valid(w), valid(d)] : [valid(w), valid(d)])),
    );
    const race = pairs.length === 0 ? anyRequest.map((r) => [r]) : fc.oneof(...pairs);
    return fc.oneof({ weight: 3, arbitrary: fc.array(anyRequest, { minLength: 1, maxLength: 6 }) }, { weight: 1, arbitrary: race });
  });
  return fc.oneof(...perApi);
}

interface Tokens {
  /** Per API: the bearer a client of that API sends. */
  valid: string[];
  /** Per API: one that was valid once (issued before the clock moved on, or a deleted project token). */
  expired: string[];
  tokenId: string;
}

function authHeader(apis: readonly FuzzApi[], t: Tokens, r: FuzzRequest): string | undefined {
  const pick = <T>(xs: readonly T[]): T => xs[r.authPick % xs.length]!;
  switch (r.auth) {
    case 'valid':
      return `Bearer ${t.valid[r.api]}`;
    case 'none':
      return undefined;
    case 'garbage':
      return pick([`Bearer ${pick(PROTO_KEYS)}`, 'Bearer', 'Bearer  ', `Bearer ${'x'.repeat(9000)}`, 'bearer a.b.c', `Bearer ${pick(HOSTILE_IDS)}`]);
    case 'expired':
      return `Bearer ${t.expired[r.api]}`;
    case 'cross':
      return `Bearer ${t.valid[(r.api + 1 + (r.authPick % (apis.length - 1))) % apis.length]}`;
    case 'basic':
      return `Basic ${Buffer.from(`${pick(PROTO_KEYS)}:${t.valid[0]}`).toString('base64')}`;
    case 'forged': {
      const sub = pick([...PROTO_KEYS, t.tokenId, 'tok-99999999']);
      const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');
      const exp = 4_102_444_800;
      return pick([
        `Bearer ${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub, exp, iat: 0, azp: 'x', scope: 'bmc', iss: 'x' })}.${'A'.repeat(43)}`,
        `Bearer ${b64({ alg: 'none' })}.${b64({ sub, exp })}.`,
        `Bearer ${sub}.${exp}.${'A'.repeat(43)}`,
      ]);
    }
  }
}

/** A hostile id as a client puts it in a request line: as is, but a slash, a space or a non-ASCII character %-escaped. */
const asSent = (id: string): string => id.replace(/[^\x21-\x7e]|\//gu, (c) => encodeURIComponent(c));

const withParams = (path: string, values: Record<string, string>): string => path.replace(/:(\w+)/g, (_m, n: string) => values[n] ?? `:${n}`);

class Fuzzer {
  readonly requests: Record<string, number> = {};
  #owned!: Owned;
  #tokens!: Tokens;
  #netSeq = 0;
  #sinceRefresh = 0;
  /** Per API, every id of the project's resources as it spells them (cleared when they are made again). */
  readonly #ownIds = new Map<FuzzApi, string[]>();
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 16 });
  readonly #protoBefore = [Object.getOwnPropertyNames(Object.prototype).join(), Object.getOwnPropertyNames(Array.prototype).join()];

  readonly sc: InProcessSimcloud;
  readonly apis: readonly FuzzApi[];
  /** How far the simcloud's wall clock runs ahead: OAuth2 access tokens expire on it, not on simulated time. */
  readonly #wall: { skewMs: number };

  constructor(sc: InProcessSimcloud, apis: readonly FuzzApi[], wall: { skewMs: number }) {
    this.sc = sc;
    this.apis = apis;
    this.#wall = wall;
    for (const a of apis) this.requests[a.name] = 0;
  }

  async start(): Promise<void> {
    const { sc } = this;
    const expired = await Promise.all(this.apis.map((a) => this.bearer(a)));
    // The persona tokens issued above expire; a project token made and deleted stands for an expired one elsewhere.
    this.#wall.skewMs += 3 * 3600 * 1000;
    const project = (await sc.admin.listProjects())[0]!;
    const revoked = await sc.admin.createToken(project.id, { name: 'revoked' });
    await sc.admin.deleteToken(revoked.id);
    const tokenId = sc.sim.store.all('tokens')[0]!.id;
    this.#tokens = {
      valid: await Promise.all(this.apis.map((a) => this.bearer(a))),
      expired: expired.map((e, i) => (this.apis[i]!.row?.bearer === undefined ? revoked.token : e)),
      tokenId,
    };
    await this.refresh();
  }

  bearer(api: FuzzApi): Promise<string> {
    return api.row?.bearer?.(this.sc.url, this.sc.token) ?? Promise.resolve(this.sc.token);
  }

  /** The project's resources, made again when one is gone (a fuzzed DELETE went through) and every 64 batches. */
  async refresh(): Promise<void> {
    const st = this.sc.sim.store.state;
    const o = this.#owned as Owned | undefined;
    const id = (prefix: string, n: number): string => `${prefix}-${String(n).padStart(8, '0')}`;
    const gone =
      o === undefined ||
      !Object.hasOwn(st.servers, id('srv', o.server)) ||
      !Object.hasOwn(st.networks, id('net', o.network)) ||
      !Object.hasOwn(st.load_balancers, id('lb', o.lb));
    if (!gone && ++this.#sinceRefresh < 64) return;
    this.#sinceRefresh = 0;
    this.#owned = await this.makeOwned();
    this.#ownIds.clear();
  }

  async makeOwned(): Promise<Owned> {
    const { client } = this.sc;
    const n = ++this.#netSeq;
    const { server, action } = await client.servers.create({
      name: `fz-srv-${n}`,
      server_type: 'sc-small',
      image: 'ubuntu-24.04',
      zone: 'sim-1a',
      labels: { role: 'fz' },
    });
    const network = await client.networks.create({ name: `fz-net-${n}`, ip_range: `10.${100 + (n % 150)}.${Math.floor(n / 150) % 250}.0/24` });
    const gateway = network.ip_range.replace(/0\/24$/, '5');
    const { action: routed } = await client.networks.createRoute(network.id, { destination: '10.244.1.0/24', gateway });
    const health = { protocol: 'tcp', port: null, path: '/', interval_seconds: 15, timeout_seconds: 10, retries: 3 } as const;
    const { load_balancer: lb, action: built } = await client.loadBalancers.create({
      name: `fz-lb-${n}`,
      targets: [{ kind: 'server', server_id: server.id }],
      services: [{ protocol: 'tcp', listen_port: 80, destination_port: 8080, proxy_protocol: 'none', health_check: health }],
    });
    await Promise.all([action.id, routed.id, built.id].map((id) => client.waitForAction(id, { intervalMs: 5 }).catch(() => undefined)));
    const ip = (await client.servers.get(server.id)).public_ipv4 ?? '';
    const base: Owned = {
      tag: `fz${n}`,
      token: '',
      extra: {},
      server: numericIdOf(server.id),
      network: numericIdOf(network.id),
      lb: numericIdOf(lb.id),
      gateway,
      serverIp: ip,
      actions: { servers: numericIdOf(action.id), networks: numericIdOf(routed.id), load_balancers: numericIdOf(built.id) },
    };
    const extra: Record<string, number> = {};
    for (const [a, api] of this.apis.entries()) await this.personaSetup(a, api, base, extra);
    return { ...base, extra };
  }

  /** What the persona's row makes through the persona itself (a Brightbox cloud IP, a phoenixNAP IP block), into `extra`. */
  async personaSetup(a: number, api: FuzzApi, base: Owned, extra: Record<string, number>): Promise<void> {
    const row = api.row;
    if (row === undefined) return;
    for (const [name, path, body] of row.setup?.(base) ?? []) {
      const made = typeof body === 'function' ? (body as (m: Record<string, number>) => unknown)(extra) : body;
      const r = await this.send('POST', path, { 'content-type': 'application/json', authorization: `Bearer ${this.#tokens.valid[a]}` }, JSON.stringify(made));
      if (r.status < 300) extra[name] = row.madeId?.(r.json()) ?? (r.json() as { id: number }).id;
    }
    for (const [method, path, body] of api.prepare({ ...base, extra })) {
      await this.send(method, path, { 'content-type': 'application/json', authorization: `Bearer ${this.#tokens.valid[a]}` }, JSON.stringify(body));
    }
  }

  send(method: string, target: string, headers: Record<string, string>, body?: string): Promise<RawResponse> {
    return send(this.#agent, this.sc.url, { method, target, headers, ...(body === undefined ? {} : { body }) });
  }

  path(r: FuzzRequest): string {
    const api = this.apis[r.api]!;
    const route = api.routes[r.route]!;
    const own = api.params(route.path, { ...this.#owned, token: this.#tokens.valid[r.api]! }) ?? {};
    const names = paramNames(route.path);
    const values = Object.fromEntries(names.map((n, i) => [n, r.ids[i] ?? own[n] ?? HOSTILE_IDS[i % HOSTILE_IDS.length]!]));
    // Hostile ids go in as sent: a raw request target, not a URL that would normalize them.
    const path = withParams(
      route.path,
      Object.fromEntries(Object.entries(values).map(([k, v]) => [k, r.ids[names.indexOf(k)] === null ? encodeURIComponent(v) : asSent(v)])),
    );
    return r.query === '' ? path : `${path}?${r.query}`;
  }

  async exchange(r: FuzzRequest): Promise<string | undefined> {
    const api = this.apis[r.api]!;
    const route = api.routes[r.route]!;
    const target = this.path(r);
    const headers: Record<string, string> = {};
    const auth = authHeader(this.apis, this.#tokens, r);
    if (auth !== undefined) headers.authorization = auth;
    if (r.contentType !== '') headers['content-type'] = r.contentType;
    if (r.filter !== null) headers['x-filter'] = r.filter;
    const body = r.body === null ? undefined : 'json' in r.body ? this.withOwnIds(api, JSON.stringify(r.body.json)) : r.body.text;
    this.requests[api.name]!++;
    const res = await this.send(route.method.toUpperCase(), target, headers, body);
    return this.judge(api, route, target, res);
  }

  /** The body with each placeholder (arbitraries.ts's OWN_ID) replaced by one of the project's ids as the API spells them. */
  withOwnIds(api: FuzzApi, json: string): string {
    let ids = this.#ownIds.get(api);
    if (ids === undefined) {
      ids = [...new Set(api.routes.flatMap((r) => Object.values(api.params(r.path, { ...this.#owned, token: '' }) ?? {})))];
      this.#ownIds.set(api, ids);
    }
    return ids.length === 0 ? json : json.replace(OWN_ID, (_m, i: string) => JSON.stringify(ids[Number(i) % ids.length]));
  }

  /** What is wrong with an answer, if anything. */
  judge(api: FuzzApi, route: RouteDef, target: string, res: RawResponse): string | undefined {
    const at = `${route.method.toUpperCase()} ${target.slice(0, 300)} → ${res.status} ${res.text.slice(0, 300)}`;
    if (res.status >= 500) return `5xx: ${at}`;
    // Node's HTTP server refuses an oversized request head itself (431), before any API sees the request.
    if (res.status === 431) return undefined;
    if (res.status < 400) return this.oracle(api, route, target, res) === undefined ? undefined : `${this.oracle(api, route, target, res)}: ${at}`;
    if (!String(res.headers['content-type'] ?? '').startsWith('application/json')) return `error not JSON: ${at}`;
    const problem = envelopeProblem(api, target, res);
    return problem === undefined ? undefined : `${problem}: ${at}`;
  }

  /** What a successful answer must say: a list filtered by tag shows only what carries the tag (phoenixNAP's `tag=name[.value]`). */
  oracle(api: FuzzApi, route: RouteDef, target: string, res: RawResponse): string | undefined {
    if (route.method !== 'get' || !Array.isArray(safeJson(res))) return undefined;
    const tags = new URLSearchParams(target.split('?')[1] ?? '').getAll('tag');
    if (tags.length === 0) return undefined;
    const items = safeJson(res) as { tags?: { name: string; value?: string }[] }[];
    const wrong = items.find(
      (it) =>
        !tags.every((t) => {
          const dot = t.indexOf('.');
          const [name, value] = dot < 0 ? [t, undefined] : [t.slice(0, dot), t.slice(dot + 1)];
          return (it.tags ?? []).some((g) => g.name === name && (value === undefined || (g.value ?? '') === value));
        }),
    );
    return wrong === undefined ? undefined : `${api.name} list filtered by ${tags.join(', ')} shows a resource without that tag`;
  }

  close(): void {
    this.#agent.destroy();
  }

  /** After a batch: simcloud healthy, no prototype touched. */
  async invariants(): Promise<string | undefined> {
    const now = [Object.getOwnPropertyNames(Object.prototype).join(), Object.getOwnPropertyNames(Array.prototype).join()];
    if (now[0] !== this.#protoBefore[0] || now[1] !== this.#protoBefore[1] || ({} as Record<string, unknown>).polluted !== undefined)
      return `prototype polluted: ${now.join(' | ')}`;
    const h = await this.send('GET', '/_sim/health', { authorization: `Bearer ${this.sc.adminToken}` });
    if (h.status !== 200) return `health ${h.status} ${h.text.slice(0, 200)}`;
    return undefined;
  }

  /**
   * Every API's list of each collection counts what /v1's does, read while nothing writes: the lists are read one
   * API after another, so a write between two reads would look like two truths. The intermittent mismatches were
   * that (17 in 177 short runs without a retry, each a list one record off /v1's): fast-check's time limit stops
   * waiting for the batch under way, not the batch, and every time it was still making the project's resources
   * again while the lists were read. fuzz() calls this once that batch has ended (checkToEnd), and it reads once no
   * action runs (the engine's timers are the only writes simcloud makes on its own). The store's revision, the
   * same before and after the reads, shows nothing wrote; a difference found then is two truths.
   */
  async oneStore(): Promise<string | undefined> {
    const store = this.sc.sim.store;
    await waitFor(() => store.all('actions').every((a) => a.status !== 'running'), {
      timeoutMs: 30_000,
      intervalMs: 20,
      description: 'every action finished',
    });
    const before = store.state.seq;
    const found = await this.#storeMismatch();
    if (store.state.seq !== before)
      return `one store: the store moved from revision ${before} to ${store.state.seq} while the APIs were read, with no batch running and no action`;
    return found;
  }

  async #storeMismatch(): Promise<string | undefined> {
    const v1 = this.apis.find((a) => a.name === 'v1') ?? FUZZ_APIS[0]!;
    /** The records the API lists, or what it answered instead. */
    const count = async (api: FuzzApi, coll: Listed): Promise<number | string | undefined> => {
      const path = api.listPaths[coll];
      const read = api.lists[coll];
      if (path === undefined || read === undefined) return undefined;
      const a = FUZZ_APIS.indexOf(api);
      const token = a === 0 ? this.sc.token : await this.bearer(api);
      let total = 0;
      for (const one of typeof path === 'string' ? [path] : path) {
        const r = await this.send('GET', one, { authorization: `Bearer ${token}` });
        if (r.status !== 200) return `GET ${one} answers ${r.status} ${r.text.slice(0, 400)}`;
        total += read(r.json());
      }
      return total;
    };
    const wrong: string[] = [];
    for (const coll of ['servers', 'load_balancers', 'networks', 'ip_blocks'] as const) {
      const want = await count(v1, coll);
      if (typeof want === 'string') wrong.push(`/v1 cannot list its ${coll}: ${want}`);
      for (const api of this.apis.filter((a) => a !== v1)) {
        const got = await count(api, coll);
        if (typeof got === 'string') wrong.push(`${api.name} cannot list its ${coll}: ${got}`);
        else if (got !== undefined && typeof want === 'number' && got !== want) wrong.push(`${api.name} lists ${got} ${coll}, /v1 ${want}`);
      }
    }
    return wrong.length === 0 ? undefined : `one store: ${wrong.join('; ')}`;
  }
}

/** What is wrong with a 4xx: not the API's envelope, or a refused input that names no field. */
function envelopeProblem(api: FuzzApi, target: string, res: RawResponse): string | undefined {
  let e;
  try {
    e = api.read(res);
  } catch (err) {
    return `error not in ${api.name}'s envelope (${(err as Error).message})`;
  }
  if (target.startsWith(PNAP_TOKEN_PATH) || target.startsWith(BB_TOKEN_PATH) || !api.invalid(res, e) || e.fields.length > 0) return undefined;
  // A refusal of the whole body, path or query names that part instead of a field (phoenixNAP lists no `(body)` field);
  // a busy resource is a refusal of the moment, not of the input (Linode's 400 `Linode busy.`, DigitalOcean's 422).
  return WHOLE_PART.test(res.text) || /busy/i.test(res.text) ? undefined : 'refused input names no field';
}

/** One request on a kept-alive connection, its target sent verbatim (a URL would normalize `..` and %-escapes). */
function send(agent: Agent, url: string, r: { method: string; target: string; headers: Record<string, string>; body?: string }): Promise<RawResponse> {
  const u = new URL(url);
  const headers = { ...r.headers, ...(r.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(r.body)) }) };
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: r.target, method: r.method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) as unknown });
      });
      res.on('error', reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer to ${r.method} ${r.target.slice(0, 200)} within 30 s`)));
    req.on('error', reject);
    req.end(r.body);
  });
}

function safeJson(res: RawResponse): unknown {
  try {
    return res.json();
  } catch {
    return undefined;
  }
}

/** Runs the suite; never throws for a finding (the report carries it). */
export async function runFuzz(opts: FuzzOptions): Promise<FuzzReport> {
  // The state file on a memory file system where there is one: each commit still waits on its write and fsync
  // (the window a racing request lands in), without a disk's milliseconds per commit.
  const dir = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'simcloud-fuzz-'));
  // Transitions of a millisecond: a resource a batch made or deleted settles before the next batch.
  const delays = Object.fromEntries(['server', 'load_balancer', 'network'].map((k) => [k, { delay_ms: 1, jitter_ms: 0 }]));
  try {
    const wall = { skewMs: 0 };
    const sc = await startSimcloudInProcess({
      dataPath: join(dir, 'state.json'),
      config: { delays },
      clientOptions: { retry: { maxRetries: 0 } },
      wallNow: () => Date.now() + wall.skewMs,
    });
    const fuzzer = new Fuzzer(
      sc,
      FUZZ_APIS.filter((a) => opts.apis === undefined || opts.apis.includes(a.name)),
      wall,
    );
    try {
      return await fuzz(fuzzer, opts);
    } finally {
      fuzzer.close();
      await sc.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What fc.check reported, and the failure of the run its time limit interrupted, which fast-check never saw. */
export interface CheckedToEnd<T> {
  readonly details: fc.RunDetails<[T]>;
  readonly late?: { readonly value: T; readonly error: unknown };
}

/**
 * fc.check of an async predicate, resolved only once its last run has ended. fast-check's interruptAfterTimeLimit
 * races the run under way against the limit and returns without it: that run goes on (a fuzz batch goes on sending
 * requests, and writing) after check has returned. Its failure, if it fails, is `late` (fast-check reports a failure
 * it saw with a counterexample).
 */
export async function checkToEnd<T>(arb: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, params: fc.Parameters<[T]>): Promise<CheckedToEnd<T>> {
  let last: Promise<CheckedToEnd<T>['late']> = Promise.resolve(undefined);
  const property = fc.asyncProperty(arb, (value) => {
    const run = predicate(value);
    last = run.then(
      () => undefined,
      (error: unknown) => ({ value, error }),
    );
    return run;
  });
  const details = await fc.check(property, params);
  const late = await last;
  return details.counterexample !== null || late === undefined ? { details } : { details, late };
}

async function fuzz(fuzzer: Fuzzer, opts: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  await fuzzer.start();
  const { details, late } = await checkToEnd(
    batchArb(fuzzer.apis),
    async (batch) => {
      await fuzzer.refresh();
      const problems = (await Promise.all(batch.map((r) => fuzzer.exchange(r)))).filter((p) => p !== undefined);
      const after = await fuzzer.invariants();
      if (after !== undefined) problems.push(after);
      if (problems.length > 0) throw new Error(problems.join('\n'));
    },
    {
      seed: opts.seed,
      numRuns: Number.MAX_SAFE_INTEGER,
      interruptAfterTimeLimit: opts.timeLimitMs,
      markInterruptAsFailure: false,
      endOnFailure: opts.noShrink === true,
    },
  );
  const failure = await failureOf(fuzzer, opts, details, late);
  return { seed: opts.seed, runs: details.numRuns, durationMs: Date.now() - started, requests: fuzzer.requests, ...(failure === undefined ? {} : { failure }) };
}

/** What failed: a batch fast-check saw fail (shrunk), the batch its time limit interrupted, or the one-store check. */
async function failureOf(
  fuzzer: Fuzzer,
  opts: FuzzOptions,
  details: fc.RunDetails<[FuzzRequest[]]>,
  late: CheckedToEnd<FuzzRequest[]>['late'],
): Promise<FuzzReport['failure']> {
  const message = (error: unknown): string => String((error as Error | undefined)?.message ?? error);
  if (details.counterexample !== null)
    return { message: message(details.errorInstance), counterexample: fc.stringify(details.counterexample), shrinks: details.numShrinks };
  if (late !== undefined)
    return { message: `${message(late.error)}\n(in the batch the time limit interrupted: not shrunk)`, counterexample: fc.stringify([late.value]), shrinks: 0 };
  if (details.failed) return { message: `no batch ended within the time limit (${opts.timeLimitMs} ms)`, counterexample: '(none)', shrinks: 0 };
  const problem = await fuzzer.oneStore();
  return problem === undefined ? undefined : { message: problem, counterexample: '(the state after the whole run)', shrinks: 0 };
}

/** The report as lines for a log: seed, runs, requests per API, and any failure with its shrunk counterexample. */
export function formatReport(r: FuzzReport): string {
  const per = Object.entries(r.requests)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const head = `fuzz: seed ${r.seed}, ${r.runs} batches, ${Object.values(r.requests).reduce((a, b) => a + b, 0)} requests in ${(r.durationMs / 1000).toFixed(1)} s (${per})`;
  if (r.failure === undefined) return `${head}\nfuzz: no failure`;
  return `${head}\nfuzz: FAILED after ${r.failure.shrinks} shrinks (rerun: npm run fuzz -- --seed ${r.seed})\n${r.failure.message}\ncounterexample: ${r.failure.counterexample.slice(0, 2000)}`;
}
