/**
 * A keep-alive HTTP/1.1 client over node:net and node:tls sockets, one pool per origin: what the CCM's two
 * clients (the Kubernetes API and simcloud) send their requests through. node:http's ClientRequest and
 * IncomingMessage streams cost about 0.5 ms of CPU per request spaced as a rate-limited controller spaces
 * them, three times what the socket itself costs (docs/performance.md); here a request is one socket write
 * and its answer is parsed in one pass over the bytes as they arrive.
 *
 * It covers what those clients need and no more: Content-Length, chunked and read-to-close bodies; 1xx
 * answers skipped; keep-alive, honouring the server's advertised idle timeout; one retry, on a new
 * connection, of a replayable request whose reused connection turned out closed before any answer (Go's
 * net/http rule: GET, HEAD, OPTIONS, TRACE, or an Idempotency-Key); an inactivity timeout; an AbortSignal;
 * a body handed to a sink as it arrives (watches). No pipelining, compression, proxies or HTTP/2. The message
 * (types, the error, the heads written and read, body framing) is lib/http1-message.ts; this is the pool.
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, createSecureContext, type ConnectionOptions, type SecureContext, type TLSSocket } from 'node:tls';
import {
  bodyLength,
  framingOf,
  hostHeader,
  Http1Error,
  parseHead,
  replayable,
  requestHead,
  type BodySink,
  type Http1Head,
  type Http1Origin,
  type Http1Request,
  type Http1Response,
  type ParsedHead,
} from './http1-message.ts';

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
  /** How long an idle connection is kept when the server advertises no keep-alive timeout (default 90 s, Go's). */
  readonly idleTimeoutMs?: number;
}

const DEFAULT_IDLE_TIMEOUT_MS = 90_000;
const MAX_HEAD_BYTES = 64 * 1024;

/** Where the parser is in the answer. */
type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'to-close' | 'done';

interface Exchange {
  readonly req: Http1Request;
  readonly sink: BodySink | undefined;
  readonly resolve: (res: Http1Response) => void;
  readonly reject: (err: Http1Error | StaleConnection) => void;
  readonly onAbort: (() => void) | undefined;
  /** A byte of the answer arrived: the request reached the server, so it is not repeated. */
  answered: boolean;
  head: Http1Head | undefined;
  take: ((chunk: Buffer) => void) | undefined;
  readonly chunks: Buffer[];
  keepAlive: boolean;
}

/** Inside the pool: a reused connection was found closed before any answer. */
class StaleConnection extends Error {
  readonly failure: Http1Error;

  constructor(failure: Http1Error) {
    super(failure.message);
    this.failure = failure;
  }
}

const EMPTY = Buffer.alloc(0);

class Connection {
  readonly #pool: Http1Pool;
  readonly socket: Socket;
  /** Served an exchange before: a failure before any answer may mean the server closed it meanwhile. */
  reused = false;
  idleTimeoutMs: number;
  #ex: Exchange | undefined;
  #state: State = 'done';
  #remaining = 0;
  #pending: Buffer | undefined;
  #dead = false;

