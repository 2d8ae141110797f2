/**
 * The dialects simcloud speaks besides its own /v1: each is a view over the one store, mounted under its own
 * prefix. The shared middleware asks this module three things about a request path: whether it is an API call
 * (auth, rate limits and faults apply), its canonical simcloud path (so fault rules and resource types match
 * the same resource whichever dialect addresses it), and how the dialect writes errors and rate-limit headers.
 */
import type { SimcloudError } from '../server/errors.ts';
import { simcloudId } from './numeric-ids.ts';

export interface DialectError {
  code: string;
  message: string;
  details?: unknown;
}

export interface Dialect {
  name: string;
  /** Mount point, e.g. `/hcloud/v1`. */
  prefix: string;
  /** Dialect collection path (one or more segments, e.g. `linode/instances`) -> simcloud collection and id prefix. */
  collections: Record<string, { coll: string; idPrefix: string }>;
  /** The error body inside `{"error": ...}`, in the dialect's codes. */
  error(e: SimcloudError): DialectError;
  /** The whole error body, for a dialect whose envelope is not `{"error": ...}` (Linode's `{"errors": [...]}`). */
  errorBody?(e: SimcloudError, requestId?: string): unknown;
  /** The HTTP status of an error, for a dialect whose statuses differ from simcloud's (DigitalOcean's 422, Linode's busy 400). */
  status?(e: SimcloudError): number;
  /** The store number behind a path id that is not an integer (DigitalOcean's load balancer UUIDs), else null. */
  numberOf?(id: string): number | null;
  /** RateLimit-Reset: seconds until the window resets, or the Unix time it resets at. */
  rateLimitReset: 'delta' | 'epoch';
}

const registered: Dialect[] = [];

export function registerDialect(d: Dialect): void {
  if (!registered.some((x) => x.name === d.name)) registered.push(d);
}

export function dialectOf(path: string): Dialect | undefined {
  return registered.find((d) => path.startsWith(`${d.prefix}/`));
}

/** Whether the path is an API call (simcloud's /v1 or a dialect's) that auth, rate limits and faults govern. */
export const isApiPath = (path: string): boolean => path.startsWith('/v1/') || dialectOf(path) !== undefined;

const numberIn = (d: Dialect, id: string): number | null => (/^\d{1,15}$/.test(id) ? Number(id) : (d.numberOf?.(id) ?? null));

/** `/hcloud/v1/servers/42/actions/poweron` -> `/v1/servers/srv-00000042/actions/poweron`; /v1 paths unchanged. */
export function canonicalPath(path: string): string {
  const d = dialectOf(path);
  if (d === undefined) return path;
  const tail = path.slice(d.prefix.length + 1);
  const key = Object.keys(d.collections).find((k) => k.includes('/') && (tail === k || tail.startsWith(`${k}/`)));
  const [collection = '', id, ...rest] = key === undefined ? tail.split('/') : [key, ...tail.slice(key.length + 1).split('/').filter((x) => x !== '')];
  const mapped = d.collections[collection];
  if (mapped === undefined) return `/v1/${collection}${id === undefined ? '' : `/${[id, ...rest].join('/')}`}`;
  const n = id === undefined ? null : numberIn(d, id);
  const sid = n === null ? id : simcloudId(mapped.idPrefix, n);
  return ['/v1', mapped.coll, ...(sid === undefined ? [] : [sid]), ...rest].join('/');
}
