/**
 * What the Brightbox persona's routes share: its mount point (BRIGHTBOX_API_URL is `<simcloud>/brightbox/`, under
 * which gobrightbox puts the API at `1.0/` and the token endpoint at `token/`), the ids it shows (Brightbox's
 * `srv-xxxxx`: a type prefix and five or more base-36 digits, spelled from the store number, so no persona keeps
 * ids of its own), zones as `<region>-<letter>` handles and timestamps.
 */
import { z } from 'zod';
import { ZONES } from '../../server/resources/catalogue/data.ts';
import { numericId, simcloudId } from '../numeric-ids.ts';
import { ownedResolver } from '../owned.ts';

/** The persona's name: its key in a record's `dialect_attrs`. */
export const NAME = 'brightbox';
export const PREFIX = '/brightbox';
/** gobrightbox's API version path below the base URL. */
export const API = `${PREFIX}/1.0`;
/** gobrightbox's token endpoint: `token/` below the base URL. */
export const TOKEN_PATH = `${PREFIX}/token`;

export const COLLECTIONS = {
  '1.0/servers': { coll: 'servers', idPrefix: 'srv' },
  '1.0/server_groups': { coll: 'server_groups', idPrefix: 'grp' },
  '1.0/firewall_policies': { coll: 'firewall_policies', idPrefix: 'fwp' },
  '1.0/load_balancers': { coll: 'load_balancers', idPrefix: 'lb' },
  '1.0/cloud_ips': { coll: 'ip_blocks', idPrefix: 'ipb' },
} as const;

/** Brightbox's prefix for each simcloud prefix it shows. */
const BB_PREFIX: Readonly<Record<string, string>> = { srv: 'srv', grp: 'grp', fwp: 'fwp', lb: 'lba', ipb: 'cip', prj: 'acc' };
const SIM_PREFIX: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(BB_PREFIX).map(([s, b]) => [b, s]));
const BB_ID = /^([a-z]{3})-([0-9a-z]{5,11})$/;

/** Five or more base-36 digits of a number. */
export const b36 = (n: number, width = 5): string => n.toString(36).padStart(width, '0');

/** The Brightbox id of a simcloud id (`srv-00000042` -> `srv-00016`). */
export function bbIdOf(simId: string): string {
  const dash = simId.indexOf('-');
  const n = numericId(simId);
  const prefix = BB_PREFIX[simId.slice(0, dash)];
  return prefix === undefined || n === null ? simId : `${prefix}-${b36(n)}`;
}

/** The store number behind an id this persona showed, else null. */
export function numberOfBbId(id: string): number | null {
  const m = BB_ID.exec(id);
  return m === null || SIM_PREFIX[m[1]!] === undefined ? null : parseInt(m[2]!, 36);
}

/** The simcloud id behind a Brightbox id (an id of another spelling or type names nothing: `xxx-0`). */
export function simIdOf(simPrefix: string, id: string): string {
  const m = BB_ID.exec(id);
  const n = numberOfBbId(id);
  return n === null || SIM_PREFIX[m![1]!] !== simPrefix ? `${simPrefix}-0` : simcloudId(simPrefix, n);
}

const OWNED = {
  servers: ['srv', 'server'],
  server_groups: ['grp', 'server group'],
  firewall_policies: ['fwp', 'firewall policy'],
  load_balancers: ['lb', 'load balancer'],
  ip_blocks: ['ipb', 'cloud IP'],
} as const;

/** The caller's record behind an id this persona showed; else 404 naming the id as given. */
export const ownedBy = ownedResolver(OWNED, simIdOf);

/** Messages name Brightbox's ids, not simcloud's. */
export const bbMessage = (message: string): string => message.replace(/\b[a-z]{2,5}-\d{8,15}\b/g, (m) => bbIdOf(m));

export const IdParams = z.object({ id: z.string().min(1).max(64) });

/** A zone's Brightbox handle: `<region>-<letter>` (simcloud's `sim-1a` is `sim-1-a`), so the region is what precedes the last dash, as Brightbox's CCM reads it. */
export function zoneHandle(zoneId: string): string {
  const zone = ZONES.find((z) => z.id === zoneId);
  return zone === undefined ? zoneId : `${zone.region}-${zone.id.slice(zone.region.length)}`;
}

/** The simcloud zone of a Brightbox zone handle or id, if any. */
export const zoneOfHandle = (handle: string): string | undefined => ZONES.find((z) => zoneHandle(z.id) === handle || zoneId(z.id) === handle)?.id;

/** A zone's id (`zon-` and its position in the catalogue). */
export const zoneId = (simZone: string): string => `zon-${b36(ZONES.findIndex((z) => z.id === simZone) + 1)}`;

/** Brightbox's timestamps: ISO 8601, UTC, whole seconds. */
export const bbTime = (iso: string): string => `${new Date(iso).toISOString().slice(0, 19)}Z`;

/** The `url` field of a resource: where the API serves it (host-relative: the persona does not know the Host it is reached at). */
export const urlOf = (collection: string, id: string): string => `${API}/${collection}/${id}`;
