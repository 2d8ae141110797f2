/**
 * A keep-alive HTTP/1.1 client over node:net and node:tls sockets, one pool per origin: what the CCM's two
 * clients (the Kubernetes API and simcloud) send their requests through (ADR 0015). node:http's ClientRequest
 * and IncomingMessage streams cost about 0.5 ms of CPU per request spaced as a rate-limited controller spaces
 * them, three times what the socket itself costs; here a request is one socket write and its answer is
 * parsed in one pass over the bytes as they arrive (lib/http1-parser.ts).
 *
 * It covers what those clients need and no more: Content-Length, chunked and read-to-close bodies; 1xx
 * answers skipped; keep-alive, honouring the server's advertised idle timeout; one retry, on a new
 * connection, of a replayable request whose reused connection turned out closed before any answer (Go's
 * net/http rule: GET, HEAD, OPTIONS, TRACE, or an Idempotency-Key); an AbortSignal; a body handed to a sink
 * as it arrives (watches). `timeoutMs` is the whole request's deadline, as Go's `http.Client.Timeout`; a
 * request may add an inactivity limit (`inactivityTimeoutMs`, for watches). It answers what node:http answers
 * and refuses, with an Http1Error of a named kind, what node:http refuses (lib/http1-malformed.test.ts runs
 * both over the same table); a refused answer's connection is closed, never reused. A server's clean close
 * is kind `closed`, a socket error `network`. No pipelining, compression, proxies or HTTP/2. The message
 * (types, the error, the heads written and read, body framing) is lib/http1-message.ts; this is the pool.
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { connect as tlsConnect, createSecureContext, type ConnectionOptions, type SecureContext, type TLSSocket } from 'node:tls';
import {
  bodyLength,
  deadlineExceeded,
  hostHeader,
  Http1Error,
  replayable,
  requestHead,
  sinkFailure,
  type BodySink,
  type Http1Head,
  type Http1Origin,
  type Http1Request,
  type Http1Response,
  type ParsedHead,
} from './http1-message.ts';
import { ResponseParser, type ResponseEvents } from './http1-parser.ts';

// The message types and the error are the pool's API: callers import them from here.
export {
  Http1Error,
  Http1ErrorKinds,
  Http1Headers,
  type BodySink,
  type Http1ErrorKind,
  type Http1Head,
  type Http1Origin,
  type Http1Request,
  type Http1Response,
} from './http1-message.ts';

export interface Http1PoolOptions {
  /** How long an idle connection is kept when the server advertises no keep-alive timeout (default 90 s, Go's `IdleConnTimeout`). */
  readonly idleConnectionTtlMs?: number;
}

const DEFAULT_IDLE_CONNECTION_TTL_MS = 90_000;

interface Exchange {
  readonly req: Http1Request;
  readonly sink: BodySink | undefined;
  readonly resolve: (res: Http1Response) => void;
  readonly reject: (err: Http1Error | StaleConnection) => void;
  readonly onAbort: (() => void) | undefined;
  /** The whole exchange's deadline. */
  readonly deadline: NodeJS.Timeout | undefined;
  /** A byte of the answer arrived: the request reached the server, so it is not repeated. */
  answered: boolean;
  head: Http1Head | undefined;
  take: ((chunk: Buffer) => void) | undefined;
  readonly chunks: Buffer[];
}

/** Inside the pool: a reused connection was found closed before any answer. */
class StaleConnection extends Error {
  readonly failure: Http1Error;

  constructor(failure: Http1Error) {
    super(failure.message);
    this.failure = failure;
  }
}

class Connection implements ResponseEvents {
  readonly #pool: Http1Pool;
  readonly socket: Socket;
  /** Served an exchange before: a failure before any answer may mean the server closed it meanwhile. */
  reused = false;
  /** How long it may stay idle: the pool's TTL, or less when the server says it keeps it less. */
  idleTtlMs: number;
  #ex: Exchange | undefined;
  readonly #parser = new ResponseParser(this);
  #dead = false;

