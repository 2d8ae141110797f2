// Drift check between the route table and the typed client: every route's operation id is a client
// method, and every client method has a route (OpenAPI operationIds are the same names).
import { describe, expect, it } from 'vitest';
import { SimcloudAdminClient, SimcloudClient } from '../api/client/index.ts';
import { ALL_ROUTES } from './app.ts';

/** Client methods that are another route's call: every page (`listAll`), a narrower answer (`listSummaries`). */
const VARIANTS = new Set(['constructor', 'listAll', 'listSummaries', 'waitForAction']);
const methods = (obj: object): string[] => Object.getOwnPropertyNames(Object.getPrototypeOf(obj)).filter((m) => !VARIANTS.has(m));

describe('route table', () => {
  it('has exactly one route per client method', () => {
    const client = new SimcloudClient({ endpoint: 'http://127.0.0.1:1', token: 't' });
    const groups = ['servers', 'networks', 'loadBalancers', 'serverGroups', 'firewallPolicies', 'ipBlocks', 'certificates', 'actions', 'catalogue'] as const;
    const clientOps = groups.flatMap((g) => methods(client[g]).map((m) => `${g}.${m}`));
    const adminOps = methods(new SimcloudAdminClient({ endpoint: 'http://127.0.0.1:1', token: 't' })).map((m) => `admin.${m}`);
    const routeOps = ALL_ROUTES.map((r) => r.operation);
    expect(new Set(routeOps).size).toBe(routeOps.length);
    expect([...routeOps].sort()).toEqual([...clientOps, ...adminOps].sort());
  });

  it('gives every route with a body a schema, and every non-204 route a response schema', () => {
    for (const r of ALL_ROUTES) {
      if (['post', 'put', 'patch'].includes(r.method)) expect(r.body, r.operation).toBeDefined();
      if ((r.status ?? 200) !== 204) expect(r.response, r.operation).toBeDefined();
    }
  });
});
