/**
 * The client's one error type. `code` is the server's error code, or one of the client-side codes
 * for failures that never got an answer (`timeout`, `network_error`) or got an unreadable one
 * (`invalid_response`).
 */
import type { ErrorCode, FieldError } from '../schema/errors.ts';

export const ClientErrorCode = { timeout: 'timeout', network_error: 'network_error', invalid_response: 'invalid_response', aborted: 'aborted' } as const;
export type ClientErrorCode = (typeof ClientErrorCode)[keyof typeof ClientErrorCode];

export type ApiErrorCode = ErrorCode | ClientErrorCode;

export interface SimcloudApiErrorInit {
  code: ApiErrorCode;
  message: string;
  /** HTTP status; 0 when no response arrived. */
  status: number;
  requestId: string;
  /** The client method, e.g. `servers.get`. */
  operation: string;
  fields?: FieldError[];
  retryAfterMs?: number | null;
  cause?: unknown;
}

export class SimcloudApiError extends Error {
  readonly code: ApiErrorCode;
  readonly status: number;
  readonly requestId: string;
  readonly operation: string;
  readonly fields: FieldError[];
  /** From Retry-After, when the server sent one. */
  readonly retryAfterMs: number | null;

  constructor(init: SimcloudApiErrorInit) {
    super(`${init.operation}: ${init.code}: ${init.message}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'SimcloudApiError';
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.operation = init.operation;
    this.fields = init.fields ?? [];
    this.retryAfterMs = init.retryAfterMs ?? null;
  }
}

/** `isApiError(err)` or `isApiError(err, 'not_found')`. */
export function isApiError(err: unknown, code?: ApiErrorCode): err is SimcloudApiError {
  return err instanceof SimcloudApiError && (code === undefined || err.code === code);
}
