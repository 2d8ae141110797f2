/**
 * Answers checked against their schemas, for tests and development: with `SIMCLOUD_VALIDATE_RESPONSES=1` in
 * simcloud's environment (read once, when the app is built) every route's answer is parsed with the response
 * schema its RouteDef declares, in the JSON form it is sent in, before it leaves. An answer that does not
 * match is not sent: the request fails with a 500 naming the route, each field's path and the value found
 * there, and the same text is logged at error. The test suites run with it on (vitest.config.ts for every
 * project, and go/internal/simcloudtest for the Go tests), so a view that drops, renames or mistypes a field
 * fails the test that reads it. /v1's typed client parses the same schemas on its side.
 */
import type { z } from 'zod';
import type { RouteDef } from './route-definitions.ts';

export const VALIDATE_RESPONSES_ENV = 'SIMCLOUD_VALIDATE_RESPONSES';

/** Whether `SIMCLOUD_VALIDATE_RESPONSES` asks for response validation (`1` or `true`). */
export function validateResponsesFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  const v = env[VALIDATE_RESPONSES_ENV]?.trim().toLowerCase();
  return v === '1' || v === 'true';
}

const MAX_ISSUES = 5;
const MAX_VALUE = 160;

/** The value at a zod issue's path in the answer. */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

function preview(v: unknown): string {
  const s = v === undefined ? 'absent' : JSON.stringify(v);
  return s.length > MAX_VALUE ? `${s.slice(0, MAX_VALUE)}...` : s;
}

function describeIssue(wire: unknown, issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join('.');
  const where = path === '' ? '(root)' : path;
  if (issue.code === 'unrecognized_keys') return `${where}: unknown field(s) ${issue.keys.join(', ')}`;
  return `${where}: ${issue.message} (value: ${preview(valueAt(wire, issue.path))})`;
}

/** The route's name in messages: method, path and operation. */
export const routeName = (def: Pick<RouteDef, 'method' | 'path' | 'operation'>): string => `${def.method.toUpperCase()} ${def.path} (${def.operation})`;

/**
 * Why an answer does not match its route's response schema, or undefined when it does (or the route declares
 * none). The answer is checked as it goes on the wire: through JSON, so an `undefined` field counts as absent.
 */
export function responseMismatch(def: Pick<RouteDef, 'method' | 'path' | 'operation' | 'response'>, result: unknown): string | undefined {
  if (def.response === undefined) return undefined;
  const wire: unknown = result === undefined ? undefined : JSON.parse(JSON.stringify(result));
  const parsed = def.response.safeParse(wire);
  if (parsed.success) return undefined;
  const issues = parsed.error.issues;
  const more = issues.length > MAX_ISSUES ? `; and ${issues.length - MAX_ISSUES} more` : '';
  return `response of ${routeName(def)} does not match its schema: ${issues
    .slice(0, MAX_ISSUES)
    .map((i) => describeIssue(wire, i))
    .join('; ')}${more}`;
}
