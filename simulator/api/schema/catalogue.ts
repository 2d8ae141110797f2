/** The catalogue: regions, zones, server types and images. Read-only data, seeded by default. */
import { z } from 'zod';

export const Region = z.object({ id: z.string(), name: z.string(), description: z.string() });
export type Region = z.infer<typeof Region>;

export const Zone = z.object({ id: z.string(), name: z.string(), region: z.string() });
export type Zone = z.infer<typeof Zone>;

export const ServerType = z.object({
  id: z.string(),
  name: z.string(),
  cores: z.number().int(),
  memory_mb: z.number().int(),
  disk_gb: z.number().int(),
});
export type ServerType = z.infer<typeof ServerType>;

export const Image = z.object({ id: z.string(), name: z.string(), os_flavor: z.string(), os_version: z.string() });
export type Image = z.infer<typeof Image>;

export const RegionListResponse = z.object({ regions: z.array(Region) });
export const ZoneListResponse = z.object({ zones: z.array(Zone) });
export const ServerTypeListResponse = z.object({ server_types: z.array(ServerType) });
export const ImageListResponse = z.object({ images: z.array(Image) });
