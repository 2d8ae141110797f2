/**
 * `node:http2` behind lib/http-pool's seam (`httpTransport: http2`, https origins: kube-apiserver speaks h2
 * over TLS, which is what client-go uses): one session per origin, every request a stream on it, a new
 * session when the last one closed or got a GOAWAY, an idle session closed after 90 s. A stream fails, as a
 * lib/http1 exchange does, when its answer has not ended by the request's deadline (`timeoutMs`), or when no
 * byte arrives for its `inactivityTimeoutMs`, if it has one.
 */
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import { Answer, authority, deadlineTimer, IDLE_CONNECTION_TTL_MS, serverName, sinkFailure } from './http-answer.ts';
import { Http1Error, type BodySink, type Http1Origin, type Http1Request, type Http1Response } from './http1.ts';
import type { HttpPool } from './http-pool.ts';

/** Connection-specific fields HTTP/2 forbids (RFC 9113 section 8.2.2); `:authority` replaces Host. */
const HOP_BY_HOP: ReadonlySet<string> = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection']);

interface Stream {
  readonly session: ClientHttp2Session;
  readonly stream: ClientHttp2Stream;
  readonly req: Http1Request;
  readonly answer: Answer;
}

export class Http2Pool implements HttpPool {
  readonly #origin: Http1Origin;
  #session: ClientHttp2Session | undefined;
  /** Streams open on each session: a session with none does not keep the process alive (as idle sockets do not). */
  readonly #active = new WeakMap<ClientHttp2Session, number>();
  #closed = false;

  constructor(origin: Http1Origin) {
    this.#origin = origin;
  }

  request(req: Http1Request, sink?: BodySink): Promise<Http1Response> {
    if (this.#closed) return Promise.reject(new Http1Error('pool-closed', 'the connection pool is closed'));
    if (req.signal?.aborted) return Promise.reject(new Http1Error('aborted', 'the request was aborted', { cause: req.signal.reason }));
    const headers: Record<string, string> = { ':method': req.method, ':path': req.path };
    for (const [name, value] of Object.entries(req.headers ?? {})) if (!HOP_BY_HOP.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
    return new Promise<Http1Response>((resolve, reject) => {
      const session = this.#live();
      let stream: ClientHttp2Stream;
      try {
        stream = session.request(headers, { endStream: req.body === undefined });
      } catch (err) {
        // A method or field node:http2 cannot send (ERR_INVALID_HTTP_TOKEN, ERR_INVALID_CHAR, …), or a closing session.
        const invalid = /^ERR_(INVALID|HTTP2_INVALID)/.test((err as NodeJS.ErrnoException).code ?? '');
        reject(new Http1Error(invalid ? 'invalid-request' : 'network', err instanceof Error ? err.message : String(err), { cause: err }));
        return;
      }
      this.#track({ session, stream, req, answer: new Answer(sink) }, resolve, reject);
      if (req.body !== undefined) stream.end(req.body);
    });
  }

  close(): void {
    this.#closed = true;
    this.#session?.close();
    this.#session = undefined;
  }

  /** Wires one stream: the answer, the deadline and inactivity limit, the abort signal, the session's reference. */
  #track(s: Stream, resolve: (r: Http1Response) => void, reject: (e: Http1Error) => void): void {
    const { stream, req, answer } = s;
    let failure: Http1Error | undefined;
    const fail = (err: Http1Error): void => {
      failure ??= err;
      stream.close(constants.NGHTTP2_CANCEL);
    };
    const onAbort = (): void => fail(new Http1Error('aborted', 'the request was aborted', { cause: req.signal?.reason }));
    req.signal?.addEventListener('abort', onAbort, { once: true });
    this.#count(s.session, 1);
    const deadline = deadlineTimer(req, fail);
    const inactivity = req.inactivityTimeoutMs;
    if (inactivity !== undefined) stream.setTimeout(inactivity, () => fail(new Http1Error('timeout', `no byte of the answer for ${inactivity} ms`)));
    stream.on('response', (h: IncomingHttpHeaders) => answer.start(Number(h[':status']), '', Object.entries(h)));
    stream.on('data', (chunk: Buffer) => {
      try {
        answer.data(chunk);
      } catch (err) {
        fail(sinkFailure(err));
      }
    });
    stream.on('error', (streamErr: NodeJS.ErrnoException) => {
      // A session that failed (a refused connection, a TLS error) cancels its streams with that error as the cause.
      const err = streamErr.code === 'ERR_HTTP2_STREAM_CANCEL' && streamErr.cause instanceof Error ? (streamErr.cause as NodeJS.ErrnoException) : streamErr;
      failure ??= new Http1Error('network', err.message, { cause: err, ...(err.code ? { code: err.code } : {}) });
    });
    stream.on('close', () => {
      req.signal?.removeEventListener('abort', onAbort);
      clearTimeout(deadline);
      this.#count(s.session, -1);
      if (failure === undefined && answer.head !== undefined && stream.rstCode === constants.NGHTTP2_NO_ERROR) resolve(answer.response());
      else reject(failure ?? new Http1Error('network', `the stream was reset (code ${stream.rstCode}) before the response ended`));
    });
  }

  /** The open session, or a new one: TLS with the origin's material, h2 by ALPN. */
  #live(): ClientHttp2Session {
    const s = this.#session;
    if (s && !s.closed && !s.destroyed) return s;
    const servername = serverName(this.#origin);
    const session = connect(authority(this.#origin), { ...this.#origin.tls, ...(servername ? { servername } : {}) });
    session.on('error', () => undefined); // Each stream reports the failure it meets.
    const retire = (): void => {
      if (this.#session === session) this.#session = undefined;
    };
    session.on('close', retire);
    session.on('goaway', retire);
    session.setTimeout(IDLE_CONNECTION_TTL_MS, () => session.close());
    session.unref();
    this.#session = session;
    return session;
  }

  #count(session: ClientHttp2Session, delta: 1 | -1): void {
    const n = (this.#active.get(session) ?? 0) + delta;
    this.#active.set(session, n);
    if (n === 0) session.unref();
    else if (n === 1 && delta === 1) session.ref();
  }
}
