/**
 * The HTTP/1.1 message as lib/http1.ts's pool exchanges it: the request and answer types, the one error type
 * of every HTTP client behind lib/http-pool.ts, the request head written on the wire and the answer head read
 * from it, and how an answer's body is framed (RFC 9112). The pool (lib/http1.ts) keeps connections and runs
 * the byte-by-byte state machine over these.
 */
import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';

/**
 * What went wrong: `timeout` (the deadline, or a watch's inactivity limit), `aborted` (the caller's signal),
 * `network` (a socket error: refused, reset, TLS), `closed` (the server closed the connection, a clean FIN,
 * before the answer ended), `protocol` (a malformed answer), `invalid-request` (the caller's method, target or
 * header cannot be sent), `pool-closed` (the pool was closed).
 */
export const Http1ErrorKinds = ['timeout', 'aborted', 'network', 'closed', 'protocol', 'invalid-request', 'pool-closed'] as const;
export type Http1ErrorKind = (typeof Http1ErrorKinds)[number];

/** Every failure of an exchange: no answer, a malformed one, a request that cannot be sent, or a closed pool. */
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

/** A request whose deadline (`timeoutMs`) passed before its answer ended. */
export function deadlineExceeded(timeoutMs: number): Http1Error {
  return new Http1Error('timeout', `no complete answer within ${timeoutMs} ms`);
}

