// Loopback address plans: four consecutive /16s of 127.0.0.0/8 for one simcloud's server addresses, LB
// VIPs, IP blocks and private networks, so several sandboxes (test suites running side by side, a bench
// next to a dev sandbox) never hand out the same VIP or node address. The default plan is simcloud's own.

export interface AddressPlan {
  /** `simcloud serve` arguments setting the pools. */
  readonly simcloudArgs: readonly string[];
  /** The cluster's private network. */
  readonly networkRange: string;
}

/** The plan starting at 127.<base>.0.0; base must leave room for four /16s. */
export function loopbackAddressPlan(base: number): AddressPlan {
  if (!Number.isInteger(base) || base < 3 || base > 252) throw new RangeError(`address plan base ${base} must be an integer from 3 to 252`);
  const pools = {
    server_public: `127.${base}.0.0/18`,
    lb_vip: `127.${base + 1}.0.0/16`,
    ip_block: `127.${base + 2}.0.0/16`,
    private_networks: `127.${base + 3}.0.0/16`,
  };
  return {
    simcloudArgs: Object.entries(pools).map(([name, cidr]) => `--pool=${name}=${cidr}`),
    networkRange: pools.private_networks,
  };
}
