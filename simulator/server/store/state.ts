/**
 * The state document: every collection keyed by id, plus counters and address pools. Records are
 * the wire objects with their owning `project_id` (and without fields the server derives on output), plus the
 * realm signing key: the secret the personas that issue their own access tokens sign them with, so a token's
 * signature is checked before anything it names is looked up. The state file is 0600 (lowdb-store.ts).
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type {
  ActionRecord,
  CertificateRecord,
  FirewallPolicyRecord,
  IpBlockRecord,
  LoadBalancerRecord,
  NetworkRecord,
  ResourceChangeEvent,
  ServerGroupRecord,
  ServerRecord,
  TagRecord,
  TombstoneRecord,
} from '../../api/schema/events.ts';
import type { Project } from '../../api/schema/projects.ts';

export const SCHEMA_VERSION = 10;

/** The realm signing key: 32 random bytes, hex. */
export const SigningKey = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 hex digits (32 bytes)');
export const newSigningKey = (): string => randomBytes(32).toString('hex');

export type ProjectRec = Project;
export type TokenRec = {
  id: string;
  project_id: string;
  name: string;
  secret: string;
  created: string;
};
// The record types are the ones `resource_change` events carry, so a record and its event cannot drift.
export type ServerRec = ServerRecord;
export type NetworkRec = NetworkRecord;
export type LoadBalancerRec = LoadBalancerRecord;
export type ServerGroupRec = ServerGroupRecord;
export type FirewallPolicyRec = FirewallPolicyRecord;
export type IpBlockRec = IpBlockRecord;
export type ActionRec = ActionRecord;
export type CertificateRec = CertificateRecord;
export type TombstoneRec = TombstoneRecord;
export type TagRec = TagRecord;

/** Address pools (CIDRs). All default to loopback ranges so real traffic never leaves the host. */
export interface Pools {
  server_public: string;
  lb_vip: string;
  ip_block: string;
  private_networks: string;
  /** Default prefix length of allocated IP blocks. */
  ip_block_size: number;
}

export interface Collections {
  projects: ProjectRec;
  tokens: TokenRec;
  servers: ServerRec;
  networks: NetworkRec;
  load_balancers: LoadBalancerRec;
  server_groups: ServerGroupRec;
  firewall_policies: FirewallPolicyRec;
  ip_blocks: IpBlockRec;
  actions: ActionRec;
  certificates: CertificateRec;
  tombstones: TombstoneRec;
  tags: TagRec;
}
export type CollectionName = keyof Collections;
export const COLLECTIONS: readonly CollectionName[] = [
  'projects',
  'tokens',
  'servers',
  'networks',
  'load_balancers',
  'server_groups',
  'firewall_policies',
  'ip_blocks',
  'actions',
  'certificates',
  'tombstones',
  'tags',
];

/**
 * The resource type of each collection's records, as `resource_change` events and fault rules name it (tokens
 * have none: their secrets never leave the store). A new collection gets its type here, once.
 */
export const RESOURCE_TYPE_OF = {
  projects: 'project',
  servers: 'server',
  networks: 'network',
  load_balancers: 'load_balancer',
  server_groups: 'server_group',
  firewall_policies: 'firewall_policy',
  ip_blocks: 'ip_block',
  actions: 'action',
  certificates: 'certificate',
  tombstones: 'tombstone',
  tags: 'tag',
} as const satisfies Record<Exclude<CollectionName, 'tokens'>, ResourceChangeEvent['resource_type']>;

export type StateDoc = {
  schema_version: number;
  /** Last journal sequence number folded into this document. */
  seq: number;
  next_id: number;
  pools: Pools;
  /** The realm signing key (SigningKey); kept by reset and seeds, so access tokens outlive them. */
  signing_key: string;
} & { [C in CollectionName]: Record<string, Collections[C]> };

export const DEFAULT_POOLS: Pools = {
  server_public: '127.0.64.0/18',
  lb_vip: '127.1.0.0/16',
  ip_block: '127.2.0.0/16',
  private_networks: '127.10.0.0/16',
  ip_block_size: 29,
};

/**
 * Where public IPv6 addresses come from: the documentation prefix 2001:db8::/32 (RFC 3849), which no one
 * routes. They are data only (the data plane listens on IPv4 loopback alone), so they are fixed rather than
 * pools in the document: a server gets a /64 of `server` (its address is the /64's `::1`), a load balancer one
 * address of `load_balancer`.
 */
export const IPV6_RANGES = { server: '2001:db8:1::/48', load_balancer: '2001:db8:2::/64' } as const;
/** The prefix length of a server's IPv6 network. */
export const SERVER_IPV6_PREFIX = 64;

export function emptyState(pools: Pools = DEFAULT_POOLS): StateDoc {
  return {
    schema_version: SCHEMA_VERSION,
    seq: 0,
    next_id: 1,
    pools: { ...pools },
    signing_key: newSigningKey(),
    projects: {},
    tokens: {},
    servers: {},
    networks: {},
    load_balancers: {},
    server_groups: {},
    firewall_policies: {},
    ip_blocks: {},
    actions: {},
    certificates: {},
    tombstones: {},
    tags: {},
  };
}

/** Any stored record. */
export type StoredDoc = { id: string } & Record<string, unknown>;

/** One change of a commit; the journal stores these verbatim. */
export type Change =
  { op: 'put'; coll: CollectionName; doc: StoredDoc } | { op: 'del'; coll: CollectionName; id: string } | { op: 'meta'; next_id?: number; pools?: Pools };

/** What listeners hear after a commit, with the document before and after. */
export interface AppliedChange {
  coll: CollectionName;
  id: string;
  before: { id: string } | undefined;
  after: { id: string } | undefined;
}

export function applyChange(state: StateDoc, change: Change): AppliedChange | null {
  if (change.op === 'meta') {
    if (change.next_id !== undefined) state.next_id = change.next_id;
    if (change.pools !== undefined) state.pools = change.pools;
    return null;
  }
  const coll = state[change.coll] as Record<string, { id: string }>;
  const id = change.op === 'put' ? change.doc.id : change.id;
  const before = coll[id];
  if (change.op === 'put') coll[id] = change.doc;
  else delete coll[id];
  return { coll: change.coll, id, before, after: change.op === 'put' ? change.doc : undefined };
}
