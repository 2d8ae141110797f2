// Malformed and edge-case answers, each sent as raw bytes by a TCP server, to Http1Pool and to node:http (the
// reference, run here so its behaviour is checked rather than assumed; Node 24, the project's pinned node).
// For every case the pool answers as node:http answers, or refuses with an Http1Error of a named kind where
// node:http fails; it never waits for its timeout where node:http fails at once, never puts a connection back
// after a refused answer, and the next request on the same client works.
import { Agent, request as nodeRequest } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Http1Error, Http1Pool, type Http1ErrorKind } from './http1.ts';

/** How a client fared: the first request's answer or failure, and the connections two requests used. */
interface Outcome {
  readonly first: { readonly status: number; readonly body: string } | { readonly refused: string };
  /** Connections the server accepted for both requests: 1 when the second reused the first's. */
  readonly connections: number;
}

interface Case {
  readonly name: string;
  /** What the server writes for the first request it reads (latin1); the next request is answered `next`. */
  readonly wire?: string;
  /** After writing: keep the connection open (default), end it (FIN) or reset it (RST). */
  readonly then?: 'hold' | 'end' | 'reset';
  /** Written on the connection after the first answer arrived, while it is idle. */
  readonly idle?: string;
  readonly method?: string;
  readonly path?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** node:http's result: its answer, or the code of its error (`timeout`: nothing within HANG_MS). */
  readonly node: Answer | string;
  /** The pool's, where it is not node's answer: the kind of the Http1Error it refuses with. */
  readonly pool?: Http1ErrorKind;
  /** Why the pool refuses an answer node:http takes. */
  readonly stricter?: string;
}

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly connections: number;
}

/** A request every client must answer within this; a case that hangs (both clients) gets HANG_MS. */
const ANSWER_MS = 3_000;
const HANG_MS = 300;
const NEXT = 'HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnext';

const ok = (body: string, connections = 1, status = 200): Answer => ({ status, body, connections });
const CHUNKED = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n';
const LENGTH2 = 'Content-Length: 2\r\n\r\nok';
const trailers = (bytes: number): string => `${CHUNKED}2\r\nok\r\n0\r\n${`X-T: ${'t'.repeat(1000)}\r\n`.repeat(Math.ceil(bytes / 1007))}\r\n`;
/** A head of exactly `total` bytes, CRLFs included, with a 2-byte body. */
const headOf = (total: number): string => {
  const bare = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Pad: \r\n\r\n';
  return bare.replace('X-Pad: ', `X-Pad: ${'p'.repeat(total - bare.length)}`) + 'ok';
};

