/**
 * Tombstones: what the store remembers of a deleted server, kept with its project, so a persona whose cloud
 * answers a deleted resource otherwise than one that never existed can tell the two apart (phoenixNAP answers
 * 403 for a server that was deleted). The tombstone's id is the deleted record's; simcloud never reuses ids.
 */
import { z } from 'zod';
import { Id, Timestamp } from './common.ts';

export const TombstoneKind = { server: 'server' } as const;

export const Tombstone = z.object({
  id: Id,
  /** The collection's resource type of the deleted record. */
  resource_type: z.enum(TombstoneKind),
  /** When its delete was accepted. */
  deleted: Timestamp,
});
export type Tombstone = z.infer<typeof Tombstone>;
