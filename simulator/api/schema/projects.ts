/** Projects and their API tokens (managed through `/_sim/projects`; a token belongs to one project). */
import { z } from 'zod';
import { Id, Name, Timestamp } from './common.ts';

export const Project = z.object({ id: Id, name: Name, created: Timestamp });
export type Project = z.infer<typeof Project>;

/** A token as listed: the secret is only returned once, on creation. */
export const Token = z.object({ id: Id, project_id: Id, name: Name, created: Timestamp });
export type Token = z.infer<typeof Token>;

/**
 * A token as a client sends it (`Authorization: Bearer ...`): printable ASCII without spaces. A pasted
 * line break or space would otherwise fail every call as a network error from the header.
 */
export const BearerToken = z
  .string()
  .max(512)
  .regex(/^[\x21-\x7e]+$/, 'must be the token alone: printable ASCII, no spaces or line breaks');

export const CreatedToken = Token.extend({ token: z.string() });
export type CreatedToken = z.infer<typeof CreatedToken>;

export const CreateProjectRequest = z.strictObject({ name: Name });
export type CreateProjectRequest = z.infer<typeof CreateProjectRequest>;

export const CreateTokenRequest = z.strictObject({
  name: Name,
  /** Optional fixed secret (for reproducible sandboxes); generated when absent. */
  token: z
    .string()
    .min(16)
    .max(128)
    .regex(/^[A-Za-z0-9._-]+$/)
    .optional(),
});
export type CreateTokenRequest = z.infer<typeof CreateTokenRequest>;

export const ProjectResponse = z.object({ project: Project });
export const ProjectListResponse = z.object({ projects: z.array(Project) });
export const TokenResponse = z.object({ token: CreatedToken });
export const TokenListResponse = z.object({ tokens: z.array(Token) });
