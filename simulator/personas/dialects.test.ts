import { describe, expect, it } from 'vitest';
import './hcloud/dialect.ts';
import { canonicalPath, dialectOf, isApiPath } from './dialects.ts';
import { numericId, numericMessage, simcloudId } from './numeric-ids.ts';

describe('numeric ids', () => {
  it('are the store sequence number inside a simcloud id, and turn back into it', () => {
    expect(numericId('srv-00000042')).toBe(42);
    expect(simcloudId('srv', 42)).toBe('srv-00000042');
    expect(simcloudId('lb', 123_456_789)).toBe('lb-123456789');
    expect(numericId(simcloudId('lb', 123_456_789))).toBe(123_456_789);
  });

  it('are null for an id the sequence did not make', () => {
    expect(numericId('srv-0001a2')).toBeNull();
  });

  it('replace simcloud ids in messages', () => {
    expect(numericMessage('server srv-00000042 not found on net-00000007')).toBe('server 42 not found on 7');
  });
});

describe('dialect paths', () => {
  it.each([
    ['/hcloud/v1/servers/42/actions/poweron', '/v1/servers/srv-00000042/actions/poweron'],
    ['/hcloud/v1/load_balancers/7', '/v1/load_balancers/lb-00000007'],
    ['/hcloud/v1/servers', '/v1/servers'],
    ['/hcloud/v1/locations/1', '/v1/locations/1'],
    ['/v1/servers/srv-00000042', '/v1/servers/srv-00000042'],
  ])('canonicalises %s to %s', (path, want) => {
    expect(canonicalPath(path)).toBe(want);
  });

  it('tells API calls from the rest', () => {
    expect(isApiPath('/hcloud/v1/servers')).toBe(true);
    expect(isApiPath('/v1/servers')).toBe(true);
    expect(isApiPath('/hcloud/v2/servers')).toBe(false);
    expect(isApiPath('/_sim/health')).toBe(false);
    expect(dialectOf('/hcloud/v1/actions')?.name).toBe('hcloud');
  });
});
