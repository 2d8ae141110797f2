/**
 * Test-only switch: faults simcloud once had, which the fuzz suite (test/simulator/fuzz) must find. Only
 * test/simulator/fuzz/planted.test.ts plants one, in its own process, to show the suite reports it within its CI
 * budget; nothing else may call `plantFaults`, and with none planted every check below is one Set lookup.
 */
import { z } from 'zod';

export const PlantedFault = {
  /** A malformed %-escape in a path answers 500 (the router's URIError unrendered). */
  uriDecode: 'uri-decode',
  /** phoenixNAP's tag filter looks tag names up with `in`, so `constructor` matches every resource. */
  tagLookup: 'tag-lookup',
  /** phoenixNAP's access token is looked up by its unchecked subject on a plain object before its signature. */
  jwtClaimsFirst: 'jwt-claims-first',
  /** phoenixNAP's private-network CIDR is checked by shape only (300.0.0.0/8 reaches the IP module). */
  cidrSchema: 'cidr-schema',
  /** phoenixNAP's private-network `ips` are any strings. */
  ipsSchema: 'ips-schema',
  /** Brightbox's cloud-IP unmap answers from a second read after its commit, which a DELETE can race. */
  writeReadback: 'write-readback',
} as const;
export type PlantedFault = (typeof PlantedFault)[keyof typeof PlantedFault];

const planted = new Set<PlantedFault>();

export const isPlanted = (f: PlantedFault): boolean => planted.size > 0 && planted.has(f);

/** Plants exactly `faults` (none: the fixed code everywhere). */
export function plantFaults(faults: readonly PlantedFault[]): void {
  planted.clear();
  for (const f of faults) planted.add(f);
}

/** `schema`, or any string while `fault` is planted (the loose check an address field once had). */
export const unlessPlanted = (fault: PlantedFault, schema: z.ZodType<string>): z.ZodType<string> =>
  z
    .string()
    .max(64)
    .superRefine((v, ctx) => {
      if (isPlanted(fault)) return;
      const r = schema.safeParse(v);
      if (!r.success) ctx.addIssue({ code: 'custom', message: r.error.issues[0]?.message ?? 'invalid' });
    });