  constructor(pool: Http1Pool, socket: Socket, idleTimeoutMs: number) {
    this.#pool = pool;
    this.socket = socket;
    this.idleTimeoutMs = idleTimeoutMs;
    socket.setNoDelay(true);
    socket.on('data', (data: Buffer) => this.#feed(data));
    socket.on('error', (err: NodeJS.ErrnoException) =>
      this.#die(new Http1Error('network', err.message, { cause: err, ...(err.code ? { code: err.code } : {}) })),
    );
    socket.on('close', () => this.#closed());
    socket.on('timeout', () => {
      if (this.#ex) this.#die(new Http1Error('timeout', `no data for ${Math.round(this.#ex.req.timeoutMs / 1000)} s`));
      else this.#die(undefined);
    });
  }

  exchange(req: Http1Request, sink: BodySink | undefined, head: string): Promise<Http1Response> {
    return new Promise<Http1Response>((resolve, reject) => {
      const signal = req.signal;
      const onAbort = signal ? (): void => this.#die(new Http1Error('aborted', 'the request was aborted', { cause: signal.reason })) : undefined;
      this.#ex = { req, sink, resolve, reject, onAbort, answered: false, head: undefined, take: undefined, chunks: [], keepAlive: true };
      this.#state = 'head';
      this.#pending = undefined;
      if (onAbort) signal?.addEventListener('abort', onAbort, { once: true });
      this.socket.ref();
      this.socket.setTimeout(req.timeoutMs);
      this.socket.write(req.body === undefined ? head : head + req.body);
    });
  }

  destroy(err?: Http1Error): void {
    this.#die(err);
  }

  #feed(data: Buffer): void {
    const ex = this.#ex;
    if (!ex) {
      // Bytes nobody asked for: the connection's framing can no longer be trusted.
      this.#die(undefined);
      return;
    }
    ex.answered = true;
    let buf = data;
    while (this.#ex === ex && buf.length > 0) {
      try {
        buf = this.#step(ex, buf);
      } catch (err) {
        this.#die(
          err instanceof Http1Error
            ? err
            : new Http1Error('protocol', `the body sink failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err }),
        );
        return;
      }
    }
  }

  /** Consumes what it can of `buf` in the current state and returns the rest. */
  #step(ex: Exchange, buf: Buffer): Buffer {
    switch (this.#state) {
      case 'head':
        return this.#headBytes(ex, buf);
      case 'length':
      case 'chunk-data':
        return this.#counted(ex, buf);
      case 'chunk-size':
        return this.#chunkSize(buf);
      case 'chunk-end':
        return this.#chunkEnd(buf);
      case 'trailers':
        return this.#trailer(ex, buf);
      case 'to-close':
        this.#body(ex, buf);
        return EMPTY;
      case 'done':
        throw new Http1Error('protocol', 'bytes after the end of the response');
    }
  }

  #headBytes(ex: Exchange, buf: Buffer): Buffer {
    const head = this.#until(buf, '\r\n\r\n');
    if (head === undefined) return EMPTY;
    const parsed = parseHead(head.text);
    // An interim answer (100 Continue, 103 Early Hints): the final one follows on the same connection.
    if (parsed.head.status >= 200 || parsed.head.status === 101) this.#onHead(ex, parsed);
    return head.rest;
  }

  /** Body bytes of a known count: a Content-Length body or one chunk's data. */
  #counted(ex: Exchange, buf: Buffer): Buffer {
    const n = Math.min(this.#remaining, buf.length);
    this.#body(ex, buf.subarray(0, n));
    this.#remaining -= n;
    if (this.#remaining === 0) {
      if (this.#state === 'length') this.#complete(ex);
      else this.#state = 'chunk-end';
    }
    return buf.subarray(n);
  }

  #chunkSize(buf: Buffer): Buffer {
    const line = this.#until(buf, '\r\n');
    if (line === undefined) return EMPTY;
    const sizeText = line.text.split(';', 1)[0]?.trim() ?? '';
    if (!/^[0-9a-fA-F]{1,8}$/.test(sizeText)) throw new Http1Error('protocol', `a chunk size is not hexadecimal: ${JSON.stringify(sizeText.slice(0, 20))}`);
    this.#remaining = parseInt(sizeText, 16);
    this.#state = this.#remaining === 0 ? 'trailers' : 'chunk-data';
    return line.rest;
  }

  #chunkEnd(buf: Buffer): Buffer {
    const line = this.#until(buf, '\r\n');
    if (line === undefined) return EMPTY;
    if (line.text !== '') throw new Http1Error('protocol', 'a chunk does not end with CRLF');
    this.#state = 'chunk-size';
    return line.rest;
  }

  #trailer(ex: Exchange, buf: Buffer): Buffer {
    const line = this.#until(buf, '\r\n');
    if (line === undefined) return EMPTY;
    if (line.text === '') this.#complete(ex);
    return line.rest;
  }

  /** The text up to the next `delimiter`, joined with what earlier buffers left; undefined until it arrives. */
  #until(buf: Buffer, delimiter: string): { text: string; rest: Buffer } | undefined {
    const joined = this.#pending ? Buffer.concat([this.#pending, buf]) : buf;
    const end = joined.indexOf(delimiter);
    if (end < 0) {
      if (joined.length > MAX_HEAD_BYTES) throw new Http1Error('protocol', `a response head or chunk line is over ${MAX_HEAD_BYTES} bytes`);
      this.#pending = joined;
      return undefined;
    }
    this.#pending = undefined;
    return { text: joined.toString('latin1', 0, end), rest: joined.subarray(end + delimiter.length) };
  }

  /** A final answer's head: keep-alive, the advertised idle timeout, the sink, and how the body is framed. */
  #onHead(ex: Exchange, parsed: ParsedHead): void {
    const { head } = parsed;
    ex.head = head;
    ex.keepAlive = parsed.keepAlive;
    // Give the connection up a second before the server would, so a request never meets its close.
    if (parsed.idleMs !== undefined) this.idleTimeoutMs = Math.min(this.idleTimeoutMs, parsed.idleMs - 1000);
    ex.take = ex.sink?.(head);
    const framing = framingOf(ex.req.method, head);
    if (framing.kind === 'none') {
      // Nothing here asks for an upgrade; a switched connection (101) cannot carry another request.
      if (head.status === 101) ex.keepAlive = false;
      this.#complete(ex);
    } else if (framing.kind === 'length') {
      this.#remaining = framing.bytes;
      this.#state = 'length';
      if (framing.bytes === 0) this.#complete(ex);
    } else {
      if (framing.kind === 'to-close') ex.keepAlive = false;
      this.#state = framing.kind;
    }
  }

  #body(ex: Exchange, chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (ex.take) ex.take(chunk);
    else ex.chunks.push(chunk);
  }

  #complete(ex: Exchange): void {
    this.#state = 'done';
    this.#ex = undefined;
    this.#settle(ex);
    const head = ex.head as Http1Head;
    ex.resolve({ ...head, body: ex.chunks.length === 1 ? (ex.chunks[0] as Buffer) : Buffer.concat(ex.chunks) });
    this.reused = true;
    if (ex.keepAlive && this.idleTimeoutMs > 0) {
      this.socket.setTimeout(this.idleTimeoutMs);
      this.socket.unref();
      this.#pool.release(this);
    } else {
      this.#die(undefined);
    }
  }

  #settle(ex: Exchange): void {
    if (ex.onAbort) ex.req.signal?.removeEventListener('abort', ex.onAbort);
  }

  #closed(): void {
    const ex = this.#ex;
    if (ex && this.#state === 'to-close' && ex.head) {
      ex.keepAlive = false;
      this.#complete(ex);
      return;
    }
    this.#die(new Http1Error('network', 'the server closed the connection before the response ended', { code: 'ECONNRESET' }));
  }

  #die(err: Http1Error | undefined): void {
    const ex = this.#ex;
    this.#ex = undefined;
    this.#state = 'done';
    if (!this.#dead) {
      this.#dead = true;
      this.#pool.forget(this);
      this.socket.destroy();
    }
    if (!ex) return;
    this.#settle(ex);
    const failure = err ?? new Http1Error('network', 'the connection closed before the response ended', { code: 'ECONNRESET' });
    const stale = this.reused && !ex.answered && failure.kind === 'network';
    ex.reject(stale ? new StaleConnection(failure) : failure);
  }
}

/** Keep-alive connections to one origin: idle ones are reused newest first; no limit on how many are open. */
export class Http1Pool {
  readonly origin: Http1Origin;
  readonly #idleTimeoutMs: number;
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
    this.#idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.#host = hostHeader(origin);
  }

  /** Open connections, busy and idle. */
  get size(): number {
    return this.#all.size;
  }

  /** One exchange; with a `sink`, the body goes to it as it arrives. Rejects with an `Http1Error`. */
  async request(req: Http1Request, sink?: BodySink): Promise<Http1Response> {
    if (this.#closed) throw new Http1Error('closed', 'the connection pool is closed');
    if (req.signal?.aborted) throw new Http1Error('aborted', 'the request was aborted', { cause: req.signal.reason });
    const head = requestHead(req, this.#host, bodyLength(req));
    // A connection leaves the idle list as it closes (forget), so the newest idle one is alive.
    const idle = this.#idle.pop();
    try {
      return await (idle ?? this.#open()).exchange(req, sink, head);
    } catch (err) {
      if (!(err instanceof StaleConnection)) throw err;
      if (!replayable(req) || this.#closed) throw err.failure;
      return this.#open()
        .exchange(req, sink, head)
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
    for (const c of [...this.#all]) c.destroy(new Http1Error('closed', 'the connection pool was destroyed'));
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
    const c = new Connection(this, socket, this.#idleTimeoutMs);
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
