/**
 * The client transport as a handler chain (hcloud-go style): each middleware wraps the next.
 *   request id + idempotency key → caller header → retry (the only retry layer) → timeout → fetch + error mapping
 * A request id, and for POST and PATCH an `Idempotency-Key`, is generated once per logical call, so the
 * retries of one call share them. The retry rule is what makes repeating a write safe:
 * - 429 and 423 mean the server did not carry the request out: any method is repeated;
 * - otherwise (5xx, timeout, network error) only a request that may be repeated as it is: an idempotent
 *   method (GET, HEAD, PUT, DELETE), a request with an idempotency key (simcloud answers a repeat with the
 *   first answer, creating nothing twice), or one that provably never reached the server (connection refused).
 * Waiting between attempts goes through the injected `Sleep`, so tests drive it without real time.
 */
import { randomUUID } from 'node:crypto';
import { Http1Error, originOf } from '../../../lib/http1.ts';
import { createHttpPool, type HttpPool, type HttpTransport } from '../../../lib/http-pool.ts';
import { ERROR_STATUS, ErrorEnvelope, type ErrorCode } from '../schema/errors.ts';
import { SimcloudApiError, type ApiErrorCode } from './errors.ts';

export interface TransportRequest {
  method: string;
  /** Path below the endpoint, e.g. `/v1/servers`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers: Record<string, string>;
  operation: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Response header lookup, by any-case name (fetch's `Headers` is one). */
export interface HeaderReader {
  get(name: string): string | null;
}

export interface TransportResponse {
  status: number;
  headers: HeaderReader;
  body: unknown;
  requestId: string;
}

/** One HTTP exchange as the transport asks for it; `timeoutMs` bounds the wait for the answer. */
export interface ExchangeRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface ExchangeResponse {
  status: number;
  headers: HeaderReader;
  /** The body as text ('' when there is none). */
  text: string;
}

/**
 * Sends one request and reads the whole answer. Rejects when there is no answer: a `TimeoutError` (or an
 * `Http1Error` of kind timeout) when `timeoutMs` ran out, anything else for a network failure or an abort.
 */
export type HttpExchange = (req: ExchangeRequest) => Promise<ExchangeResponse>;

export type Handler = (req: TransportRequest) => Promise<TransportResponse>;
export type Middleware = (next: Handler) => Handler;

export interface RetryPolicy {
  /** Retries after the first attempt (default 3). */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Upper bound for a server's Retry-After (default 60 s). */
  maxRetryAfterMs: number;
  retryOn: readonly ApiErrorCode[];
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 60_000,
  retryOn: ['rate_limit_exceeded', 'service_unavailable', 'locked', 'timeout', 'network_error'],
};

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** HTTP methods whose repetition has the effect of one request. */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);
/** Methods that get an `Idempotency-Key` (simcloud honours it for these). */
const KEYED_METHODS: ReadonlySet<string> = new Set(['POST', 'PATCH']);
/** Answers saying the request was not carried out. */
const NOT_CARRIED_OUT: ReadonlySet<ApiErrorCode> = new Set(['rate_limit_exceeded', 'locked']);
/** Socket errors raised before a byte of the request was written (nothing reached the server). */
const NEVER_SENT: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** The socket error code somewhere in `err`'s cause chain, if any. */
function socketErrorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^(E[A-Z_]+|UND_ERR_[A-Z_]+)$/.test(code)) return code;
  }
  return undefined;
}

/** Whether `req` may be sent again after `err` without risking a second effect on the server. */
export function mayRepeat(req: TransportRequest, err: SimcloudApiError): boolean {
  if (NOT_CARRIED_OUT.has(err.code)) return true;
  if (IDEMPOTENT_METHODS.has(req.method) || req.headers[IDEMPOTENCY_KEY_HEADER] !== undefined) return true;
  if (err.code !== 'network_error') return false;
  const code = socketErrorCode(err.cause);
  return code !== undefined && NEVER_SENT.has(code);
}

