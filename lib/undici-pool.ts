/**
 * undici's `Pool` (HTTP/1.1) behind lib/http-pool's seam (`httpTransport: undici`), driven through `dispatch`: the answer
 * is collected from its handler callbacks, with no body stream per response. The request's `timeoutMs` is a
 * deadline for the whole exchange, as in lib/http1; undici's `headersTimeout` and `bodyTimeout` take its
 * `inactivityTimeoutMs` when it has one (a watch) and are off otherwise. undici itself comes in by a dynamic import (lib/http-pool.ts) and only types are
 * imported here, so the CCM bundle, which leaves undici out, loads without it.
 */
import type { Dispatcher, Pool } from 'undici';
import { Answer, authority, deadlineTimer, IDLE_CONNECTION_TTL_MS, serverName, sinkFailure } from './http-answer.ts';
import { Http1Error, type BodySink, type Http1Origin, type Http1Request, type Http1Response } from './http1.ts';
import type { HttpPool } from './http-pool.ts';

const KINDS: Readonly<Record<string, Http1Error['kind']>> = {
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_ABORTED: 'aborted',
  UND_ERR_CLOSED: 'pool-closed',
  UND_ERR_DESTROYED: 'pool-closed',
  UND_ERR_INVALID_ARG: 'invalid-request',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'protocol',
};

function kindOf(code: string, message: string): Http1Error['kind'] {
  // The server's clean close (FIN) is a SocketError like a reset; its message tells them apart.
  if (code === 'UND_ERR_SOCKET' && message === 'other side closed') return 'closed';
  return KINDS[code] ?? (code.startsWith('HPE_') ? 'protocol' : 'network');
}

/** An undici or socket error as an `Http1Error` (one that is one already passes through). */
function fromUndici(err: unknown): Http1Error {
  if (err instanceof Http1Error) return err;
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown } };
  const code = typeof e.code === 'string' ? e.code : '';
  const causeCode = typeof e.cause?.code === 'string' ? e.cause.code : undefined;
  const socketCode = causeCode ?? (code.startsWith('E') ? code : undefined);
  const message = typeof e.message === 'string' ? e.message : String(err);
  return new Http1Error(kindOf(code, message), message, { cause: err, ...(socketCode ? { code: socketCode } : {}) });
}

export class UndiciPool implements HttpPool {
  readonly #pool: Pool;
  #closed = false;

  constructor(origin: Http1Origin, PoolClass: typeof Pool) {
    const servername = serverName(origin);
    this.#pool = new PoolClass(authority(origin), {
      // undici 8 offers h2 by ALPN: pinned to HTTP/1.1, so this measures its HTTP/1.1 client (h2 is lib/http2-pool's).
      allowH2: false,
      keepAliveTimeout: IDLE_CONNECTION_TTL_MS,
      keepAliveMaxTimeout: IDLE_CONNECTION_TTL_MS,
      ...(origin.tls ? { connect: { ...origin.tls, ...(servername ? { servername } : {}) } } : {}),
    });
  }

  request(req: Http1Request, sink?: BodySink): Promise<Http1Response> {
    if (this.#closed) return Promise.reject(new Http1Error('pool-closed', 'the connection pool is closed'));
    if (req.signal?.aborted) return Promise.reject(new Http1Error('aborted', 'the request was aborted', { cause: req.signal.reason }));
    return new Promise<Http1Response>((resolve, reject) => {
      const answer = new Answer(sink);
      let controller: Dispatcher.DispatchController | undefined;
      // A failure before undici started the request (it may wait for a connection) aborts it as it starts.
      let failure: Http1Error | undefined;
      const fail = (err: Http1Error): void => {
        failure ??= err;
        controller?.abort(failure);
      };
      const onAbort = (): void => fail(new Http1Error('aborted', 'the request was aborted', { cause: req.signal?.reason }));
      const deadline = deadlineTimer(req, fail);
      const done = (): void => {
        req.signal?.removeEventListener('abort', onAbort);
        clearTimeout(deadline);
      };
      req.signal?.addEventListener('abort', onAbort, { once: true });
      // undici's own timeouts are inactivity limits: only a request that asks for one gets one (0 turns them off).
      const inactivity = req.inactivityTimeoutMs ?? 0;
      const options = {
        path: req.path,
        method: req.method,
        headers: req.headers ?? {},
        body: req.body ?? null,
        headersTimeout: inactivity,
        bodyTimeout: inactivity,
      };
      this.#pool.dispatch(options, {
        onRequestStart: (c) => {
          controller = c;
          if (failure) c.abort(failure);
        },
        // 1xx heads come here too: only a final answer starts the response.
        onResponseStart: (_c, status, headers, statusText) => {
          if (status >= 200) answer.start(status, statusText ?? '', Object.entries(headers));
        },
        onResponseData: (c, chunk) => {
          try {
            answer.data(chunk);
          } catch (err) {
            c.abort(sinkFailure(err));
          }
        },
        onResponseEnd: () => {
          done();
          resolve(answer.response());
        },
        onResponseError: (_c, err) => {
          done();
          reject(fromUndici(err));
        },
      });
    });
  }

  close(): void {
    this.#closed = true;
    void this.#pool.close().catch(() => undefined);
  }
}
