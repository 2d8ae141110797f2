// The registry on its own, with a made-up persona: what it refuses at start and how it reads paths.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Persona } from './persona.ts';
import { PersonaRegistry } from './persona-registry.ts';

function persona(over: Partial<Persona> = {}): Persona {
  const prefix = over.prefix ?? '/acme/v3';
  return {
    name: 'acme',
    prefix,
    routes: [{ method: 'get', path: `${prefix}/machines`, operation: 'acme.machines.list', summary: 'List', handle: () => ({}) }],
    errors: { status: (e) => e.status, body: (e) => ({ fault: e.code }) },
    rateLimitReset: 'delta',
    paths: {
      collections: { machines: { coll: 'servers', idPrefix: 'srv' }, 'edge/balancers': { coll: 'load_balancers', idPrefix: 'lb' } },
      numberOf: (id) => (id === 'first' ? 1 : null),
    },
    attrs: { load_balancers: z.object({ tier: z.enum(['gold', 'tin']) }) },
    catalogue: { region: (r) => ({ code: r.id }), serverType: (t) => ({ code: t.id }) },
    ...over,
  };
}

describe('PersonaRegistry', () => {
  it("finds the persona of a path and canonicalises it, ids by number or by the persona's own spelling", () => {
    const reg = new PersonaRegistry([persona()]);
    expect(reg.of('/acme/v3/machines')?.name).toBe('acme');
    expect(reg.of('/acme/v3')).toBeUndefined();
    expect(reg.canonicalPath('/acme/v3/machines/42/reboot')).toBe('/v1/servers/srv-00000042/reboot');
    expect(reg.canonicalPath('/acme/v3/machines/first')).toBe('/v1/servers/srv-00000001');
    expect(reg.canonicalPath('/acme/v3/edge/balancers/7')).toBe('/v1/load_balancers/lb-00000007');
    expect(reg.canonicalPath('/acme/v3/zones/z1')).toBe('/v1/zones/z1');
    expect(reg.isApiPath('/acme/v3/machines')).toBe(true);
    expect(reg.isApiPath('/v1/servers')).toBe(true);
    expect(reg.isApiPath('/acme/v4/machines')).toBe(false);
    expect(reg.routes().map((r) => r.operation)).toEqual(['acme.machines.list']);
  });

  it("serves every route at an alias too, and reads a path under it as the persona's", () => {
    const reg = new PersonaRegistry([persona({ aliases: ['/acme/v3beta'] })]);
    expect(reg.routes().map((r) => r.path)).toEqual(['/acme/v3/machines', '/acme/v3beta/machines']);
    expect(reg.of('/acme/v3beta/machines')?.name).toBe('acme');
    expect(reg.canonicalPath('/acme/v3beta/machines/42')).toBe('/v1/servers/srv-00000042');
    expect(reg.isApiPath('/acme/v3beta/machines')).toBe(true);
  });

  it('with no persona, knows /v1 alone', () => {
    const reg = new PersonaRegistry([]);
    expect(reg.isApiPath('/v1/servers')).toBe(true);
    expect(reg.isApiPath('/acme/v3/machines')).toBe(false);
    expect(reg.canonicalPath('/acme/v3/machines/1')).toBe('/acme/v3/machines/1');
  });

  it.each([
    ['a second persona of the same name', [persona(), persona({ prefix: '/other' })], /two personas are named acme/],
    ['a prefix inside another', [persona(), persona({ name: 'beta', prefix: '/acme/v3/beta' })], /overlaps \/acme\/v3/],
    ["a prefix on simcloud's own paths", [persona({ prefix: '/v1/acme' })], /overlaps \/v1/],
    [
      "an alias on another persona's prefix",
      [persona(), persona({ name: 'beta', prefix: '/beta', aliases: ['/acme/v3'] })],
      /prefix \/acme\/v3 overlaps \/acme\/v3/,
    ],
    ["an alias on simcloud's own paths", [persona({ aliases: ['/_sim/acme'] })], /overlaps \/_sim/],
    ['a malformed prefix', [persona({ prefix: 'acme/' })], /must be \/segment/],
    ['a name unfit for a record key', [persona({ name: 'Acme Cloud' })], /must match/],
    [
      'a route outside the prefix',
      [persona({ routes: [{ method: 'get', path: '/v9/x', operation: 'x', summary: 'x', handle: () => ({}) }] })],
      /GET \/v9\/x is outside/,
    ],
  ])('refuses %s', (_what, list, message) => {
    expect(() => new PersonaRegistry(list)).toThrow(message);
  });

  it("composes dialect_attrs from the slices: a malformed slice fails, another persona's passes untouched", () => {
    const schema = new PersonaRegistry([persona()]).attrsSchema('load_balancers');
    expect(schema.parse({ acme: { tier: 'gold' }, gone: { x: 1 } })).toEqual({ acme: { tier: 'gold' }, gone: { x: 1 } });
    expect(schema.safeParse({ acme: { tier: 'lead' } }).success).toBe(false);
    expect(new PersonaRegistry([persona()]).attrsSchema('firewall_policies').safeParse({ acme: 'anything' }).success).toBe(true);
  });
});
