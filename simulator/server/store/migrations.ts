/**
 * Schema migrations of the state document, applied in order on load (after the journal's replay: a journal
 * holds records of its document's version) and to loaded snapshots. Each step takes a document of version
 * N-1 and returns version N. Version 1 predates address pools in the document.
 */
import { firstFreeV6 } from '../ipam.ts';
import { DEFAULT_POOLS, IPV6_RANGES, SCHEMA_VERSION, SERVER_IPV6_PREFIX, SigningKey, emptyState, newSigningKey, type StateDoc } from './state.ts';

type Doc = Record<string, unknown>;

const MIGRATIONS: Record<number, (doc: Doc) => Doc> = {
  // v1 → v2: pools moved from config into the document; IP blocks got an explicit status.
  2: (doc) => {
    const blocks = (doc.ip_blocks ?? {}) as Record<string, Doc>;
    for (const b of Object.values(blocks)) b.status ??= b.assigned_to ? 'assigned' : 'unassigned';
    return { ...doc, pools: doc.pools ?? { ...DEFAULT_POOLS }, schema_version: 2 };
  },
  // v2 → v3: routes got an optional name (a CCM's name hint, e.g. the node UID).
  3: (doc) => {
    const networks = (doc.networks ?? {}) as Record<string, Doc>;
    for (const n of Object.values(networks)) for (const r of (n.routes ?? []) as Doc[]) r.name ??= null;
    return { ...doc, schema_version: 3 };
  },
  // v3 → v4: a load balancer's public interface switch became simcloud's own field, since the data plane acts
  // on it; v3 kept it in the Hetzner persona's attributes (absent there: enabled).
  4: (doc) => {
    for (const lb of Object.values((doc.load_balancers ?? {}) as Record<string, Doc>)) {
      const hcloud = (lb.dialect_attrs as Record<string, Doc | undefined> | undefined)?.hcloud;
      lb.public_interface ??= hcloud?.public_interface ?? true;
      if (hcloud !== undefined) delete hcloud.public_interface;
    }
    return { ...doc, schema_version: 4 };
  },
  // v4 → v5: servers and load balancers got a public IPv6 address (data only, from the documentation prefix):
  // every server with a public IPv4 a /64, every load balancer one address, in id order.
  5: (doc) => {
    const used = new Set<string>();
    const next = (cidr: string, step: number): string | null => {
      const ip = firstFreeV6(cidr, step, (a) => used.has(a));
      if (ip !== null) used.add(ip);
      return ip;
    };
    const byId = (coll: unknown): Doc[] => Object.values((coll ?? {}) as Record<string, Doc>).sort((a, b) => String(a.id).localeCompare(String(b.id)));
    for (const s of byId(doc.servers)) s.public_ipv6 ??= s.public_ipv4 === null ? null : next(IPV6_RANGES.server, SERVER_IPV6_PREFIX);
    for (const lb of byId(doc.load_balancers)) lb.public_ipv6 ??= next(IPV6_RANGES.load_balancer, 128);
    return { ...doc, schema_version: 5 };
  },
  // v5 → v6: load balancers got a forwarding mode (proxy or passthrough); every one before was a proxy.
  6: (doc) => {
    for (const lb of Object.values((doc.load_balancers ?? {}) as Record<string, Doc>)) lb.forwarding ??= 'proxy';
    return { ...doc, schema_version: 6 };
  },
  // v6 → v7: the document is unchanged, but its journals may hold `put_tail` records (journal.ts). A simcloud
  // of v6 would replay them as no change and lose the routes they add; at v7 it refuses the files instead.
  7: (doc) => ({ ...doc, schema_version: 7 }),
  // v7 → v8: a realm signing key for access tokens (state.ts); a v7 document's tokens were signed per project
  // token, so the access tokens issued before it are refused and their clients fetch new ones.
  8: (doc) => ({ ...doc, signing_key: doc.signing_key ?? newSigningKey(), schema_version: 8 }),
  // v8 → v9: certificates got their own collection (filled empty); a v8 simcloud would drop it, so it refuses v9.
  9: (doc) => ({ ...doc, certificates: doc.certificates ?? {}, schema_version: 9 }),
  // v9 → v10: deleted servers leave tombstones (filled empty: a server deleted before reads as an id never seen),
  // and tags became records of their own (filled empty: a name carried before has no record until one is made).
  10: (doc) => ({ ...doc, tombstones: doc.tombstones ?? {}, tags: doc.tags ?? {}, schema_version: 10 }),
};

export class MigrationError extends Error {
  /** The document field at fault. */
  readonly field: string;

  constructor(message: string, field = 'schema_version') {
    super(message);
    this.field = field;
  }
}

/** Brings any stored document up to SCHEMA_VERSION; fills missing collections. */
export function migrate(input: unknown): StateDoc {
  if (input === null || typeof input !== 'object') throw new MigrationError('state file is not a JSON object');
  let doc = input as Doc;
  let version = typeof doc.schema_version === 'number' ? doc.schema_version : 1;
  if (version > SCHEMA_VERSION) throw new MigrationError(`state schema ${version} is newer than this simcloud (${SCHEMA_VERSION})`);
  while (version < SCHEMA_VERSION) {
    version++;
    doc = MIGRATIONS[version]!(doc);
  }
  const key = SigningKey.safeParse(doc.signing_key);
  if (!key.success) throw new MigrationError(`state signing_key ${key.error.issues[0]?.message ?? 'is invalid'}`, 'signing_key');
  return { ...emptyState(), ...doc };
}
