/** The default catalogue: two regions, three zones, three server types, three images. */
import type { Image, Region, ServerType, Zone } from '../../../api/schema/catalogue.ts';

export const REGIONS: readonly Region[] = [
  { id: 'sim-1', name: 'sim-1', description: 'Simulated region 1 (loopback)' },
  { id: 'sim-2', name: 'sim-2', description: 'Simulated region 2 (loopback)' },
];

export const ZONES: readonly Zone[] = [
  { id: 'sim-1a', name: 'sim-1a', region: 'sim-1' },
  { id: 'sim-1b', name: 'sim-1b', region: 'sim-1' },
  { id: 'sim-2a', name: 'sim-2a', region: 'sim-2' },
];

export const SERVER_TYPES: readonly ServerType[] = [
  { id: 'sc-small', name: 'sc-small', cores: 1, memory_mb: 2048, disk_gb: 20 },
  { id: 'sc-medium', name: 'sc-medium', cores: 2, memory_mb: 4096, disk_gb: 40 },
  { id: 'sc-large', name: 'sc-large', cores: 4, memory_mb: 8192, disk_gb: 80 },
];

export const IMAGES: readonly Image[] = [
  { id: 'ubuntu-24.04', name: 'ubuntu-24.04', os_flavor: 'ubuntu', os_version: '24.04' },
  { id: 'debian-13', name: 'debian-13', os_flavor: 'debian', os_version: '13' },
  { id: 'flatcar', name: 'flatcar', os_flavor: 'flatcar', os_version: 'stable' },
];

export const zoneById = (id: string): Zone | undefined => ZONES.find((z) => z.id === id);
export const regionById = (id: string): Region | undefined => REGIONS.find((r) => r.id === id);
