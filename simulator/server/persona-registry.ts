/**
 * The personas simcloud was started with (createApp's `personas`), and what the shared middleware asks about
 * a request path: which persona serves it, whether it is an API call (auth, rate limits and faults apply),
 * and its canonical /v1 path (so fault rules and resource types match one resource whichever persona
 * addresses it). Also the schema of `dialect_attrs` composed from the personas' slices, for records that
 * arrive from outside (snapshots). It knows no persona by name.
 */
import { z } from 'zod';
import { sequentialId } from './context.ts';
import type { RouteDef } from './route-definitions.ts';
import { AttrsCollection, type Persona } from './persona.ts';

/** Paths simcloud serves itself; no persona may mount on, under or above them. */
const RESERVED = ['/v1', '/_sim', '/metrics', '/openapi.json'];
const PREFIX = /^(\/[a-z0-9_.-]+)+$/;
/** A name is a key in stored records: keep it plain. */
const NAME = /^[a-z][a-z0-9_]*$/;

const under = (path: string, prefix: string): boolean => path.startsWith(`${prefix}/`);
const overlaps = (a: string, b: string): boolean => a === b || under(a, b) || under(b, a);

/** A persona's prefix and its aliases: every mount point it serves its routes at. */
const mounts = (p: Persona): string[] => [p.prefix, ...(p.aliases ?? [])];

function check(p: Persona, others: readonly Persona[]): void {
  if (!NAME.test(p.name)) throw new Error(`persona name ${p.name} must match ${NAME.source}`);
  if (others.some((o) => o.name === p.name)) throw new Error(`two personas are named ${p.name}`);
  const taken = [...RESERVED, ...others.flatMap(mounts)];
  for (const [i, m] of mounts(p).entries()) {
    if (!PREFIX.test(m)) throw new Error(`persona ${p.name}: prefix ${m} must be /segment[/segment...]`);
    const clash = [...taken, ...mounts(p).slice(0, i)].find((q) => overlaps(m, q));
    if (clash !== undefined) throw new Error(`persona ${p.name}: prefix ${m} overlaps ${clash}`);
  }
  const stray = p.routes.find((r) => !under(r.path, p.prefix));
  if (stray !== undefined) throw new Error(`persona ${p.name}: route ${stray.method.toUpperCase()} ${stray.path} is outside ${p.prefix}`);
}

/**
 * The schema of one collection's `dialect_attrs`: each persona's slice, optional. A slice of a persona that is
 * not registered passes as it is, so leaving a persona out of the list never makes its old state unreadable.
 */
function composeAttrs(list: readonly Persona[], coll: AttrsCollection): z.ZodType<Record<string, unknown>> {
  const shape = Object.fromEntries(
    list.flatMap((p) => {
      const schema = p.attrs[coll];
      return schema === undefined ? [] : [[p.name, schema.optional()]];
    }),
  );
  return z.object(shape).catchall(z.unknown());
}

export class PersonaRegistry {
  readonly all: readonly Persona[];
  readonly #attrs: Record<AttrsCollection, z.ZodType<Record<string, unknown>>>;

  constructor(personas: readonly Persona[]) {
    personas.forEach((p, i) => check(p, personas.slice(0, i)));
    this.all = [...personas];
    this.#attrs = {
      servers: composeAttrs(personas, AttrsCollection.servers),
      load_balancers: composeAttrs(personas, AttrsCollection.load_balancers),
      firewall_policies: composeAttrs(personas, AttrsCollection.firewall_policies),
    };
  }

  /** Every persona's routes, persona by persona in list order, each also at the persona's aliases. */
  routes(): RouteDef[] {
    return this.all.flatMap((p) =>
      mounts(p).flatMap((m) => (m === p.prefix ? p.routes : p.routes.map((r) => ({ ...r, path: `${m}${r.path.slice(p.prefix.length)}` })))),
    );
  }

  /** The persona whose prefix (or an alias of it) the path is under. */
  of(path: string): Persona | undefined {
    return this.all.find((p) => mounts(p).some((m) => under(path, m)));
  }

  /** Whether the path is an API call (simcloud's /v1 or a persona's) that auth, rate limits and faults govern. */
  isApiPath(path: string): boolean {
    return under(path, '/v1') || this.of(path) !== undefined;
  }

  /** `/hcloud/v1/servers/42/actions/poweron` -> `/v1/servers/srv-00000042/actions/poweron`; other paths unchanged. */
  canonicalPath(path: string): string {
    const p = this.of(path);
    const m = p === undefined ? undefined : mounts(p).find((x) => under(path, x));
    return p === undefined || m === undefined ? path : canonical(p, path.slice(m.length + 1));
  }

  /** The schema of `dialect_attrs` on records of `coll`, composed from every persona's slice. */
  attrsSchema(coll: AttrsCollection): z.ZodType<Record<string, unknown>> {
    return this.#attrs[coll];
  }
}

const numberIn = (p: Persona, id: string): number | null => (/^\d{1,15}$/.test(id) ? Number(id) : (p.paths.numberOf?.(id) ?? null));

/** A path below a persona's prefix as simcloud's: its collection mapped, its id turned into the simcloud id. */
function canonical(p: Persona, tail: string): string {
  const { collections } = p.paths;
  // Collections of several segments (`linode/instances`) are matched whole before splitting the path.
  const key = Object.keys(collections).find((k) => k.includes('/') && (tail === k || tail.startsWith(`${k}/`)));
  const [collection = '', id, ...rest] =
    key === undefined
      ? tail.split('/')
      : [
          key,
          ...tail
            .slice(key.length + 1)
            .split('/')
            .filter((x) => x !== ''),
        ];
  const mapped = collections[collection];
  if (mapped === undefined) return `/v1/${collection}${id === undefined ? '' : `/${[id, ...rest].join('/')}`}`;
  const n = id === undefined ? null : numberIn(p, id);
  const sid = n === null ? id : sequentialId(mapped.idPrefix, n);
  return ['/v1', mapped.coll, ...(sid === undefined ? [] : [sid]), ...rest].join('/');
}