const CASES: readonly Case[] = [
  // The status line.
  { name: 'a plain answer (control)', wire: `HTTP/1.1 200 OK\r\n${LENGTH2}`, node: ok('ok') },
  { name: 'no reason phrase', wire: `HTTP/1.1 200\r\n${LENGTH2}`, node: ok('ok') },
  { name: 'an empty reason phrase', wire: `HTTP/1.1 200 \r\n${LENGTH2}`, node: ok('ok') },
  { name: 'a reason phrase with a tab and obs-text', wire: `HTTP/1.1 200 O\tK\xe9\r\n${LENGTH2}`, node: ok('ok') },
  {
    name: 'status 099',
    wire: `HTTP/1.1 099 X\r\n${LENGTH2}`,
    node: ok('ok', 1, 99),
    pool: 'protocol',
    stricter: 'a status below 100 is no HTTP status; callers would read it as a success',
  },
  { name: 'status 600', wire: `HTTP/1.1 600 X\r\n${LENGTH2}`, node: ok('ok', 1, 600) },
  { name: 'status 1000', wire: `HTTP/1.1 1000 X\r\n${LENGTH2}`, node: 'HPE_INVALID_STATUS', pool: 'protocol' },
  { name: 'status of two digits', wire: `HTTP/1.1 20 OK\r\n${LENGTH2}`, node: 'HPE_INVALID_STATUS', pool: 'protocol' },
  { name: 'a non-numeric status', wire: `HTTP/1.1 abc OK\r\n${LENGTH2}`, node: 'HPE_INVALID_STATUS', pool: 'protocol' },
  { name: 'no space after the status', wire: `HTTP/1.1 200OK\r\n${LENGTH2}`, node: 'HPE_INVALID_STATUS', pool: 'protocol' },
  { name: 'two spaces before the status', wire: `HTTP/1.1  200 OK\r\n${LENGTH2}`, node: 'HPE_INVALID_STATUS', pool: 'protocol' },
  { name: 'version HTTP/1.2', wire: `HTTP/1.2 200 OK\r\n${LENGTH2}`, node: 'HPE_INVALID_VERSION', pool: 'protocol' },
  { name: 'version HTTP/2.0 in text', wire: `HTTP/2.0 200 OK\r\n${LENGTH2}`, node: ok('ok', 2), pool: 'protocol', stricter: 'HTTP/2 has no text status line' },
  { name: 'a lower-case version', wire: `http/1.1 200 OK\r\n${LENGTH2}`, node: 'HPE_INVALID_CONSTANT', pool: 'protocol' },
  { name: 'an HTTP/0.9 answer (no head)', wire: 'ok', then: 'end', node: 'HPE_INVALID_CONSTANT', pool: 'protocol' },
  { name: 'empty lines before the status line', wire: `\r\n\r\nHTTP/1.1 200 OK\r\n${LENGTH2}`, node: ok('ok') },
  { name: 'bare-LF line ends', wire: 'HTTP/1.1 200 OK\nContent-Length: 2\n\nok', node: 'HPE_CR_EXPECTED', pool: 'protocol' },
  { name: 'one bare LF among CRLFs', wire: 'HTTP/1.1 200 OK\r\nContent-Length: 2\n\r\nok', node: 'HPE_CR_EXPECTED', pool: 'protocol' },
  { name: 'a bare LF, then the server waits', wire: 'HTTP/1.1 200 OK\nContent', node: 'HPE_CR_EXPECTED', pool: 'protocol' },
  // Interim answers.
  { name: '100 Continue before the answer', wire: `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n${LENGTH2}`, node: ok('ok') },
  { name: '103 Early Hints with fields', wire: `HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\n${LENGTH2}`, node: ok('ok') },
  { name: 'fifty interim answers', wire: `${'HTTP/1.1 100 Continue\r\n\r\n'.repeat(50)}HTTP/1.1 200 OK\r\n${LENGTH2}`, node: ok('ok') },
  // node:http, with no 'upgrade' listener, waits for more.
  { name: 'an unrequested 101', wire: 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n', node: 'timeout', pool: 'protocol' },
  // Header fields.
  {
    name: 'a space before the colon (Content-Length : 2)',
    wire: 'HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nhello',
    node: 'HPE_INVALID_HEADER_TOKEN',
    pool: 'protocol',
  },
  { name: 'a tab before the colon', wire: 'HTTP/1.1 200 OK\r\nContent-Length\t: 2\r\n\r\nok', node: 'HPE_INVALID_HEADER_TOKEN', pool: 'protocol' },
  { name: 'an obs-fold line', wire: `HTTP/1.1 200 OK\r\nX-A: a\r\n b\r\n${LENGTH2}`, node: 'HPE_INVALID_HEADER_TOKEN', pool: 'protocol' },
  {
    name: 'an obs-fold line hiding Content-Length',
    wire: 'HTTP/1.1 200 OK\r\nX-A: a\r\n Content-Length: 2\r\n\r\nhello',
    node: 'HPE_INVALID_HEADER_TOKEN',
    pool: 'protocol',
  },
  { name: 'NUL in a value', wire: `HTTP/1.1 200 OK\r\nX-A: a\0b\r\n${LENGTH2}`, node: 'HPE_INVALID_HEADER_TOKEN', pool: 'protocol' },
  { name: 'a bare CR in a value', wire: `HTTP/1.1 200 OK\r\nX-A: a\rb\r\n${LENGTH2}`, node: 'HPE_LF_EXPECTED', pool: 'protocol' },
  { name: 'a bare CR, then the server waits', wire: 'HTTP/1.1 200 OK\r\nX-A: a\rb', node: 'HPE_LF_EXPECTED', pool: 'protocol' },
  { name: 'a control byte (0x01) in a value', wire: `HTTP/1.1 200 OK\r\nX-A: a\x01b\r\n${LENGTH2}`, node: 'HPE_INVALID_HEADER_TOKEN', pool: 'protocol' },
  { name: 'DEL in a value', wire: `HTTP/1.1 200 OK\r\nX-A: a\x7fb\r\n${LENGTH2}`, node: 'HPE_INVALID_HEADER_TOKEN', pool: 'protocol' },
  { name: 'a tab and obs-text in a value', wire: `HTTP/1.1 200 OK\r\nX-A: a\tb\xe9\r\n${LENGTH2}`, node: ok('ok') },
  { name: 'spaces and tabs around a value', wire: 'HTTP/1.1 200 OK\r\nContent-Length: \t 2 \t\r\n\r\nok', node: ok('ok') },
  { name: 'a line without a colon', wire: `HTTP/1.1 200 OK\r\nNoColon\r\n${LENGTH2}`, node: 'HPE_INVALID_HEADER_TOKEN', pool: 'protocol' },
  { name: 'an empty field name', wire: `HTTP/1.1 200 OK\r\n: v\r\n${LENGTH2}`, node: 'HPE_INVALID_HEADER_TOKEN', pool: 'protocol' },
  { name: 'a non-token byte in a name', wire: `HTTP/1.1 200 OK\r\nX(y): v\r\n${LENGTH2}`, node: 'HPE_INVALID_HEADER_TOKEN', pool: 'protocol' },
  { name: 'a head of exactly 64 KB', wire: headOf(65_536), node: ok('ok') },
  { name: 'a head over 64 KB', wire: headOf(65_600), node: 'HPE_HEADER_OVERFLOW', pool: 'protocol' },
  { name: 'a head over 64 KB that never ends', wire: `HTTP/1.1 200 OK\r\nX-Pad: ${'p'.repeat(70_000)}`, node: 'HPE_HEADER_OVERFLOW', pool: 'protocol' },
  // Content-Length.
  {
    name: 'Transfer-Encoding chunked with a Content-Length',
    wire: `${CHUNKED.replace('\r\n\r\n', '\r\nContent-Length: 2\r\n\r\n')}2\r\nok\r\n0\r\n\r\n`,
    node: 'HPE_INVALID_CONTENT_LENGTH',
    pool: 'protocol',
  },
  { name: 'a negative Content-Length', wire: 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nok', node: 'HPE_INVALID_CONTENT_LENGTH', pool: 'protocol' },
  { name: 'a Content-Length with a plus sign', wire: 'HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nok', node: 'HPE_INVALID_CONTENT_LENGTH', pool: 'protocol' },
  { name: 'an empty Content-Length', wire: 'HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\nok', node: 'HPE_INVALID_CONTENT_LENGTH', pool: 'protocol' },
  {
    name: 'Content-Length: 5, 5 in one field',
    wire: 'HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello',
    node: 'HPE_INVALID_CONTENT_LENGTH',
    pool: 'protocol',
  },
  {
    name: 'two equal Content-Length fields',
    wire: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello',
    node: 'HPE_UNEXPECTED_CONTENT_LENGTH',
    pool: 'protocol',
  },
  {
    name: 'two conflicting Content-Length fields',
    wire: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!',
    node: 'HPE_UNEXPECTED_CONTENT_LENGTH',
    pool: 'protocol',
  },
  {
    name: 'a Content-Length over 2^64',
    wire: 'HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\nok',
    node: 'HPE_INVALID_CONTENT_LENGTH',
    pool: 'protocol',
  },
  { name: 'a Content-Length with leading zeros', wire: 'HTTP/1.1 200 OK\r\nContent-Length: 002\r\n\r\nok', node: ok('ok') },
  { name: 'the server closes mid-body', wire: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhe', then: 'end', node: 'ECONNRESET', pool: 'closed' },
  {
    name: 'a body shorter than its Content-Length, the server waits',
    wire: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhe',
    node: 'timeout',
    pool: 'timeout',
  },
  // Transfer-Encoding.
  {
    name: 'Transfer-Encoding x-chunked (read to the close)',
    wire: `${CHUNKED.replace(': chunked', ': x-chunked')}2\r\nok\r\n0\r\n\r\n`,
    then: 'end',
    node: ok('2\r\nok\r\n0\r\n\r\n', 2),
  },
  { name: 'Transfer-Encoding identity (read to the close)', wire: `${CHUNKED.replace(': chunked', ': identity')}abc`, then: 'end', node: ok('abc', 2) },
  {
    name: 'Transfer-Encoding chunked;q=1 (read to the close)',
    wire: `${CHUNKED.replace(': chunked', ': chunked;q=1')}2\r\nok\r\n0\r\n\r\n`,
    then: 'end',
    node: ok('2\r\nok\r\n0\r\n\r\n', 2),
  },
  {
    name: 'chunked, gzip (read to the close)',
    wire: `${CHUNKED.replace(': chunked', ': chunked, gzip')}2\r\nok\r\n0\r\n\r\n`,
    then: 'end',
    node: ok('2\r\nok\r\n0\r\n\r\n', 2),
  },
  {
    name: 'chunked, gzip with a Content-Length',
    wire: `${CHUNKED.replace(': chunked', ': chunked, gzip\r\nContent-Length: 2')}2\r\nok\r\n0\r\n\r\n`,
    then: 'end',
    node: 'HPE_INVALID_CONTENT_LENGTH',
    pool: 'protocol',
  },
  {
    name: 'gzip, chunked with a Content-Length',
    wire: `${CHUNKED.replace(': chunked', ': gzip, chunked\r\nContent-Length: 2')}2\r\nok\r\n0\r\n\r\n`,
    node: 'HPE_INVALID_CONTENT_LENGTH',
    pool: 'protocol',
  },
  {
    name: 'gzip, chunked (the chunks decoded, the coding left)',
    wire: `${CHUNKED.replace(': chunked', ': gzip, chunked')}2\r\nok\r\n0\r\n\r\n`,
    node: ok('ok'),
  },
  {
    name: 'Transfer-Encoding chunked in two fields',
    wire: `${CHUNKED.replace('\r\n\r\n', '\r\nTransfer-Encoding: chunked\r\n\r\n')}2\r\nok\r\n0\r\n\r\n`,
    node: ok('ok'),
  },
  { name: 'Transfer-Encoding CHUNKED in capitals', wire: `${CHUNKED.replace(': chunked', ': CHUNKED')}2\r\nok\r\n0\r\n\r\n`, node: ok('ok') },
  {
    name: 'an empty Transfer-Encoding with a Content-Length',
    wire: `HTTP/1.1 200 OK\r\nTransfer-Encoding: \r\n${LENGTH2}`,
    node: 'HPE_INVALID_TRANSFER_ENCODING',
    pool: 'protocol',
  },
  { name: 'chunked in an HTTP/1.0 answer', wire: 'HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n', then: 'end', node: ok('ok', 2) },
  // Chunked bodies.
  { name: 'chunk sizes with leading zeros', wire: `${CHUNKED}0002\r\nok\r\n0000\r\n\r\n`, node: ok('ok') },
  { name: 'a chunk size of nine hex digits', wire: `${CHUNKED}000000002\r\nok\r\n0\r\n\r\n`, node: ok('ok') },
  { name: 'a chunk size over 2^64', wire: `${CHUNKED}10000000000000000\r\nok\r\n0\r\n\r\n`, node: 'HPE_INVALID_CHUNK_SIZE', pool: 'protocol' },
  { name: 'a 64 GB chunk cut by the close', wire: `${CHUNKED}fffffffff\r\nok`, then: 'end', node: 'ECONNRESET', pool: 'closed' },
  { name: 'a chunk size that is not hexadecimal', wire: `${CHUNKED}zz\r\nok\r\n0\r\n\r\n`, node: 'HPE_INVALID_CHUNK_SIZE', pool: 'protocol' },
  { name: 'a negative chunk size', wire: `${CHUNKED}-2\r\nok\r\n0\r\n\r\n`, node: 'HPE_INVALID_CHUNK_SIZE', pool: 'protocol' },
  { name: 'an empty chunk size', wire: `${CHUNKED}\r\nok\r\n0\r\n\r\n`, node: 'HPE_INVALID_CHUNK_SIZE', pool: 'protocol' },
  { name: 'a space after the chunk size', wire: `${CHUNKED}2 \r\nok\r\n0\r\n\r\n`, node: 'HPE_INVALID_CHUNK_SIZE', pool: 'protocol' },
  { name: 'chunk extensions, a quoted one included', wire: `${CHUNKED}2;a=b;c="x;y"\r\nok\r\n0;d\r\n\r\n`, node: ok('ok') },
  { name: 'a space inside a chunk extension', wire: `${CHUNKED}2; a=b\r\nok\r\n0\r\n\r\n`, node: 'HPE_STRICT', pool: 'protocol' },
  { name: 'a control byte in a chunk extension', wire: `${CHUNKED}2;a=\x01\r\nok\r\n0\r\n\r\n`, node: 'HPE_STRICT', pool: 'protocol' },
  {
    name: 'a chunk extension of 20 KB',
    wire: `${CHUNKED}2;a=${'b'.repeat(20_000)}\r\nok\r\n0\r\n\r\n`,
    node: 'HPE_CHUNK_EXTENSIONS_OVERFLOW',
    pool: 'protocol',
  },
  { name: 'chunk data not followed by CRLF', wire: `${CHUNKED}2\r\nokX\r\n0\r\n\r\n`, node: 'HPE_STRICT', pool: 'protocol' },
  { name: 'chunk data followed by a bare LF', wire: `${CHUNKED}2\r\nok\n0\r\n\r\n`, node: 'HPE_CR_EXPECTED', pool: 'protocol' },
  { name: 'a chunk size line ending in a bare LF', wire: `${CHUNKED}2\nok\r\n0\r\n\r\n`, node: 'HPE_CR_EXPECTED', pool: 'protocol' },
  { name: 'trailers', wire: `${CHUNKED}2\r\nok\r\n0\r\nX-T: 1\r\nX-U: 2\r\n\r\n`, node: ok('ok') },
  { name: 'a trailer line without a colon', wire: `${CHUNKED}2\r\nok\r\n0\r\nbad\r\n\r\n`, node: 'HPE_INVALID_HEADER_TOKEN', pool: 'protocol' },
  { name: 'trailers of 40 KB', wire: trailers(40_000), node: ok('ok') },
  { name: 'trailers of 1 MB', wire: trailers(1 << 20), node: 'HPE_HEADER_OVERFLOW', pool: 'protocol' },
  { name: 'no final CRLF, then the close', wire: `${CHUNKED}2\r\nok\r\n0\r\n`, then: 'end', node: 'ECONNRESET', pool: 'closed' },
  { name: 'no final CRLF, the server waits', wire: `${CHUNKED}2\r\nok\r\n0\r\n`, node: 'timeout', pool: 'timeout' },
  { name: 'the server closes mid-chunk', wire: `${CHUNKED}5\r\nhe`, then: 'end', node: 'ECONNRESET', pool: 'closed' },
  // The connection.
  { name: 'a body read to the close', wire: 'HTTP/1.1 200 OK\r\n\r\nuntil close', then: 'end', node: ok('until close', 2) },
  { name: 'HTTP/1.0 without keep-alive', wire: 'HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok', then: 'end', node: ok('ok', 2) },
  { name: 'HTTP/1.0 with keep-alive', wire: `HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n${LENGTH2}`, node: ok('ok') },
  { name: 'Connection: close', wire: `HTTP/1.1 200 OK\r\nConnection: close\r\n${LENGTH2}`, node: ok('ok', 2) },
  { name: 'bytes after a complete answer', wire: `HTTP/1.1 200 OK\r\n${LENGTH2}EXTRA`, node: 'HPE_INVALID_CONSTANT', pool: 'protocol' },
  { name: 'bytes on the idle connection after the answer', wire: `HTTP/1.1 200 OK\r\n${LENGTH2}`, idle: 'EXTRA', node: ok('ok', 2) },
  {
    name: 'an answer to HEAD with a body',
    method: 'HEAD',
    wire: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello',
    node: 'HPE_INVALID_CONSTANT',
    pool: 'protocol',
  },
  { name: 'an answer to HEAD with a Content-Length', method: 'HEAD', wire: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n', node: ok('') },
  { name: '204 with a body', wire: 'HTTP/1.1 204 No Content\r\n\r\nhello', node: 'HPE_INVALID_CONSTANT', pool: 'protocol' },
  { name: '204 with a Content-Length and no body', wire: 'HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n', node: ok('', 1, 204) },
  { name: '304 with a body', wire: 'HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\nhello', node: 'HPE_INVALID_CONSTANT', pool: 'protocol' },
  { name: 'a clean close (FIN) with no answer', wire: '', then: 'end', node: 'ECONNRESET', pool: 'closed' },
  { name: 'a reset (RST) with no answer', wire: '', then: 'reset', node: 'ECONNRESET', pool: 'network' },
  { name: 'the server closes mid-status-line', wire: 'HTTP/1.', then: 'end', node: 'ECONNRESET', pool: 'closed' },
  { name: 'the server closes mid-head', wire: 'HTTP/1.1 200 OK\r\nContent-Le', then: 'end', node: 'ECONNRESET', pool: 'closed' },
  { name: 'a head that never ends', wire: 'HTTP/1.1 200 OK\r\n', node: 'timeout', pool: 'timeout' },
  // The request the caller passes: refused before anything is sent.
  { name: 'a CRLF in the method', method: 'GET\r\nX-Injected: 1', node: 'ERR_INVALID_HTTP_TOKEN', pool: 'invalid-request' },
  { name: 'a space in the method', method: 'GET /x', node: 'ERR_INVALID_HTTP_TOKEN', pool: 'invalid-request' },
  { name: 'a CRLF in the target', path: '/a\r\nX-Injected: 1', node: 'ERR_UNESCAPED_CHARACTERS', pool: 'invalid-request' },
  { name: 'a space in the target', path: '/a b', node: 'ERR_UNESCAPED_CHARACTERS', pool: 'invalid-request' },
  { name: 'a tab in the target', path: '/a\tb', node: 'ERR_UNESCAPED_CHARACTERS', pool: 'invalid-request' },
  { name: 'a CRLF in a header value', headers: { 'x-a': 'a\r\nX-Injected: 1' }, node: 'ERR_INVALID_CHAR', pool: 'invalid-request' },
  { name: 'a control byte in a header value', headers: { 'x-a': 'a\x01b' }, node: 'ERR_INVALID_CHAR', pool: 'invalid-request' },
  { name: 'a space in a header name', headers: { 'x a': 'b' }, node: 'ERR_INVALID_HTTP_TOKEN', pool: 'invalid-request' },
];

/** The raw server of one case: the first request it reads gets the case's bytes, every later one `next`. */
interface CaseServer {
  readonly port: number;
  connections(): number;
  /** Writes the case's idle bytes on the first connection and resolves once the client closed it. */
  idle(): Promise<void>;
}

const servers: Server[] = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const s of sockets) s.destroy();
  sockets.clear();
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

async function caseServer(c: Case): Promise<CaseServer> {
  let requests = 0;
  const accepted: Socket[] = [];
  const server = createServer((socket) => {
    accepted.push(socket);
    sockets.add(socket);
    socket.on('error', () => undefined);
    let buf = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      buf += d;
      for (let end = buf.indexOf('\r\n\r\n'); end >= 0; end = buf.indexOf('\r\n\r\n')) {
        buf = buf.slice(end + 4);
        if (requests++ > 0 || c.wire === undefined) socket.write(NEXT);
        else if (c.then === 'reset') socket.resetAndDestroy();
        else if (c.then === 'end') socket.end(Buffer.from(c.wire, 'latin1'));
        else socket.write(Buffer.from(c.wire, 'latin1'));
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => accepted.length,
    idle: () =>
      new Promise<void>((resolve) => {
        const first = accepted[0] as Socket;
        first.once('close', () => resolve());
        first.write(Buffer.from(c.idle ?? '', 'latin1'));
      }),
  };
}

type First = Outcome['first'];

/** node:http with a keep-alive agent of one socket, its header limit set to the pool's 64 KB. */
async function nodeOutcome(c: Case, server: CaseServer): Promise<Outcome> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const once = (method: string, path: string, headers: Record<string, string>, waitMs: number): Promise<First> =>
    new Promise<First>((resolve) => {
      let req: ReturnType<typeof nodeRequest>;
      const timer = setTimeout(() => {
        resolve({ refused: 'timeout' });
        req.destroy();
      }, waitMs);
      const settle = (first: First): void => {
        clearTimeout(timer);
        // The socket goes back to the agent after the answer's end: let it before the next request.
        setImmediate(() => resolve(first));
      };
      try {
        req = nodeRequest({ host: '127.0.0.1', port: server.port, method, path, headers, agent, maxHeaderSize: 65_536 }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => settle({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('latin1') }));
          res.on('error', (err: NodeJS.ErrnoException) => settle({ refused: err.code ?? err.message }));
        });
      } catch (err) {
        clearTimeout(timer);
        resolve({ refused: (err as NodeJS.ErrnoException).code ?? String(err) });
        return;
      }
      req.on('error', (err: NodeJS.ErrnoException) => settle({ refused: err.code ?? err.message }));
      req.end();
    });
  try {
    const first = await once(c.method ?? 'GET', c.path ?? '/', { ...c.headers }, waitFor(c));
    if (c.idle !== undefined) await server.idle();
    const next = await once('GET', '/next', {}, ANSWER_MS);
    expect(next).toEqual({ status: 200, body: 'next' });
    return { first, connections: server.connections() };
  } finally {
    agent.destroy();
  }
}

async function poolOutcome(c: Case, server: CaseServer): Promise<Outcome> {
  const pool = new Http1Pool({ protocol: 'http:', host: '127.0.0.1', port: server.port });
  try {
    const first = await pool.request({ method: c.method ?? 'GET', path: c.path ?? '/', headers: { ...c.headers }, timeoutMs: waitFor(c) }).then(
      (res): First => ({ status: res.status, body: res.body.toString('latin1') }),
      (err: unknown): First => {
        expect(err).toBeInstanceOf(Http1Error);
        // A refused answer's connection is closed, never kept for the next request.
        expect(pool.size).toBe(0);
        return { refused: (err as Http1Error).kind };
      },
    );
    if (c.idle !== undefined) await server.idle();
    const next = await pool.request({ method: 'GET', path: '/next', timeoutMs: ANSWER_MS });
    expect([next.status, next.body.toString()]).toEqual([200, 'next']);
    return { first, connections: server.connections() };
  } finally {
    pool.destroy();
  }
}

function waitFor(c: Case): number {
  return c.node === 'timeout' ? HANG_MS : ANSWER_MS;
}

/** The outcome a client must have: node's recorded result, the pool's kind where node:http fails. */
function expected(c: Case, client: 'node:http' | 'Http1Pool'): Outcome {
  // A request refused before it is sent opens no connection: the next request opens the only one.
  const refusedConnections = c.wire === undefined ? 1 : 2;
  if (client === 'node:http' || c.pool === undefined) {
    if (typeof c.node !== 'string') return { first: { status: c.node.status, body: c.node.body }, connections: c.node.connections };
    if (client === 'Http1Pool') throw new Error(`case ${c.name}: node:http fails, so the pool's kind must be given`);
    return { first: { refused: c.node }, connections: refusedConnections };
  }
  return { first: { refused: c.pool }, connections: refusedConnections };
}

describe('malformed answers', () => {
  it('has at least 52 cases with distinct names', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(52);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
    // Where the pool refuses what node:http answers, the case says why.
    for (const c of CASES) if (typeof c.node !== 'string' && c.pool !== undefined) expect(c.stricter, c.name).toBeTruthy();
  });

  describe.each(['node:http', 'Http1Pool'] as const)('%s', (client) => {
    for (const c of CASES) {
      it(c.name, async () => {
        const server = await caseServer(c);
        const outcome = client === 'node:http' ? await nodeOutcome(c, server) : await poolOutcome(c, server);
        expect(outcome).toEqual(expected(c, client));
      });
    }
  });
});