export function chain(base: Handler, middlewares: readonly Middleware[]): Handler {
  return middlewares.reduceRight<Handler>((next, mw) => mw(next), base);
}

export const withRequestId = (): Middleware => (next) => (req) => {
  req.headers['x-request-id'] ??= `req-${randomUUID()}`;
  return next(req);
};

/** An `Idempotency-Key` for each POST and PATCH that has none, shared by its retries. */
export const withIdempotencyKey = (): Middleware => (next) => (req) => {
  if (KEYED_METHODS.has(req.method)) req.headers[IDEMPOTENCY_KEY_HEADER] ??= `idem-${randomUUID()}`;
  return next(req);
};

export const withCaller =
  (defaultCaller: string | undefined): Middleware =>
  (next) =>
  (req) => {
    const caller = req.headers['x-simcloud-caller'] ?? defaultCaller;
    if (caller !== undefined) req.headers['x-simcloud-caller'] = caller;
    return next(req);
  };

export const withAuth =
  (token: string): Middleware =>
  (next) =>
  (req) => {
    req.headers.authorization = `Bearer ${token}`;
    return next(req);
  };

/** Retry-After as milliseconds (delta-seconds or an HTTP date), or null. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export function backoffDelay(policy: RetryPolicy, attempt: number, err: SimcloudApiError, random = Math.random): number {
  if (err.retryAfterMs !== null) return Math.min(err.retryAfterMs, policy.maxRetryAfterMs);
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(exp / 2 + random() * (exp / 2));
}

/**
 * Admission before each attempt (e.g. a client-wide rate budget: calls wait while it is spent), told how
 * each attempt ended so it can learn the budget from the answer.
 */
export interface AttemptGate {
  admit(signal?: AbortSignal): Promise<void>;
  settled(res: TransportResponse | undefined, err: unknown): void;
}

function retryable(policy: RetryPolicy, req: TransportRequest, err: unknown): err is SimcloudApiError {
  return err instanceof SimcloudApiError && policy.retryOn.includes(err.code) && mayRepeat(req, err) && !req.signal?.aborted;
}

/** The retry layer: repeats what `policy.retryOn` lists and `mayRepeat` allows, waiting through `sleep`. */
export const withRetry =
  (policy: RetryPolicy, sleep: Sleep, gate?: AttemptGate): Middleware =>
  (next) =>
  async (req) => {
    for (let attempt = 0; ; attempt++) {
      await gate?.admit(req.signal);
      try {
        const res = await next(req);
        gate?.settled(res, undefined);
        return res;
      } catch (err) {
        gate?.settled(undefined, err);
        if (!retryable(policy, req, err) || attempt >= policy.maxRetries) throw err;
        await sleep(backoffDelay(policy, attempt, err), req.signal);
      }
    }
  };

function buildUrl(endpoint: string, req: TransportRequest): URL {
  const url = new URL(endpoint.replace(/\/$/, '') + req.path);
  for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url;
}

function codeForStatus(status: number): ErrorCode {
  const known = (Object.entries(ERROR_STATUS) as [ErrorCode, number][]).find(([, s]) => s === status);
  if (known) return known[0];
  return status >= 500 ? 'service_unavailable' : 'invalid_input';
}

