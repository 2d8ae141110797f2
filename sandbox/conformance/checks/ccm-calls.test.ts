import { describe, expect, it } from 'vitest';
import { endpointList, endpointOf, perEndpoint } from './ccm-calls.ts';

describe('CCM calls per endpoint', () => {
  it.each([
    [{ method: 'GET', path: '/v1/servers/srv-00000042' }, 'GET /v1/servers/{id}'],
    [{ method: 'GET', path: '/hcloud/v1/servers/42' }, 'GET /hcloud/v1/servers/{id}'],
    [{ method: 'GET', path: '/v4/vpcs/7/ips' }, 'GET /v4/vpcs/{id}/ips'],
    [{ method: 'GET', path: '/v2/droplets?page=2' }, 'GET /v2/droplets'],
    [{ method: 'POST', path: '/v1/networks/net-0000000a/routes' }, 'POST /v1/networks/{id}/routes'],
  ])('folds ids but not API versions: %j is %s', (call, endpoint) => {
    expect(endpointOf(call)).toBe(endpoint);
  });

  it('counts calls per endpoint, most first, and lists them in a few words', () => {
    const calls = [
      { method: 'GET', path: '/v1/servers' },
      { method: 'GET', path: '/v1/servers/srv-1' },
      { method: 'GET', path: '/v1/servers/srv-2' },
    ];
    expect(perEndpoint(calls)).toEqual([
      ['GET /v1/servers/{id}', 2],
      ['GET /v1/servers', 1],
    ]);
    expect(endpointList(calls)).toBe('GET /v1/servers/{id} x2, GET /v1/servers x1');
    expect(endpointList([])).toBe('none');
  });
});