  constructor(pool: Http1Pool, socket: Socket, idleTtlMs: number) {
    this.#pool = pool;
    this.socket = socket;
    this.idleTtlMs = idleTtlMs;
    socket.setNoDelay(true);
    socket.on('data', (data: Buffer) => this.#feed(data));
    socket.on('error', (err: NodeJS.ErrnoException) =>
      this.#die(new Http1Error('network', err.message, { cause: err, ...(err.code ? { code: err.code } : {}) })),
    );
    socket.on('close', () => this.#serverClosed());
    // Busy, the socket's timeout is the exchange's inactivity limit (when it has one); idle, the connection's TTL.
    socket.on('timeout', () => {
      const ms = this.#ex?.req.inactivityTimeoutMs;
      this.#die(ms === undefined ? undefined : new Http1Error('timeout', `no byte of the answer for ${ms} ms`));
    });
  }

  /** One exchange on this connection; `timeoutMs` is what is left of the request's deadline. */
  exchange(req: Http1Request, sink: BodySink | undefined, head: string, timeoutMs: number): Promise<Http1Response> {
    return new Promise<Http1Response>((resolve, reject) => {
      const signal = req.signal;
      const onAbort = signal ? (): void => this.#die(new Http1Error('aborted', 'the request was aborted', { cause: signal.reason })) : undefined;
      const deadline = Number.isFinite(timeoutMs) ? setTimeout(() => this.#die(deadlineExceeded(req.timeoutMs)), Math.max(1, timeoutMs)) : undefined;
      this.#ex = { req, sink, resolve, reject, onAbort, deadline, answered: false, head: undefined, take: undefined, chunks: [] };
      this.#parser.start(req.method);
      if (onAbort) signal?.addEventListener('abort', onAbort, { once: true });
      this.socket.ref();
      this.socket.setTimeout(req.inactivityTimeoutMs ?? 0);
      this.socket.write(req.body === undefined ? head : head + req.body);
    });
  }

  destroy(err?: Http1Error): void {
    this.#die(err);
  }

  /** @internal The parser read the final head: keep-alive, the advertised idle timeout, the sink. */
  onHead(parsed: ParsedHead): void {
    const ex = this.#ex;
    if (!ex) return;
    ex.head = parsed.head;
    // Give the connection up a second before the server would, so a request never meets its close.
    if (parsed.idleMs !== undefined) this.idleTtlMs = Math.min(this.idleTtlMs, parsed.idleMs - 1000);
    ex.take = ex.sink?.(parsed.head);
  }

  /** @internal Body bytes, to the sink or collected. */
  onBody(chunk: Buffer): void {
    const ex = this.#ex;
    if (!ex || chunk.length === 0) return;
    if (ex.take) ex.take(chunk);
    else ex.chunks.push(chunk);
  }

  #feed(data: Buffer): void {
    const ex = this.#ex;
    if (!ex) {
      // Bytes nobody asked for: the connection's framing can no longer be trusted.
      this.#die(undefined);
      return;
    }
    ex.answered = true;
    let done: boolean;
    try {
      done = this.#parser.feed(data);
    } catch (err) {
      this.#die(err instanceof Http1Error ? err : sinkFailure(err));
      return;
    }
    if (done && this.#ex === ex) this.#complete(ex);
  }

  #complete(ex: Exchange): void {
    this.#ex = undefined;
    this.#settle(ex);
    this.reused = true;
    if (this.#parser.keepAlive && this.idleTtlMs > 0 && !this.#dead) {
      this.socket.setTimeout(this.idleTtlMs);
      this.socket.unref();
      this.#pool.release(this);
    } else {
      this.#die(undefined);
    }
    const head = ex.head as Http1Head;
    ex.resolve({ ...head, body: ex.chunks.length === 1 ? (ex.chunks[0] as Buffer) : Buffer.concat(ex.chunks) });
  }

  #settle(ex: Exchange): void {
    if (ex.onAbort) ex.req.signal?.removeEventListener('abort', ex.onAbort);
    if (ex.deadline) clearTimeout(ex.deadline);
  }

  /** The socket closed with no error: the server's FIN ends a body read to the close, and cuts anything else. */
  #serverClosed(): void {
    const ex = this.#ex;
    if (ex && this.#parser.closed()) {
      this.#complete(ex);
      return;
    }
    const what = ex?.answered ? 'before the response ended' : 'without answering';
    this.#die(new Http1Error('closed', `the server closed the connection ${what}`));
  }

  #die(err: Http1Error | undefined): void {
    const ex = this.#ex;
    this.#ex = undefined;
    if (!this.#dead) {
      this.#dead = true;
      this.#pool.forget(this);
      this.socket.destroy();
    }
    if (!ex) return;
    this.#settle(ex);
    const failure = err ?? new Http1Error('closed', 'the connection closed before the response ended');
    // A reused connection the server closed (or reset) before any answer: the request never reached it.
    const stale = this.reused && !ex.answered && (failure.kind === 'network' || failure.kind === 'closed');
    ex.reject(stale ? new StaleConnection(failure) : failure);
  }
}

