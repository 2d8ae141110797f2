/** Classifies Kubernetes API errors (client-node `ApiException` carries the HTTP status in `code`). */
import { ApiException } from '@kubernetes/client-node';

export function apiStatus(err: unknown): number | undefined {
  if (err instanceof ApiException) return err.code;
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'number') return err.code;
  return undefined;
}

/** 409 Conflict (stale resourceVersion). */
export function isConflict(err: unknown): boolean {
  return apiStatus(err) === 409;
}

/** 404 Not Found. */
export function isNotFound(err: unknown): boolean {
  return apiStatus(err) === 404;
}

/** Builds an `ApiException` like client-node throws (used by MemoryKube). */
export function apiError(code: number, message: string): ApiException<string> {
  return new ApiException(code, message, message, {});
}
