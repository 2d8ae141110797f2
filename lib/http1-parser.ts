/**
 * The answer side of one HTTP/1.1 exchange, parsed in one pass over its bytes as they arrive (RFC 9112):
 * interim 1xx heads skipped, the final head, a body framed by its Content-Length, by chunks or by the close,
 * and the trailers after the last chunk (checked, then dropped). What node:http refuses is refused here
 * with an Http1Error of kind protocol, at the byte node:http refuses it at rather than at the deadline: the
 * cases are the table in lib/http1-malformed.test.ts. lib/http1.ts feeds it the bytes of one connection.
 */
import { addField, BAD_HEAD_BYTE, framingOf, Http1Error, Http1Headers, MAX_HEAD_BYTES, parseHead, type ParsedHead } from './http1-message.ts';

/** What the parser tells the connection it reads for. */
export interface ResponseEvents {
  /** The final answer's head, once its body's framing is known to be valid. */
  onHead(parsed: ParsedHead): void;
  /** The body's bytes, in order. */
  onBody(chunk: Buffer): void;
}

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-cr' | 'chunk-lf' | 'trailers' | 'to-close' | 'done';

const EMPTY = Buffer.alloc(0);
const CR = 13;
const LF = 10;
/** What every answer starts with (after any empty lines). */
const HTTP_1 = Buffer.from('HTTP/1.');
/** node:http refuses chunk extensions over 16 KB. */
const MAX_CHUNK_LINE_BYTES = 16 * 1024;
const HEX = /^[0-9a-fA-F]+$/;
/** A chunk size and its extensions: `;name`, `;name=token` or `;name="quoted"`, with no spaces. */
const CHUNK_LINE =
  /^[0-9a-fA-F]+(?:;[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?:=(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+|"(?:[\t\x20\x21\x23-\x5b\x5d-\x7e\x80-\xff]|\\[\t\x20-\x7e\x80-\xff])*"))?)*$/;

export class ResponseParser {
  readonly #events: ResponseEvents;
  #method = 'GET';
  #state: State = 'done';
  #keepAlive = true;
  /** Body bytes left: of a Content-Length body or of the current chunk. */
  #remaining = 0;
  /** The bytes of an unfinished head or line, carried to the next buffer. */
  #pending: Buffer | undefined;
  /** How many bytes of an unfinished head were checked for bad bytes already. */
  #checked = 0;
  #trailerBytes = 0;

  constructor(events: ResponseEvents) {
    this.#events = events;
  }

  /** Expect the answer to a `method` request. */
  start(method: string): void {
    this.#method = method;
    this.#state = 'head';
    this.#keepAlive = true;
    this.#pending = undefined;
    this.#checked = 0;
  }

  /** The connection may carry another exchange once this answer ends. */
  get keepAlive(): boolean {
    return this.#keepAlive;
  }

