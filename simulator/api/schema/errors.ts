/**
 * The error envelope of every simcloud failure and the closed list of error codes
 * (`{"error":{"code","message","details":{"fields":[{"name","messages"}]}}}`).
 */
import { z } from 'zod';

export const ErrorCode = {
  /** A body field or query parameter failed validation; `details.fields` names each one. */
  invalid_input: 'invalid_input',
  /** Missing, malformed or unknown token. */
  unauthorized: 'unauthorized',
  /** The token is valid but may not do this (e.g. a project token on `/_sim/*`). */
  forbidden: 'forbidden',
  /** No such resource in the caller's project (or no such route). */
  not_found: 'not_found',
  /** The request contradicts current state: a duplicate name, an address in use, an overlap. */
  conflict: 'conflict',
  /** The resource is busy with a running action; retry when it finishes. */
  locked: 'locked',
  /** The token's request budget is spent; see Retry-After and the RateLimit-* headers. */
  rate_limit_exceeded: 'rate_limit_exceeded',
  /** Temporarily unavailable (also injected by faults); retry later. */
  service_unavailable: 'service_unavailable',
  /** Internal failure; only ever produced by injected faults. */
  server_error: 'server_error',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
export const ErrorCodeSchema = z.enum(ErrorCode);

/** HTTP status for each code. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  locked: 423,
  rate_limit_exceeded: 429,
  service_unavailable: 503,
  server_error: 500,
};

export const FieldError = z.object({ name: z.string(), messages: z.array(z.string()) });
export type FieldError = z.infer<typeof FieldError>;

export const ErrorBody = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
  details: z.object({ fields: z.array(FieldError) }).optional(),
  request_id: z.string().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const ErrorEnvelope = z.object({ error: ErrorBody });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;
