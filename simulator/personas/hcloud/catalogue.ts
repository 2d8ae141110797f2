/**
 * The Hetzner view of simcloud's catalogue: a simcloud region is a Hetzner location (and its network zone,
 * of the same name), a simcloud zone is a datacenter, server types and images keep their names. Catalogue
 * entries are static, so their numeric ids are their 1-based positions. Load balancer types exist only in
 * this persona; a load balancer's type is kept on its store record (see lb-attrs.ts).
 */
import { IMAGES, REGIONS, SERVER_TYPES, ZONES, regionById } from '../../server/resources/catalogue/data.ts';
import type { Image, Region, ServerType, Zone } from '../../api/schema/catalogue.ts';
import type * as R from './responses.ts';

const pos = <T>(list: readonly T[], item: T): number => list.indexOf(item) + 1;

export function locationView(r: Region): R.Location {
  return {
    id: pos(REGIONS, r),
    name: r.name,
    description: r.description,
    country: 'SIM',
    city: `Loopback ${r.name}`,
    latitude: 0,
    longitude: 0,
    network_zone: r.name,
  };
}

const locationOf = (zone: Zone): Region => regionById(zone.region)!;

export function serverTypeView(t: ServerType): R.ServerType {
  return {
    id: pos(SERVER_TYPES, t),
    name: t.name,
    description: `${t.cores} vCPU, ${t.memory_mb / 1024} GB RAM`,
    category: 'shared',
    cores: t.cores,
    memory: t.memory_mb / 1024,
    disk: t.disk_gb,
    storage_type: 'local',
    cpu_type: 'shared',
    architecture: 'x86',
    included_traffic: 0,
    prices: [],
    deprecated: false,
    deprecation: null,
    locations: REGIONS.map((r) => ({ id: pos(REGIONS, r), name: r.name, recommended: false, available: true, deprecation: null })),
  };
}

export function datacenterView(z: Zone): R.Datacenter {
  const all = SERVER_TYPES.map((t) => pos(SERVER_TYPES, t));
  return {
    id: pos(ZONES, z),
    name: z.name,
    description: `Simulated datacenter ${z.name}`,
    location: locationView(locationOf(z)),
    server_types: { supported: all, available: all, available_for_migration: all },
  };
}

export function imageView(i: Image): R.Image {
  return {
    id: pos(IMAGES, i),
    status: 'available',
    type: 'system',
    name: i.name,
    description: i.name,
    image_size: null,
    disk_size: 5,
    created: '2026-01-01T00:00:00Z',
    created_from: null,
    bound_to: null,
    os_flavor: i.os_flavor,
    os_version: i.os_version,
    architecture: 'x86',
    rapid_deploy: true,
    protection: { delete: false },
    deprecated: null,
    deleted: null,
    labels: {},
  };
}

export interface LoadBalancerType {
  id: number;
  name: string;
  max_connections: number;
  max_services: number;
  max_targets: number;
  max_assigned_certificates: number;
}

export const LOAD_BALANCER_TYPES: readonly LoadBalancerType[] = [
  { id: 1, name: 'lb11', max_connections: 10_000, max_services: 5, max_targets: 25, max_assigned_certificates: 10 },
  { id: 2, name: 'lb21', max_connections: 20_000, max_services: 15, max_targets: 75, max_assigned_certificates: 25 },
  { id: 3, name: 'lb31', max_connections: 40_000, max_services: 30, max_targets: 150, max_assigned_certificates: 50 },
];

export const loadBalancerTypeView = (t: LoadBalancerType): R.LoadBalancerType => ({
  ...t,
  description: `Simulated load balancer ${t.name}`,
  prices: [],
  deprecated: null,
  deprecation: null,
});

/** An entry found by numeric id or by name (Hetzner's IDOrName fields and `?name=` filters). */
export function byIdOrName<T extends { name: string }>(list: readonly T[], ref: string | number): T | undefined {
  return typeof ref === 'number' || /^\d+$/.test(ref) ? list[Number(ref) - 1] : list.find((x) => x.name === ref);
}

export const regionOfLocation = (name: string): Region | undefined => REGIONS.find((r) => r.name === name);
/** The datacenter (simcloud zone) a resource in this location lands in: the location's first. */
export const firstZoneOf = (region: string): Zone | undefined => ZONES.find((z) => z.region === region);
