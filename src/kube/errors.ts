/** Classifies Kubernetes API errors: `KubeApiError` (transport.ts) carries the HTTP status in `code`. */
import { KubeApiError } from './transport.ts';

export function apiStatus(err: unknown): number | undefined {
  if (err instanceof KubeApiError) return err.code;
  // Errors of other clients (client-node's ApiException in the sandbox's tools) carry it the same way.
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

/** Builds a `KubeApiError` as the transport throws it (used by MemoryKube and tests). */
export function apiError(code: number, message: string): KubeApiError {
  return new KubeApiError(code, message);
}
