/**
 * Route definitions as data: each route names its operation (the client method), its param, query
 * and body schemas, its response schema and status, and a handler that sees only parsed input and
 * the caller. `mountRoutes` turns them into express handlers; `openapi.ts` turns them into the
 * OpenAPI document. Routes never touch the store: handlers call services.
 */
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import type { Caller, Sim } from './context.ts';
import { protoKeyPath } from '../../lib/keyed.ts';
import { SimcloudError, fieldsFromZod, invalidInput } from './errors.ts';
import { responseMismatch, routeName, validateResponsesFromEnv } from './response-check.ts';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface HandlerInput<P, Q, B> {
  caller: Caller;
  params: P;
  query: Q;
  body: B;
}

export interface RouteDef<P = unknown, Q = unknown, B = unknown> {
  method: Method;
  /** Express path, e.g. `/v1/servers/:id`. */
  path: string;
  /** The client method, e.g. `servers.get`. */
  operation: string;
  summary: string;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  /** Request headers (by name) parsed with the query, for APIs that filter by header (Linode's X-Filter). */
  queryHeaders?: readonly string[];
  body?: z.ZodType<B>;
  /** What the route answers (a 204 route's is `z.undefined()`); checked before sending when validation is on (response-check.ts). */
  response?: z.ZodType;
  /** Success status (default 200). */
  status?: number;
  handle(sim: Sim, input: HandlerInput<P, Q, B>): unknown;
}

/** Keeps inference of P, Q and B for the handler. */
export function defineRoute<P, Q, B>(def: RouteDef<P, Q, B>): RouteDef {
  return def;
}

const IdParam = z.object({ id: z.string() });
export const idParams = IdParam;

function parsePart<T>(schema: z.ZodType<T> | undefined, value: unknown, part: 'params' | 'query' | 'body'): T {
  if (schema === undefined) return undefined as T;
  // zod drops a `__proto__` key without a word: refuse it, naming where it was, rather than answer as if it were absent.
  const proto = part === 'params' ? undefined : protoKeyPath(value);
  if (proto !== undefined)
    throw invalidInput(`invalid ${part === 'body' ? 'request body' : 'query parameters'}`, [{ name: proto, messages: ['__proto__ is not a valid key'] }]);
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const fields = fieldsFromZod(r.error, part === 'body' ? '' : part === 'query' ? '' : '');
  if (part === 'params') throw new SimcloudError('not_found', 'no such resource', { fields });
  throw invalidInput(`invalid ${part === 'body' ? 'request body' : 'query parameters'}`, fields);
}

function callerOf(res: Response): Caller {
  return res.locals.caller as Caller;
}

function withHeaders(req: Request, names: readonly string[] | undefined): unknown {
  if (names === undefined) return req.query;
  return { ...req.query, ...Object.fromEntries(names.flatMap((n) => (req.get(n) === undefined ? [] : [[n, req.get(n)]]))) };
}

export interface MountOptions {
  /**
   * Check every answer against its route's response schema before sending it (response-check.ts). Absent:
   * SIMCLOUD_VALIDATE_RESPONSES, read once when the app mounts its routes; the test suites set it.
   */
  validateResponses?: boolean;
}

/** Throws, and logs, when validation is on and the answer does not match the route's response schema. */
function checkAnswer(sim: Sim, def: RouteDef, result: unknown): void {
  const mismatch = responseMismatch(def, result);
  if (mismatch === undefined) return;
  sim.logger.error({ route: routeName(def) }, mismatch);
  throw new SimcloudError('server_error', mismatch);
}

export function mountRoutes(router: Router, sim: Sim, defs: readonly RouteDef[], opts: MountOptions = {}): void {
  const validate = opts.validateResponses ?? validateResponsesFromEnv();
  for (const def of defs) {
    router[def.method](def.path, async (req: Request, res: Response) => {
      const params = parsePart(def.params, req.params, 'params');
      const query = parsePart(def.query, withHeaders(req, def.queryHeaders), 'query');
      const body = parsePart(def.body, req.body ?? {}, 'body');
      const result = await def.handle(sim, { caller: callerOf(res), params, query, body });
      if (validate) checkAnswer(sim, def, result);
      const status = def.status ?? 200;
      if (status === 204 || result === undefined) res.status(204).end();
      else res.status(status).json(result);
    });
  }
}
