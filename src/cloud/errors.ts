/**
 * Sentinel errors of the cloud contract (upstream `k8s.io/cloud-provider` `cloud.go` and
 * `api/retry_error.go`). Classify with `instanceof`, never with message text.
 *
 * Wrapping policy (mirrors upstream's identity-vs-`errors.Is` split: client-go compares some sentinels by identity, others with errors.Is):
 * - `ImplementedElsewhereError` and `InstanceNotFoundError` are recognised only when the thrown value
 *   itself is the sentinel (`isImplementedElsewhere`, `isInstanceNotFound` do NOT look at `cause`),
 *   because upstream compares them by identity (`err == cloudprovider.InstanceNotFound`).
 * - `NotImplementedError` is matched through the `cause` chain (`isNotImplemented`), like upstream's
 *   one `errors.Is(err, cloudprovider.NotImplemented)` in the node controller's legacy path.
 * - `RetryError` is found through the `cause` chain (`findRetryError`), like `errors.As`: the service
 *   controller wraps Ensure errors ("failed to ensure load balancer: ...") and must still see it.
 */

/** "instance not found": the instance definitely does not exist (not: "the lookup failed"). */
export class InstanceNotFoundError extends Error {
  constructor(message = 'instance not found', options?: ErrorOptions) {
    super(message, options);
    this.name = 'InstanceNotFoundError';
  }
}

/** "unimplemented": the provider does not implement this call. */
export class NotImplementedError extends Error {
  constructor(message = 'unimplemented', options?: ErrorOptions) {
    super(message, options);
    this.name = 'NotImplementedError';
  }
}

/**
 * "implemented by alternate to cloud provider": the LB for this Service is handled by something else.
 * `ensureLoadBalancer`/`updateLoadBalancer` may throw it; `ensureLoadBalancerDeleted` must not.
 */
export class ImplementedElsewhereError extends Error {
  constructor(message = 'implemented by alternate to cloud provider', options?: ErrorOptions) {
    super(message, options);
    this.name = 'ImplementedElsewhereError';
  }
}

/** Asks the caller to retry after exactly `retryAfterMs` instead of exponential backoff. */
export class RetryError extends Error {
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RetryError';
    this.retryAfterMs = retryAfterMs;
  }
}

/** Identity check, no unwrapping (upstream `err == cloudprovider.InstanceNotFound`). */
export function isInstanceNotFound(err: unknown): err is InstanceNotFoundError {
  return err instanceof InstanceNotFoundError;
}

/** Identity check, no unwrapping (upstream `err == cloudprovider.ImplementedElsewhere`). */
export function isImplementedElsewhere(err: unknown): err is ImplementedElsewhereError {
  return err instanceof ImplementedElsewhereError;
}

/** Walks the `cause` chain (upstream `errors.Is(err, cloudprovider.NotImplemented)`). */
export function isNotImplemented(err: unknown): boolean {
  return findInChain(err, (e) => e instanceof NotImplementedError) !== undefined;
}

/** Walks the `cause` chain (upstream `errors.As(err, &retryErr)`). */
export function findRetryError(err: unknown): RetryError | undefined {
  const found = findInChain(err, (e) => e instanceof RetryError);
  return found instanceof RetryError ? found : undefined;
}

/** Wraps `err` as `"<prefix>: <message>"` keeping it as `cause` (Go's `fmt.Errorf("...: %w")`). */
export function wrapError(prefix: string, err: unknown): Error {
  return new Error(`${prefix}: ${errorMessage(err)}`, { cause: err });
}

/** The message of any thrown value. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function findInChain(err: unknown, match: (e: unknown) => boolean): unknown {
  let current: unknown = err;
  for (let depth = 0; depth < 32 && current !== undefined && current !== null; depth++) {
    if (match(current)) return current;
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}
