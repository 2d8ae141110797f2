/**
 * A persona's slice of a stored record's `dialect_attrs`. The store keeps that field opaque (a record by
 * persona name, docs/adr/0012-personas-as-plug-ins.md), so the persona that owns a slice parses it with its
 * own schema whenever it reads it: a slice that does not parse is a corrupt store, reported as such, never
 * a record silently shown with wrong settings.
 */
import { z } from 'zod';

/** A stored record that may carry persona attributes (servers, load balancers and firewall policies do). */
export interface AttrsCarrier {
  readonly id: string;
  readonly dialect_attrs?: Readonly<Record<string, unknown>> | undefined;
}

/** The reader of persona `name`'s slice: its parsed attributes, or undefined when it set none on the record. */
export function sliceReader<T>(name: string, schema: z.ZodType<T>): (rec: AttrsCarrier) => T | undefined {
  return (rec) => {
    const raw = rec.dialect_attrs?.[name];
    if (raw === undefined) return undefined;
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw new Error(`stored ${name} attributes of ${rec.id} are invalid: ${z.prettifyError(parsed.error)}`);
    return parsed.data;
  };
}
