import { describe, expect, it } from 'vitest';
import type { Network, Server } from '../../simulator/api/schema/index.ts';
import { toRoutes } from './routes.ts';

const server = (id: string, name: string, ip: string): Server => ({
  id,
  name,
  status: 'running',
  server_type: 'sc-small',
  image: 'img',
  zone: 'z',
  region: 'r',
  labels: {},
  public_ipv4: null,
  public_ipv6: null,
  private_ipv4: ip,
  private_networks: [{ network_id: 'net-1', ip }],
  locked: false,
  created: '2026-01-01T00:00:00Z',
});

const network: Network = {
  id: 'net-1',
  name: 'cluster',
  ip_range: '10.0.0.0/16',
  subnets: [],
  servers: [],
  load_balancers: [],
  labels: {},
  created: '2026-01-01T00:00:00Z',
  routes: [
    { id: 'rt-1', name: '0d7c5a2e-6f1b-4c1e-9a59-3b2f0c8e7d41', destination: '10.244.1.0/24', gateway: '10.0.0.11', created: '2026-01-01T00:00:00Z' },
    { id: 'rt-2', name: null, destination: '10.244.2.0/24', gateway: '10.0.0.99', created: '2026-01-01T00:00:00Z' },
  ],
};

describe('toRoutes', () => {
  it('maps the gateway back to the node, names routes by their name hint (else id), and flags unknown gateways as blackholes', () => {
    expect(toRoutes(network, [server('srv-1', 'worker-1', '10.0.0.11')])).toEqual([
      {
        name: '0d7c5a2e-6f1b-4c1e-9a59-3b2f0c8e7d41',
        targetNode: 'worker-1',
        targetNodeAddresses: [],
        destinationCIDR: '10.244.1.0/24',
        blackhole: false,
        enableNodeAddresses: false,
      },
      { name: 'rt-2', targetNode: '', targetNodeAddresses: [], destinationCIDR: '10.244.2.0/24', blackhole: true, enableNodeAddresses: false },
    ]);
  });
});
