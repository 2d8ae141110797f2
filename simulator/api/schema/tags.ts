/**
 * Tags as records of their own: a name registered in a project, with a description, for the clouds that keep
 * tags apart from the resources carrying them (phoenixNAP's tag manager). The resources carrying a tag are the
 * project's servers whose labels and IP blocks whose tags hold its name, so a resource's tags have one truth.
 */
import { z } from 'zod';
import { Id, Timestamp } from './common.ts';

/** A tag's name: a label key without a prefix, so a server's labels and an IP block's tags can hold it. */
export const TagName = z
  .string()
  .regex(/^[A-Za-z0-9]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?$/, 'must be 1-63 letters, digits, dashes or underscores, starting and ending with a letter or digit');

export const Tag = z.object({
  id: Id,
  name: TagName,
  description: z.string().max(250),
  created: Timestamp,
});
export type Tag = z.infer<typeof Tag>;
