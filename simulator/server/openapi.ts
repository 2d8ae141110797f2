/** The OpenAPI 3.1 document, generated from the route table and the zod wire schemas. */
import { z } from 'zod';
import { ErrorEnvelope } from '../api/schema/errors.ts';
import type { RouteDef } from './route-definitions.ts';

type Json = Record<string, unknown>;

const schemaOf = (s: z.ZodType, io: 'input' | 'output'): Json => z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'draft-2020-12' });

function parameters(def: RouteDef): Json[] {
  const path = [...def.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  if (def.query === undefined) return path;
  const q = schemaOf(def.query, 'input') as { properties?: Record<string, Json>; required?: string[] };
  const query = Object.entries(q.properties ?? {}).map(([name, schema]) => ({ name, in: 'query', required: q.required?.includes(name) ?? false, schema }));
  return [...path, ...query];
}

function operation(def: RouteDef): Json {
  const status = String(def.status ?? 200);
  const success =
    def.response === undefined || status === '204'
      ? { description: 'No content' }
      : { description: 'Success', content: { 'application/json': { schema: schemaOf(def.response, 'output') } } };
  return {
    operationId: def.operation,
    summary: def.summary,
    parameters: parameters(def),
    ...(def.body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(def.body, 'input') } } } }),
    responses: { [status]: success, default: { description: 'Error', content: { 'application/json': { schema: schemaOf(ErrorEnvelope, 'output') } } } },
    security: [{ bearer: [] }],
  };
}

export function buildOpenApi(defs: readonly RouteDef[]): Json {
  const paths: Record<string, Json> = {};
  for (const def of defs) {
    const path = def.path.replace(/:([A-Za-z]+)/g, '{$1}');
    paths[path] = { ...paths[path], [def.method]: operation(def) };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'simcloud', version: '0.1.0', description: 'A simulated small cloud for Kubernetes cloud-controller-managers.' },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths,
  };
}
