/** The simcloud typed client: `SimcloudClient` (/v1), `SimcloudAdminClient` (/_sim), errors and transport. */
export { SimcloudClient, ActionsClient, CatalogueClient, type SimcloudClientOptions, type WaitOptions } from './client.ts';
export { SimcloudAdminClient } from './admin.ts';
export { SimcloudApiError, isApiError, ClientErrorCode, type ApiErrorCode } from './errors.ts';
export type { CallOptions } from './requester.ts';
export {
  DEFAULT_RETRY,
  IDEMPOTENCY_KEY_HEADER,
  mayRepeat,
  parseRetryAfter,
  backoffDelay,
  fetchExchange,
  poolExchange,
  type HttpExchange,
  type HeaderReader,
  type AttemptGate,
  type RetryPolicy,
  type Middleware,
  type Handler,
  type Sleep,
  type TransportResponse,
} from './transport.ts';
export type { ServerListParams } from './servers.ts';
export type { IpBlockListOptions } from './ip-blocks.ts';
