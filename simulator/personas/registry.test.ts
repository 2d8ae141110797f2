// The registration list against the contract: the registry accepts it, each persona's paths canonicalise
// to simcloud's, each renders the whole catalogue, and the composed attribute schema takes each slice.
import { describe, expect, it } from 'vitest';
import { REGIONS, SERVER_TYPES } from '../server/resources/catalogue/data.ts';
import { PersonaRegistry } from '../server/persona-registry.ts';
import { defaultAttrs } from './hcloud/lb-attrs.ts';
import { PERSONAS } from './registry.ts';

const registry = new PersonaRegistry(PERSONAS);

describe('the registered personas', () => {
  it.each([
    ['/hcloud/v1/servers/42/actions/poweron', '/v1/servers/srv-00000042/actions/poweron'],
    ['/hcloud/v1/load_balancers/7', '/v1/load_balancers/lb-00000007'],
    ['/hcloud/v1/servers', '/v1/servers'],
    ['/hcloud/v1/locations/1', '/v1/locations/1'],
    ['/v4/linode/instances/42/boot', '/v1/servers/srv-00000042/boot'],
    ['/v4/networking/firewalls/9', '/v1/firewall_policies/fwp-00000009'],
    ['/v2/load_balancers/00000000-0000-4000-8000-000000000042', '/v1/load_balancers/lb-00000042'],
    ['/v2/droplets/5/actions', '/v1/servers/srv-00000005/actions'],
    ['/v1/servers/srv-00000042', '/v1/servers/srv-00000042'],
  ])('canonicalise %s to %s', (path, want) => {
    expect(registry.canonicalPath(path)).toBe(want);
  });

  it('tell API calls from the rest', () => {
    expect(registry.isApiPath('/hcloud/v1/servers')).toBe(true);
    expect(registry.isApiPath('/v4/linode/instances')).toBe(true);
    expect(registry.isApiPath('/v2/droplets')).toBe(true);
    expect(registry.isApiPath('/v1/servers')).toBe(true);
    expect(registry.isApiPath('/hcloud/v2/servers')).toBe(false);
    expect(registry.isApiPath('/_sim/health')).toBe(false);
    expect(registry.of('/hcloud/v1/actions')?.name).toBe('hcloud');
  });

  it.each(PERSONAS.map((p) => [p.name, p] as const))('%s renders every region and server type of the catalogue', (_name, p) => {
    for (const r of REGIONS) expect(Object.keys(p.catalogue.region(r)).length).toBeGreaterThan(0);
    for (const t of SERVER_TYPES) expect(Object.keys(p.catalogue.serverType(t)).length).toBeGreaterThan(0);
  });

  it('compose the attribute schema from their slices, refusing a malformed slice and keeping an unknown one', () => {
    const lbs = registry.attrsSchema('load_balancers');
    expect(lbs.safeParse({ hcloud: defaultAttrs('lb11'), retired: { anything: 1 } }).success).toBe(true);
    expect(lbs.safeParse({ hcloud: { ...defaultAttrs('lb11'), dns_ptr: 7 } }).success).toBe(false);
    expect(registry.attrsSchema('firewall_policies').safeParse({ linode: { inbound_policy: 'DROP' } }).success).toBe(false);
  });
});
