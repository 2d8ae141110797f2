/**
 * What lib/undici-pool.ts and lib/http2-pool.ts share: an answer collected as lib/http1 collects it (one
 * final head, the body to the caller's sink or into one buffer), the failure of a sink that throws, the
 * request's deadline, and an origin's authority.
 */
import { isIP } from 'node:net';
import { deadlineExceeded } from './http1-message.ts';
import { Http1Headers, type BodySink, type Http1Error, type Http1Head, type Http1Origin, type Http1Request, type Http1Response } from './http1.ts';

export { sinkFailure } from './http1-message.ts';

/** How long an idle connection or session is kept (Go's `IdleConnTimeout`, as lib/http1's default). */
export const IDLE_CONNECTION_TTL_MS = 90_000;

export function authority(origin: Http1Origin): string {
  return `${origin.protocol}//${isIP(origin.host) === 6 ? `[${origin.host}]` : origin.host}:${origin.port}`;
}

/** The TLS server name lib/http1 sends: the configured one, else the host when it is a name. */
export function serverName(origin: Http1Origin): string | undefined {
  return origin.tls?.servername ?? (isIP(origin.host) === 0 ? origin.host : undefined);
}

/** The request's deadline as a timer that fails it with a timeout (none for `timeoutMs: Infinity`). */
export function deadlineTimer(req: Http1Request, fail: (err: Http1Error) => void): NodeJS.Timeout | undefined {
  return Number.isFinite(req.timeoutMs) ? setTimeout(() => fail(deadlineExceeded(req.timeoutMs)), req.timeoutMs) : undefined;
}

/** Collects a response: a final head once, the body to the sink's function or into chunks. */
export class Answer {
  head: Http1Head | undefined;
  readonly #sink: BodySink | undefined;
  #take: ((chunk: Buffer) => void) | undefined;
  readonly #chunks: Buffer[] = [];

  constructor(sink: BodySink | undefined) {
    this.#sink = sink;
  }

  /** The final head; pseudo-headers (`:status`) are left out, repeated fields joined as lib/http1 joins them. */
  start(status: number, statusText: string, fields: Iterable<[string, string | string[] | undefined]>): void {
    const headers = new Http1Headers();
    for (const [name, value] of fields) {
      if (name.startsWith(':') || value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.add(name, v);
    }
    this.head = { status, statusText, headers };
    this.#take = this.#sink?.(this.head);
  }

  data(chunk: Buffer): void {
    if (this.#take) this.#take(chunk);
    else this.#chunks.push(chunk);
  }

  response(): Http1Response {
    const head = this.head ?? { status: 0, statusText: '', headers: new Http1Headers() };
    return { ...head, body: this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks) };
  }
}
