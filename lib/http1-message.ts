/**
 * The HTTP/1.1 message as lib/http1.ts's pool exchanges it: the request and answer types, the one error type
 * of every HTTP client behind lib/http-pool.ts, the request head written on the wire and the answer head read
 * from it, and how an answer's body is framed (RFC 9112). The pool (lib/http1.ts) keeps connections and runs
 * the byte-by-byte state machine over these.
 */
import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';

export const Http1ErrorKinds = ['timeout', 'aborted', 'network', 'protocol', 'closed', 'invalid-request'] as const;
export type Http1ErrorKind = (typeof Http1ErrorKinds)[number];

/** Every failure of an exchange: no answer (network, timeout, aborted), a malformed one, or a closed pool. */
export class Http1Error extends Error {
  override readonly name = 'Http1Error';
  readonly kind: Http1ErrorKind;
  /** The socket error's code (`ECONNREFUSED`, `ECONNRESET`, …) when a socket error caused it. */
  readonly code: string | undefined;

  constructor(kind: Http1ErrorKind, message: string, options: { cause?: unknown; code?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.code = options.code;
  }
}

export interface Http1Origin {
  readonly protocol: 'http:' | 'https:';
  /** A host name or an IP address (IPv6 without brackets). */
  readonly host: string;
  readonly port: number;
  /** For https: the CA, client certificate and key, verification, server name. */
  readonly tls?: Pick<ConnectionOptions, 'ca' | 'cert' | 'key' | 'rejectUnauthorized' | 'servername'>;
}

export interface Http1Request {
  readonly method: string;
  /** Origin-form target: the path and query, e.g. `/api/v1/nodes?limit=500`. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Fails the exchange when the connection carries no data for this long. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** Response header fields by lower-case name; repeated fields joined with `, ` as fetch's Headers does. */
export class Http1Headers {
  readonly #fields = new Map<string, string>();

  add(name: string, value: string): void {
    const key = name.toLowerCase();
    const had = this.#fields.get(key);
    this.#fields.set(key, had === undefined ? value : `${had}, ${value}`);
  }

  get(name: string): string | null {
    return this.#fields.get(name.toLowerCase()) ?? null;
  }
}

export interface Http1Head {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Http1Headers;
}

export interface Http1Response extends Http1Head {
  /** The whole body, or empty when a sink took it. */
  readonly body: Buffer;
}

/** Told the head; a returned function receives the body's bytes as they arrive instead of the response. */
export type BodySink = (head: Http1Head) => ((chunk: Buffer) => void) | undefined;

const REPLAYABLE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);
const NO_BODY_STATUSES: ReadonlySet<number> = new Set([204, 304]);
const FORBIDDEN_IN_HEADER = /[\r\n\0]/;

/** A request sent again after its connection failed before any answer changes nothing on the server. */
export function replayable(req: Http1Request): boolean {
  if (REPLAYABLE_METHODS.has(req.method)) return true;
  return Object.keys(req.headers ?? {}).some((k) => /^(x-)?idempotency-key$/i.test(k));
}

/** The Content-Length to send: the body's bytes, 0 for a bodiless write, none for a bodiless read. */
export function bodyLength(req: Http1Request): number | undefined {
  if (req.body !== undefined) return Buffer.byteLength(req.body);
  return req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH' ? 0 : undefined;
}

export function hostHeader(origin: Http1Origin): string {
  const host = isIP(origin.host) === 6 ? `[${origin.host}]` : origin.host;
  const defaultPort = origin.protocol === 'https:' ? 443 : 80;
  return origin.port === defaultPort ? host : `${host}:${origin.port}`;
}

export function requestHead(req: Http1Request, host: string, bodyBytes: number | undefined): string {
  if (FORBIDDEN_IN_HEADER.test(req.path) || req.path.includes(' '))
    throw new Http1Error('protocol', `the request target ${JSON.stringify(req.path)} has a space or a line break`);
  let head = `${req.method} ${req.path} HTTP/1.1\r\nHost: ${host}\r\n`;
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    if (FORBIDDEN_IN_HEADER.test(name) || FORBIDDEN_IN_HEADER.test(value))
      throw new Http1Error('protocol', `the header ${JSON.stringify(name)} has a line break`);
    // The body's length is the pool's to state: a second Content-Length would make the request invalid.
    if (name.length === 14 && name.toLowerCase() === 'content-length') continue;
    head += `${name}: ${value}\r\n`;
  }
  if (bodyBytes !== undefined) head += `Content-Length: ${bodyBytes}\r\n`;
  return `${head}\r\n`;
}

export interface ParsedHead {
  readonly head: Http1Head;
  /** The server lets the connection serve another request. */
  readonly keepAlive: boolean;
  /** How long the server keeps an idle connection, when it says (`Keep-Alive: timeout=N`). */
  readonly idleMs: number | undefined;
}

export function parseHead(text: string): ParsedHead {
  const lines = text.split('\r\n');
  const statusLine = lines[0] ?? '';
  const m = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/.exec(statusLine);
  if (!m) throw new Http1Error('protocol', `not an HTTP/1.x status line: ${JSON.stringify(statusLine.slice(0, 40))}`);
  const headers = new Http1Headers();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Http1Error('protocol', `a response header line has no name: ${JSON.stringify(line.slice(0, 40))}`);
    headers.add(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const connection = (headers.get('connection') ?? '').toLowerCase();
  const advertised = /\btimeout=(\d+)/.exec(headers.get('keep-alive') ?? '');
  return {
    head: { status: Number(m[2]), statusText: m[3] ?? '', headers },
    keepAlive: m[1] === '0' ? connection.includes('keep-alive') : !connection.includes('close'),
    idleMs: advertised ? Number(advertised[1]) * 1000 : undefined,
  };
}

export type Framing = { kind: 'none' } | { kind: 'length'; bytes: number } | { kind: 'chunk-size' } | { kind: 'to-close' };

/** How the body of an answer to `method` ends (RFC 9112 section 6.3). */
export function framingOf(method: string, head: Http1Head): Framing {
  if (method === 'HEAD' || NO_BODY_STATUSES.has(head.status) || head.status === 101) return { kind: 'none' };
  const transferEncoding = head.headers.get('transfer-encoding');
  if (transferEncoding !== null && /\bchunked\s*$/i.test(transferEncoding)) return { kind: 'chunk-size' };
  const contentLength = head.headers.get('content-length');
  if (contentLength === null) return { kind: 'to-close' };
  if (!/^\d+$/.test(contentLength)) throw new Http1Error('protocol', `Content-Length is not one number: ${JSON.stringify(contentLength.slice(0, 40))}`);
  return { kind: 'length', bytes: Number(contentLength) };
}
