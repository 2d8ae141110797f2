/** Shared plumbing of the resource clients: one call = one operation name, a request and a response schema. */
import type { z } from 'zod';
import type { ListMeta } from '../schema/common.ts';
import { mapWithConcurrency } from '../../../lib/concurrency.ts';
import { parseChecked } from '../../../lib/zod-guard.ts';
import { SimcloudApiError } from './errors.ts';
import type { Handler, TransportRequest } from './transport.ts';

/** Options every method accepts as its last argument. */
export interface CallOptions {
  /** `X-Simcloud-Caller` for this call (e.g. `service-lb-controller default/web`); overrides the client's. */
  caller?: string;
  /** `X-Simcloud-Method`: the cloud-provider interface method this call belongs to (e.g. `EnsureLoadBalancer`). */
  method?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface CallInit {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: TransportRequest['query'];
  body?: unknown;
}

export class Requester {
  readonly #handler: Handler;

  constructor(handler: Handler) {
    this.#handler = handler;
  }

  async call<S extends z.ZodType>(operation: string, schema: S, init: CallInit, opts: CallOptions = {}): Promise<z.infer<S>> {
    const res = await this.#handler(request(operation, init, opts));
    const parsed = parseChecked(schema, res.body);
    if (parsed.success) return parsed.data;
    throw new SimcloudApiError({
      code: 'invalid_response',
      message: `response does not match the schema: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; ')}`,
      status: res.status,
      requestId: res.requestId,
      operation,
      cause: parsed.error,
    });
  }

  /** For endpoints answering 204. */
  async callVoid(operation: string, init: CallInit, opts: CallOptions = {}): Promise<void> {
    await this.#handler(request(operation, init, opts));
  }
}

function request(operation: string, init: CallInit, opts: CallOptions): TransportRequest {
  const headers: Record<string, string> = {};
  if (opts.caller !== undefined) headers['x-simcloud-caller'] = opts.caller;
  if (opts.method !== undefined) headers['x-simcloud-method'] = opts.method;
  return { ...init, operation, headers, timeoutMs: opts.timeoutMs, signal: opts.signal };
}

/** Pages fetched at once after the first: the first names the last page. */
const PAGE_CONCURRENCY = 4;

/**
 * Every item of a list, in page order: the first page, then the pages up to the last one it names, a few at
 * a time (a 2 000-server list is four pages of 500: read one after the other, they held a route pass up
 * for each other's round trip), then on page by page while the list grew meanwhile.
 */
export async function collectPages<T>(fetchPage: (page: number) => Promise<{ items: T[]; meta: ListMeta }>): Promise<T[]> {
  const first = await fetchPage(1);
  const all: T[] = [...first.items];
  let next = first.meta.pagination.next_page;
  if (next === null) return all;
  const known = Array.from({ length: Math.max(0, first.meta.pagination.last_page - 1) }, (_, i) => i + 2);
  for (const page of await mapWithConcurrency(known, PAGE_CONCURRENCY, (n) => fetchPage(n))) {
    all.push(...page.items);
    next = page.meta.pagination.next_page;
  }
  for (; next !== null;) {
    const page = await fetchPage(next);
    all.push(...page.items);
    next = page.meta.pagination.next_page;
  }
  return all;
}

/** Encodes a path segment (ids are safe, but names from users may not be). */
export const seg = (s: string): string => encodeURIComponent(s);
