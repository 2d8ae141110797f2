// The APIs the fuzz suite attacks, read from the route tables simcloud mounts: /v1 (API_ROUTES) and every
// persona of the registration list (PERSONAS), so a route or a persona added later is fuzzed without a line
// here. What a persona's row in the security suite knows (test/security/persona-rows.ts: its envelope, its ids
// for a project's resources, a valid body per route) is reused; a persona without a row is still fuzzed, its
// path ids hostile only and its error bodies checked for JSON alone.
import { numericIdOf } from '../../../simulator/personas/numeric-ids.ts';
import { PERSONAS } from '../../../simulator/personas/registry.ts';
import { API_ROUTES } from '../../../simulator/server/app.ts';
import type { RouteDef } from '../../../simulator/server/route-definitions.ts';
import { PERSONA_ROWS, type Owned, type PersonaRow } from '../../security/persona-rows.ts';
import type { RawResponse } from '../../security/support.ts';

/** What an error answer says, in any API's envelope. */
export interface ErrorReading {
  code: string;
  fields: string[];
}

export interface FuzzApi {
  readonly name: string;
  readonly prefix: string;
  readonly routes: readonly RouteDef[];
  readonly row: PersonaRow | undefined;
  /** Reads an error answer (throws when it is not the API's envelope). */
  read(r: RawResponse): ErrorReading;
  /** Whether a 4xx is a refused input, which must name the field at fault. */
  invalid(r: RawResponse, e: ErrorReading): boolean;
  /** The path parameters naming the project's resources (undefined: the API's ids are unknown here). */
  params(path: string, o: Owned): Record<string, string> | undefined;
  /** Requests that put the project's resources in the state the riskiest writes need (a Brightbox cloud IP mapped, so unmap commits). */
  prepare(o: Owned): readonly (readonly [method: string, path: string, body: unknown])[];
  /** The collections it lists, each with the number of records its answer says the project has. */
  readonly lists: Readonly<Partial<Record<Listed, (json: unknown) => number>>>;
  /** List paths, by collection (with paging wide enough to count). */
  /** Where each collection is listed; several paths add up (phoenixNAP lists private and public networks apart). */
  readonly listPaths: Readonly<Partial<Record<Listed, string | readonly string[]>>>;
}

export type Listed = 'servers' | 'load_balancers' | 'networks' | 'ip_blocks';

type V1Error = { error: { code: string; details?: { fields?: { name: string }[] } } };
const readV1 = (r: RawResponse): ErrorReading => {
  const e = (r.json() as V1Error).error;
  if (typeof e.code !== 'string') throw new Error('no error.code');
  return { code: e.code, fields: (e.details?.fields ?? []).map((f) => f.name) };
};

const V1_IDS: Record<string, keyof Owned | 'route'> = { servers: 'server', networks: 'network', load_balancers: 'lb' };
const V1_PREFIX: Record<string, string> = { servers: 'srv', networks: 'net', load_balancers: 'lb', actions: 'act' };

function v1Params(path: string, o: Owned): Record<string, string> | undefined {
  const coll = path.split('/')[2] ?? '';
  const key = V1_IDS[coll];
  if (key === undefined && coll !== 'actions') return undefined;
  const n = coll === 'actions' ? o.actions.servers : o[key as 'server'];
  const id = `${V1_PREFIX[coll]}-${String(n).padStart(8, '0')}`;
  return { id, ...(path.includes(':routeId') ? { routeId: 'rt-00000001' } : {}) };
}

const total =
  (get: (j: Record<string, unknown>) => unknown) =>
  (json: unknown): number =>
    Number(get(json as Record<string, unknown>));
const paged = (j: Record<string, unknown>): unknown => (j.meta as { pagination: { total_entries: number } }).pagination.total_entries;
const length = (json: unknown): number => (json as unknown[]).length;

const V1: FuzzApi = {
  name: 'v1',
  prefix: '/v1',
  routes: API_ROUTES,
  row: undefined,
  read: readV1,
  invalid: (_r, e) => e.code === 'invalid_input',
  params: v1Params,
  prepare: () => [],
  lists: { servers: total(paged), load_balancers: total(paged), networks: total(paged), ip_blocks: total(paged) },
  listPaths: { servers: '/v1/servers', load_balancers: '/v1/load_balancers', networks: '/v1/networks', ip_blocks: '/v1/ip_blocks' },
};

/** Each persona's lists, for the one-store check (a persona that lists none is left out of it). */
const LISTS: Readonly<Record<string, Pick<FuzzApi, 'lists' | 'listPaths'>>> = {
  hcloud: {
    lists: { servers: total(paged), load_balancers: total(paged), networks: total(paged) },
    listPaths: { servers: '/hcloud/v1/servers', load_balancers: '/hcloud/v1/load_balancers', networks: '/hcloud/v1/networks' },
  },
  linode: {
    lists: { servers: total((j) => j.results), load_balancers: total((j) => j.results) },
    listPaths: { servers: '/v4/linode/instances', load_balancers: '/v4/nodebalancers' },
  },
  digitalocean: {
    lists: { servers: total((j) => (j.meta as { total: number }).total), load_balancers: total((j) => (j.meta as { total: number }).total) },
    listPaths: { servers: '/v2/droplets', load_balancers: '/v2/load_balancers' },
  },
  phoenixnap: {
    lists: { servers: length, ip_blocks: length, networks: length },
    listPaths: {
      servers: '/pnap/bmc/v1/servers',
      ip_blocks: '/pnap/ips/v1/ip-blocks',
      networks: ['/pnap/networks/v1/private-networks', '/pnap/networks/v1/public-networks'],
    },
  },
  brightbox: {
    lists: { servers: length, load_balancers: length, ip_blocks: length },
    listPaths: { servers: '/brightbox/1.0/servers', load_balancers: '/brightbox/1.0/load_balancers', ip_blocks: '/brightbox/1.0/cloud_ips' },
  },
};

/** JSON with some string member: any JSON error body of a persona without a row. */
const readAny = (r: RawResponse): ErrorReading => {
  const j = r.json();
  if (j === null || typeof j !== 'object') throw new Error('not a JSON object');
  return { code: String(r.status), fields: [] };
};

function personaApi(p: (typeof PERSONAS)[number]): FuzzApi {
  const row = PERSONA_ROWS.find((x) => x.name === p.name);
  return {
    name: p.name,
    prefix: p.prefix,
    routes: p.routes,
    row,
    read: (r) => (row === undefined ? readAny(r) : row.read(r)),
    invalid: (r, e) => row !== undefined && r.status === row.codes.invalidStatus && row.codes.invalid.test(e.code),
    params: (path, o) => {
      if (row === undefined) return undefined;
      try {
        return row.params(path, o);
      } catch {
        return undefined;
      }
    },
    lists: LISTS[p.name]?.lists ?? {},
    listPaths: LISTS[p.name]?.listPaths ?? {},
    prepare: (o) => {
      const cip = row === undefined ? undefined : p.routes.find((r) => r.operation === 'brightbox.cloud_ips.map');
      if (row === undefined || cip === undefined || o.extra.cip === undefined) return [];
      const ids = (path: string): Record<string, string> => row.params(path, o);
      const lb = p.routes.find((r) => r.operation === 'brightbox.load_balancers.get');
      return lb === undefined ? [] : [['POST', cip.path.replace(':id', ids(cip.path).id!), { destination: ids(lb.path).id }]];
    },
  };
}

export const FUZZ_APIS: readonly FuzzApi[] = [V1, ...PERSONAS.map(personaApi)];

/** The store number behind a /v1 id. */
export const storeNumber = numericIdOf;