  /** Reads `data`; true when the answer ended with it. Throws a protocol Http1Error for a malformed answer or a byte after its end. */
  feed(data: Buffer): boolean {
    let buf = data;
    while (buf.length > 0) {
      if (this.#state === 'done') throw new Http1Error('protocol', `${buf.length} bytes after the end of the response`);
      buf = this.#step(buf);
    }
    return this.#state === 'done';
  }

  /** The server closed the connection: true when that ends the answer (a body read to the close), false when it cuts it. */
  closed(): boolean {
    if (this.#state !== 'to-close') return false;
    this.#state = 'done';
    return true;
  }

  /** Consumes what it can of `buf` in the current state and returns the rest. */
  #step(buf: Buffer): Buffer {
    switch (this.#state) {
      case 'head':
        return this.#head(buf);
      case 'length':
      case 'chunk-data':
        return this.#counted(buf);
      case 'chunk-size':
        return this.#chunkSize(buf);
      case 'chunk-cr':
      case 'chunk-lf':
        return this.#chunkEnd(buf);
      case 'trailers':
        return this.#trailer(buf);
      case 'to-close':
        this.#events.onBody(buf);
        return EMPTY;
      case 'done':
        return buf;
    }
  }

  #head(buf: Buffer): Buffer {
    let joined = this.#pending ? Buffer.concat([this.#pending, buf]) : buf;
    // Empty lines before a status line are skipped, as node:http skips them.
    if (this.#checked === 0) while (joined.length >= 2 && joined[0] === CR && joined[1] === LF) joined = joined.subarray(2);
    const end = joined.indexOf('\r\n\r\n', Math.max(0, this.#checked - 3));
    if (end < 0) {
      this.#partialHead(joined);
      this.#pending = joined;
      return EMPTY;
    }
    if (end + 4 > MAX_HEAD_BYTES) throw new Http1Error('protocol', `the response head is over ${MAX_HEAD_BYTES} bytes`);
    this.#pending = undefined;
    this.#checked = 0;
    const parsed = parseHead(joined.toString('latin1', 0, end));
    const status = parsed.head.status;
    // Nothing here asks for an upgrade: a 101 would switch the connection to a protocol nobody speaks.
    if (status === 101) throw new Http1Error('protocol', 'an unrequested 101 Switching Protocols');
    // An interim answer (100 Continue, 103 Early Hints): the final one follows.
    if (status >= 200) this.#finalHead(parsed);
    return joined.subarray(end + 4);
  }

  /** Fails an unfinished head as soon as it cannot become a valid one: too long, not HTTP/1, a bad byte. */
  #partialHead(joined: Buffer): void {
    if (joined.length >= MAX_HEAD_BYTES) throw new Http1Error('protocol', `the response head is over ${MAX_HEAD_BYTES} bytes`);
    if (this.#checked === 0 && !(joined.length === 1 && joined[0] === CR)) {
      const n = Math.min(joined.length, HTTP_1.length);
      if (joined.compare(HTTP_1, 0, n, 0, n) !== 0) throw new Http1Error('protocol', 'the answer does not start with HTTP/1.');
    }
    // A CR at the very end may be followed by its LF in the next buffer: it is checked then.
    const to = joined[joined.length - 1] === CR ? joined.length - 1 : joined.length;
    if (BAD_HEAD_BYTE.test(joined.toString('latin1', this.#checked, to)))
      throw new Http1Error('protocol', 'the response head has a control byte, a bare CR or a bare LF');
    this.#checked = to;
  }

  #finalHead(parsed: ParsedHead): void {
    const framing = framingOf(this.#method, parsed.head);
    this.#keepAlive = parsed.keepAlive && framing.kind !== 'to-close';
    this.#events.onHead(parsed);
    if (framing.kind === 'length') {
      this.#remaining = framing.bytes;
      this.#state = framing.bytes === 0 ? 'done' : 'length';
    } else {
      this.#state = framing.kind === 'none' ? 'done' : framing.kind;
    }
  }

  /** Body bytes of a known count: a Content-Length body or one chunk's data. */
  #counted(buf: Buffer): Buffer {
    const n = Math.min(this.#remaining, buf.length);
    this.#events.onBody(n === buf.length ? buf : buf.subarray(0, n));
    this.#remaining -= n;
    if (this.#remaining === 0) this.#state = this.#state === 'length' ? 'done' : 'chunk-cr';
    return n === buf.length ? EMPTY : buf.subarray(n);
  }

  #chunkSize(buf: Buffer): Buffer {
    const line = this.#line(buf, MAX_CHUNK_LINE_BYTES, 'a chunk-size line');
    if (line === undefined) return EMPTY;
    const text = line.text;
    const semicolon = text.indexOf(';');
    if (!(semicolon < 0 ? HEX.test(text) : CHUNK_LINE.test(text)))
      throw new Http1Error('protocol', `a malformed chunk-size line: ${JSON.stringify(text.slice(0, 40))}`);
    const bytes = parseInt(semicolon < 0 ? text : text.slice(0, semicolon), 16);
    if (!Number.isSafeInteger(bytes)) throw new Http1Error('protocol', `a chunk size overflows: ${JSON.stringify(text.slice(0, 40))}`);
    this.#remaining = bytes;
    this.#trailerBytes = 0;
    this.#state = bytes === 0 ? 'trailers' : 'chunk-data';
    return line.rest;
  }

  /** The CRLF after a chunk's data, byte by byte: anything else fails at once. */
  #chunkEnd(buf: Buffer): Buffer {
    const cr = this.#state === 'chunk-cr';
    if (buf[0] !== (cr ? CR : LF)) throw new Http1Error('protocol', 'a chunk does not end with CRLF');
    this.#state = cr ? 'chunk-lf' : 'chunk-size';
    return buf.subarray(1);
  }

  /** A trailer line, checked as a header line; the section ends with an empty line and is held to the head's limit. */
  #trailer(buf: Buffer): Buffer {
    const line = this.#line(buf, MAX_HEAD_BYTES - this.#trailerBytes, 'the trailer section');
    if (line === undefined) return EMPTY;
    this.#trailerBytes += line.text.length + 2;
    if (line.text === '') {
      this.#state = 'done';
      return line.rest;
    }
    addField(new Http1Headers(), line.text);
    return line.rest;
  }

  /** The next CRLF-ended line (latin1), joined with what earlier buffers left; undefined until its end arrives. */
  #line(buf: Buffer, max: number, what: string): { text: string; rest: Buffer } | undefined {
    const joined = this.#pending ? Buffer.concat([this.#pending, buf]) : buf;
    const lf = joined.indexOf(LF, this.#pending?.length ?? 0);
    if (lf < 0 ? joined.length > max : lf - 1 > max) throw new Http1Error('protocol', `${what} is over ${max} bytes`);
    if (lf < 0) {
      this.#pending = joined;
      return undefined;
    }
    if (lf === 0 || joined[lf - 1] !== CR) throw new Http1Error('protocol', `${what} ends in a bare LF`);
    this.#pending = undefined;
    return { text: joined.toString('latin1', 0, lf - 1), rest: joined.subarray(lf + 1) };
  }
}