/** Keep-alive connections to one origin: idle ones are reused newest first; no limit on how many are open. */
export class Http1Pool {
  readonly origin: Http1Origin;
  readonly #idleConnectionTtlMs: number;
  readonly #host: string;
  readonly #idle: Connection[] = [];
  readonly #all = new Set<Connection>();
  #closed = false;
  /** Built once for every connection: tls.connect given a CA, certificate and key parses them each time. */
  #secureContext: SecureContext | undefined;
  /** The last TLS session the server offered: a new connection resumes it instead of a full handshake. */
  #session: Buffer | undefined;

  constructor(origin: Http1Origin, options: Http1PoolOptions = {}) {
    this.origin = origin;
    this.#idleConnectionTtlMs = options.idleConnectionTtlMs ?? DEFAULT_IDLE_CONNECTION_TTL_MS;
    this.#host = hostHeader(origin);
  }

  /** Open connections, busy and idle. */
  get size(): number {
    return this.#all.size;
  }

  /** One exchange; with a `sink`, the body goes to it as it arrives. Rejects with an `Http1Error`. */
  async request(req: Http1Request, sink?: BodySink): Promise<Http1Response> {
    if (this.#closed) throw new Http1Error('pool-closed', 'the connection pool is closed');
    if (req.signal?.aborted) throw new Http1Error('aborted', 'the request was aborted', { cause: req.signal.reason });
    const head = requestHead(req, this.#host, bodyLength(req));
    const started = performance.now();
    // A connection leaves the idle list as it closes (forget), so the newest idle one is alive.
    const idle = this.#idle.pop();
    try {
      return await (idle ?? this.#open()).exchange(req, sink, head, req.timeoutMs);
    } catch (err) {
      if (!(err instanceof StaleConnection)) throw err;
      if (!replayable(req) || this.#closed) throw err.failure;
      // The replay has what is left of the deadline.
      return this.#open()
        .exchange(req, sink, head, req.timeoutMs - (performance.now() - started))
        .catch((again: unknown) => {
          throw again instanceof StaleConnection ? again.failure : again;
        });
    }
  }

  /** Closes idle connections now and busy ones when their exchange ends; later requests fail. */
  close(): void {
    this.#closed = true;
    for (const c of this.#idle.splice(0)) c.destroy();
  }

  /** Closes every connection now, failing exchanges in progress. */
  destroy(): void {
    this.close();
    for (const c of [...this.#all]) c.destroy(new Http1Error('pool-closed', 'the connection pool was destroyed'));
  }

  /** @internal A connection finished an exchange and may serve another. */
  release(c: Connection): void {
    if (this.#closed) c.destroy();
    else this.#idle.push(c);
  }

  /** @internal A connection closed. */
  forget(c: Connection): void {
    this.#all.delete(c);
    const i = this.#idle.indexOf(c);
    if (i >= 0) this.#idle.splice(i, 1);
  }

  #open(): Connection {
    const { protocol, host, port, tls } = this.origin;
    const socket = protocol === 'https:' ? this.#tlsConnect(host, port, tls) : netConnect({ host, port });
    const c = new Connection(this, socket, this.#idleConnectionTtlMs);
    this.#all.add(c);
    return c;
  }

  /** A TLS connection: the pool's one secure context, the server name, and the last session to resume. */
  #tlsConnect(host: string, port: number, tls: Http1Origin['tls'] = {}): TLSSocket {
    this.#secureContext ??= createSecureContext({ ca: tls.ca, cert: tls.cert, key: tls.key });
    const options: ConnectionOptions = {
      host,
      port,
      ALPNProtocols: ['http/1.1'],
      secureContext: this.#secureContext,
      rejectUnauthorized: tls.rejectUnauthorized !== false,
    };
    const servername = tls.servername ?? (isIP(host) === 0 ? host : undefined);
    if (servername !== undefined) options.servername = servername;
    const socket = tlsConnect(this.#session ? { ...options, session: this.#session } : options);
    // A server that does not resume answers with a new session: the next connection offers that one.
    socket.on('session', (session: Buffer) => (this.#session = session));
    return socket;
  }
}

/** The origin of an `http:` or `https:` URL. */
export function originOf(url: URL, tls?: Http1Origin['tls']): Http1Origin {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Http1Error('protocol', `${url.protocol} is not http: or https:`);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return { protocol: url.protocol, host, port, ...(tls ? { tls } : {}) };
}
