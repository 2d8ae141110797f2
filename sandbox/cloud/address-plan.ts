// Loopback address plans: four consecutive /16s of 127.0.0.0/8 for one simcloud's server addresses, LB
// VIPs, IP blocks and private networks, so several sandboxes (test suites running side by side, a bench
// next to a dev sandbox, test runs of two checkouts) never hand out the same VIP or node address. The
// default plan is simcloud's own; claimLoopbackAddressPlan hands out the others, one holder at a time.
import { join } from 'node:path';
import { cacheBase } from '../control-plane/binaries.ts';
import { releaseDirLock, tryDirLock } from '../control-plane/dir-lock.ts';

export interface AddressPlan {
  /** simcloud's pools (its `pools` config). */
  readonly pools: { readonly server_public: string; readonly lb_vip: string; readonly ip_block: string; readonly private_networks: string };
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
    pools,
    simcloudArgs: Object.entries(pools).map(([name, cidr]) => `--pool=${name}=${cidr}`),
    networkRange: pools.private_networks,
  };
}

/** Claimable bases: above simcloud's default pools (127.0-127.2 and 127.10), four /16s each. */
export const CLAIMABLE_BASES: readonly number[] = Array.from({ length: 59 }, (_, i) => 16 + i * 4);

export interface AddressPlanLease {
  readonly base: number;
  readonly plan: AddressPlan;
  /** Gives the plan back; idempotent. A holder that dies without releasing loses it to the next claim. */
  readonly release: () => void;
}

export class AddressPlansExhaustedError extends Error {
  override name = 'AddressPlansExhaustedError';
}

/**
 * Claims the first plan no live process holds (a lock directory per base, holding the claimant's pid), and
 * gives it back when this process exits. The locks live in the project's cache directory, not the temp
 * dir, because a test run points TMPDIR at a directory of its own.
 */
export function claimLoopbackAddressPlan(lockRoot = join(cacheBase(), 'locks', 'address-plans')): AddressPlanLease {
  for (const base of CLAIMABLE_BASES) {
    const lockDir = join(lockRoot, `base-${base}`);
    if (!tryDirLock(lockDir)) continue;
    const release = (): void => {
      process.off('exit', release);
      releaseDirLock(lockDir);
    };
    process.on('exit', release);
    return { base, plan: loopbackAddressPlan(base), release };
  }
  throw new AddressPlansExhaustedError(`every loopback address plan under ${lockRoot} is held by a live process`);
}