function toApiError(req: TransportRequest, res: ExchangeResponse, body: unknown): SimcloudApiError {
  const requestId = res.headers.get('x-request-id') ?? req.headers['x-request-id'] ?? '';
  const parsed = ErrorEnvelope.safeParse(body);
  const base = { status: res.status, requestId, operation: req.operation, retryAfterMs: parseRetryAfter(res.headers.get('retry-after')) };
  if (!parsed.success) return new SimcloudApiError({ ...base, code: codeForStatus(res.status), message: `HTTP ${res.status}` });
  const e = parsed.data.error;
  return new SimcloudApiError({ ...base, code: e.code, message: e.message, fields: e.details?.fields ?? [] });
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function networkError(req: TransportRequest, err: unknown, timedOut: boolean): SimcloudApiError {
  const code = timedOut ? 'timeout' : req.signal?.aborted ? 'aborted' : 'network_error';
  const message = timedOut ? `no answer within ${req.timeoutMs} ms` : err instanceof Error ? err.message : String(err);
  return new SimcloudApiError({ code, message, status: 0, requestId: req.headers['x-request-id'] ?? '', operation: req.operation, cause: err });
}

/** An exchange over `fetch`: its timeout is a deadline for the whole answer, as an AbortSignal. */
export function fetchExchange(doFetch: typeof globalThis.fetch = globalThis.fetch): HttpExchange {
  return async (req) => {
    const timeout = AbortSignal.timeout(req.timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
    try {
      const res = await doFetch(req.url, { method: req.method, headers: req.headers, body: req.body, signal });
      return { status: res.status, headers: res.headers, text: await res.text() };
    } catch (err) {
      if (timeout.aborted && !req.signal?.aborted) throw new DOMException(`no answer within ${req.timeoutMs} ms`, 'TimeoutError');
      throw err;
    }
  };
}

/**
 * An exchange over a keep-alive pool per origin (lib/http-pool: lib/http1 by default, a third of node:http's
 * CPU per request). Its timeout is a deadline for the whole answer, as fetchExchange's.
 */
export function poolExchange(transport: HttpTransport = 'http1'): HttpExchange {
  const pools = new Map<string, HttpPool>();
  return async (req) => {
    let pool = pools.get(req.url.origin);
    if (pool === undefined) {
      pool = createHttpPool(originOf(req.url), transport);
      pools.set(req.url.origin, pool);
    }
    const res = await pool.request({
      method: req.method,
      path: req.url.pathname + req.url.search,
      headers: req.headers,
      timeoutMs: req.timeoutMs,
      ...(req.body === undefined ? {} : { body: req.body }),
      ...(req.signal ? { signal: req.signal } : {}),
    });
    return { status: res.status, headers: res.headers, text: res.body.toString('utf8') };
  };
}

function isTimeout(err: unknown): boolean {
  return err instanceof Http1Error ? err.kind === 'timeout' : err instanceof Error && err.name === 'TimeoutError';
}

export interface FetchHandlerOptions {
  endpoint: string;
  /** How requests are sent (default: `fetchExchange(fetch)`). */
  exchange?: HttpExchange;
  /** The fetch of the default exchange (default: the global one); tests pass one that records. */
  fetch?: typeof globalThis.fetch;
  defaultTimeoutMs: number;
}

/** The innermost handler: one HTTP exchange with a timeout; non-2xx answers become SimcloudApiError. */
export function fetchHandler(opts: FetchHandlerOptions): Handler {
  const exchange = opts.exchange ?? fetchExchange(opts.fetch ?? globalThis.fetch);
  return async (req) => {
    const timeoutMs = req.timeoutMs ?? opts.defaultTimeoutMs;
    const hasBody = req.body !== undefined;
    let res: ExchangeResponse;
    try {
      res = await exchange({
        url: buildUrl(opts.endpoint, req),
        method: req.method,
        headers: { accept: 'application/json', ...(hasBody ? { 'content-type': 'application/json' } : {}), ...req.headers },
        ...(hasBody ? { body: JSON.stringify(req.body) } : {}),
        timeoutMs,
        ...(req.signal ? { signal: req.signal } : {}),
      });
    } catch (err) {
      throw networkError({ ...req, timeoutMs }, err, isTimeout(err));
    }
    const body = parseBody(res.text);
    if (res.status >= 400) throw toApiError(req, res, body);
    return { status: res.status, headers: res.headers, body, requestId: res.headers.get('x-request-id') ?? req.headers['x-request-id'] ?? '' };
  };
}
