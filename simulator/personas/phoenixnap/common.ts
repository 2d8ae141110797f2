/**
 * What the phoenixNAP persona's routes share: its mount point and the three APIs under it (BMC, IP, networks,
 * each at the path phoenixNAP serves it from, plus the token endpoint of its identity service), the ids it
 * shows (24 hex digits spelled from the store number, so no persona keeps ids of its own), tags as simcloud
 * labels, and locations as simcloud regions.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { LabelValue, isLabelKey } from '../../api/schema/common.ts';
import { REGIONS, ZONES } from '../../server/resources/catalogue/data.ts';
import { dict, hasOwnKey, own } from '../../../lib/keyed.ts';
import { invalidField } from '../../server/errors.ts';
import { PlantedFault, isPlanted } from '../../server/planted.ts';
import { numericIdOf, simcloudId } from '../numeric-ids.ts';
import { ownedResolver } from '../owned.ts';

/** The persona's name: its key in a record's `dialect_attrs`. */
export const NAME = 'phoenixnap';
/** One mount point for api.phoenixnap.com's three APIs and auth.phoenixnap.com's token endpoint. */
export const PREFIX = '/pnap';
export const BMC = `${PREFIX}/bmc/v1`;
export const IPS = `${PREFIX}/ips/v1`;
export const NETWORKS = `${PREFIX}/networks/v1`;
/** phoenixNAP's tag API: tags are resources of their own there. */
export const TAG_MANAGER = `${PREFIX}/tag-manager/v1`;
/** The label that makes a simcloud network one of phoenixNAP's public networks (public-networks.ts). */
export const PUBLIC_NETWORK_LABEL = 'phoenixnap-public-network';
/** The realm path phoenixNAP's Keycloak serves its token endpoint at. */
export const TOKEN_PATH = `${PREFIX}/auth/realms/BMC/protocol/openid-connect/token`;

export const COLLECTIONS = {
  'bmc/v1/servers': { coll: 'servers', idPrefix: 'srv' },
  'ips/v1/ip-blocks': { coll: 'ip_blocks', idPrefix: 'ipb' },
  'networks/v1/private-networks': { coll: 'networks', idPrefix: 'net' },
  'networks/v1/public-networks': { coll: 'networks', idPrefix: 'net' },
  'tag-manager/v1/tags': { coll: 'tags', idPrefix: 'tag' },
} as const;

/** phoenixNAP ids are 24 hex digits; the persona's are `a1` and the store number in 22 decimal digits. */
const ID = /^a1(\d{22})$/;
export const pnapIdOf = (simId: string): string => `a1${String(numericIdOf(simId)).padStart(22, '0')}`;

/** The store number behind an id this persona showed, else null. */
export function numberOfPnapId(id: string): number | null {
  const m = ID.exec(id);
  return m === null ? null : Number(m[1]);
}

/** The simcloud id behind a phoenixNAP id (an id of another spelling names nothing: `xxx-0`). */
export const simIdOf = (prefix: string, id: string): string => {
  const n = numberOfPnapId(id);
  return n === null ? `${prefix}-0` : simcloudId(prefix, n);
};

const OWNED = { servers: ['srv', 'server'], ip_blocks: ['ipb', 'IP block'], networks: ['net', 'private network'], tags: ['tag', 'tag'] } as const;

/** The caller's record behind an id this persona showed; else 404 naming the id as given. */
export const ownedBy = ownedResolver(OWNED, simIdOf);

/** Messages name phoenixNAP's ids, not simcloud's. */
export const pnapMessage = (message: string): string =>
  message.replace(/\b[a-z]{2,5}-(\d{8,15})\b/g, (_m, digits: string) => `a1${digits.replace(/^0+/, '').padStart(22, '0')}`);

export const IdParams = z.object({ id: z.string().min(1).max(64) });

/** A tag as phoenixNAP's API takes it; the name must also be a simcloud label key, the value a label value. */
export const TagRequest = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,63}$/, 'must be 1-63 letters, digits, dashes or underscores')
    .refine(isLabelKey, 'must start and end with a letter or digit'),
  // A label value, as the store keeps it (a value like `.` or `a.` was stored, and /v1's list answered 500).
  value: LabelValue.nullish(),
});
export type TagRequest = z.infer<typeof TagRequest>;
export const TagRequests = z.array(TagRequest).max(50);

export const TagAssignment = z.object({
  id: z.string(),
  name: z.string(),
  value: z.string().optional(),
  isBillingTag: z.boolean(),
  createdBy: z.string().optional(),
});
export type TagAssignment = z.infer<typeof TagAssignment>;

/** Tags as labels: one label per tag name (a second tag of one name is a 400 naming it). */
export function labelsOf(tags: readonly TagRequest[], field = 'tags'): Record<string, string> {
  const labels = dict<string>();
  tags.forEach((t, i) => {
    if (hasOwnKey(labels, t.name)) throw invalidField(`${field}[${i}].name`, `tag ${t.name} is given twice`);
    labels[t.name] = t.value ?? '';
  });
  return { ...labels };
}

/**
 * The id a resource shows for one of its tags: its tag record's (tags.ts), or, for a name no record has (a label
 * set through /v1), 24 hex digits spelled from the project and the name.
 */
export type TagIdOf = (name: string) => string;
export const unrecordedTagId = (projectId: string, name: string): string => createHash('sha256').update(`tag:${projectId}:${name}`).digest('hex').slice(0, 24);

export const tagsOf = (labels: Record<string, string>, idOf: TagIdOf): TagAssignment[] =>
  Object.entries(labels).map(([name, value]) => ({ id: idOf(name), name, ...(value === '' ? {} : { value }), isBillingTag: false, createdBy: 'USER' }));

/** `tag=name.value` (or `tag=name`, any value) filters, all of which must match. */
export const TagQuery = z.union([z.string().max(256), z.array(z.string().max(256)).max(20)]).optional();

export function tagFilter(q: string | readonly string[] | undefined): (labels: Record<string, string>) => boolean {
  const wanted = (q === undefined ? [] : typeof q === 'string' ? [q] : q).map((t) => {
    const dot = t.indexOf('.');
    return dot < 0 ? { name: t, value: undefined } : { name: t.slice(0, dot), value: t.slice(dot + 1) };
  });
  return (labels) =>
    wanted.every(
      (w) => (isPlanted(PlantedFault.tagLookup) ? w.name in labels : hasOwnKey(labels, w.name)) && (w.value === undefined || own(labels, w.name) === w.value),
    );
}

/** A location is a simcloud region (sim-1, sim-2); its servers land in its first zone. */
export function zoneOf(location: string, field = 'location'): string {
  const zone = ZONES.find((z) => z.region === location);
  if (zone === undefined) throw invalidField(field, `unknown location ${location}; one of ${REGIONS.map((r) => r.id).join(', ')}`);
  return zone.id;
}

export const regionOfZone = (zone: string): string => ZONES.find((z) => z.id === zone)?.region ?? REGIONS[0]!.id;

/** phoenixNAP's timestamps: ISO 8601 with milliseconds, UTC. */
export const pnapTime = (iso: string): string => new Date(iso).toISOString();