/** A body sink that threw fails its exchange. */
export function sinkFailure(err: unknown): Http1Error {
  return new Http1Error('protocol', `the body sink failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
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
  /**
   * The whole exchange's deadline, from the request to the answer's last byte, as Go's `http.Client.Timeout`
   * (a replay on a new connection included); `Infinity` for none (a watch, bounded by its inactivity limit).
   */
  readonly timeoutMs: number;
  /** For a long body handed to a sink (a watch): the exchange also fails when no byte arrives for this long. */
  readonly inactivityTimeoutMs?: number;
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
/** RFC 9110 token: a method or a field name. */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What the pool writes in a request target: visible ASCII (callers percent-encode the rest). */
const TARGET = /^[\x21-\x7e]+$/;
/** What it writes in a field value: visible ASCII, space and tab. */
const REQUEST_VALUE = /^[\t\x20-\x7e]*$/;
/** In an unfinished head: a control byte other than tab, CR and LF, a CR not before LF, or an LF not after CR. */
// eslint-disable-next-line no-control-regex -- control bytes are what it looks for
export const BAD_HEAD_BYTE = /[\0-\x08\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)|(?<!\r)\n/;
/** In one line of a head (split at CRLF): a control byte other than tab, a CR or LF being bare. Cheaper per line under --jitless. */
// eslint-disable-next-line no-control-regex -- control bytes are what it looks for
const LINE_CTL = /[\0-\x08\x0a-\x1f\x7f]/;
const BAD_LINE = 'the response head has a control byte, a bare CR or a bare LF';
const STATUS_LINE = /^HTTP\/1\.([01]) ([0-9]{3})(?: (.*))?$/;
/** A head (status line to the empty line, CRLFs included) or a trailer section: at most this many bytes. */
export const MAX_HEAD_BYTES = 64 * 1024;

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

/** The request head; throws `invalid-request` for a method, target or field that would change its meaning. */
export function requestHead(req: Http1Request, host: string, bodyBytes: number | undefined): string {
  if (!TOKEN.test(req.method)) throw new Http1Error('invalid-request', `the method ${JSON.stringify(req.method)} is not a token`);
  if (!TARGET.test(req.path)) throw new Http1Error('invalid-request', `the request target ${JSON.stringify(req.path)} has a byte outside visible ASCII`);
  let head = `${req.method} ${req.path} HTTP/1.1\r\nHost: ${host}\r\n`;
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    if (!TOKEN.test(name)) throw new Http1Error('invalid-request', `the header name ${JSON.stringify(name)} is not a token`);
    if (!REQUEST_VALUE.test(value)) throw new Http1Error('invalid-request', `the header ${name} has a control byte or non-ASCII in its value`);
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

const protocolError = (what: string, text: string): Http1Error => new Http1Error('protocol', `${what}: ${JSON.stringify(text.slice(0, 40))}`);

/**
 * An answer's head, from its status line to the line before the empty one (CRLFs between lines). Refuses, as
 * node:http does, a control byte, a bare CR or LF, a status line that is not `HTTP/1.x NNN reason`, a field
 * name that is not a token (a space before the colon, an obs-fold line) and a field without a colon.
 */
export function parseHead(text: string): ParsedHead {
  const lines = text.split('\r\n');
  const statusLine = lines[0] ?? '';
  if (LINE_CTL.test(statusLine)) throw new Http1Error('protocol', BAD_LINE);
  const m = STATUS_LINE.exec(statusLine);
  if (!m) throw protocolError('not an HTTP/1.x status line', statusLine);
  const status = Number(m[2]);
  if (status < 100) throw protocolError('a status below 100', statusLine);
  const headers = new Http1Headers();
  for (let i = 1; i < lines.length; i += 1) addField(headers, lines[i] as string);
  return {
    head: { status, statusText: m[3] ?? '', headers },
    keepAlive: keepAlive(m[1] === '0', headers.get('connection')),
    idleMs: advertisedIdleMs(headers.get('keep-alive')),
  };
}

/** One `name: value` line (a header or a trailer) into `headers`; the value without the spaces and tabs around it. */
export function addField(headers: Http1Headers, line: string): void {
  if (LINE_CTL.test(line)) throw new Http1Error('protocol', BAD_LINE);
  const colon = line.indexOf(':');
  const name = colon < 0 ? line : line.slice(0, colon);
  if (colon <= 0 || !TOKEN.test(name)) throw protocolError('a response field name is not a token', line);
  headers.add(name, withoutOws(line, colon + 1));
}

/** `line` from `start` without the spaces and tabs (OWS) at either end. */
function withoutOws(line: string, start: number): string {
  let from = start;
  let end = line.length;
  while (from < end && isOws(line.charCodeAt(from))) from += 1;
  while (end > from && isOws(line.charCodeAt(end - 1))) end -= 1;
  return line.slice(from, end);
}

const isOws = (code: number): boolean => code === 32 || code === 9;

function keepAlive(http10: boolean, connection: string | null): boolean {
  if (connection === null) return !http10;
  const options = connection.toLowerCase().split(',');
  const has = (option: string): boolean => options.some((o) => o.trim() === option);
  return http10 ? has('keep-alive') : !has('close');
}

function advertisedIdleMs(keepAliveField: string | null): number | undefined {
  const advertised = keepAliveField === null ? null : /\btimeout=(\d+)/.exec(keepAliveField);
  return advertised ? Number(advertised[1]) * 1000 : undefined;
}

export type Framing = { kind: 'none' } | { kind: 'length'; bytes: number } | { kind: 'chunk-size' } | { kind: 'to-close' };

/**
 * How the body of an answer to `method` ends (RFC 9112 section 6.3). A Transfer-Encoding whose last coding is
 * `chunked` is chunked, any other is read to the close; with a Content-Length too, or empty, it is refused.
 * A Content-Length is digits only: a sign, a list (`5, 5`, or two fields) or an overflow is refused.
 */
export function framingOf(method: string, head: Http1Head): Framing {
  if (method === 'HEAD' || NO_BODY_STATUSES.has(head.status)) return { kind: 'none' };
  const transferEncoding = head.headers.get('transfer-encoding');
  const contentLength = head.headers.get('content-length');
  if (transferEncoding !== null) {
    if (contentLength !== null) throw new Http1Error('protocol', 'the response has both Transfer-Encoding and Content-Length');
    const last = transferEncoding.slice(transferEncoding.lastIndexOf(',') + 1).trim();
    if (last === '') throw protocolError('an empty transfer coding', transferEncoding);
    return last.toLowerCase() === 'chunked' ? { kind: 'chunk-size' } : { kind: 'to-close' };
  }
  if (contentLength === null) return { kind: 'to-close' };
  const bytes = /^[0-9]+$/.test(contentLength) ? Number(contentLength) : Number.NaN;
  if (!Number.isSafeInteger(bytes)) throw protocolError('Content-Length is not one number', contentLength);
  return { kind: 'length', bytes };
}
