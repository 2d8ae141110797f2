import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readSse, type SseMessage } from './sse.ts';

/** A body arriving in these byte chunks. */
const bytes = (...parts: Uint8Array[]): AsyncIterable<Uint8Array> => Readable.from(parts);
const chunks = (...parts: string[]): AsyncIterable<Uint8Array> => bytes(...parts.map((p) => new TextEncoder().encode(p)));

async function all(body: AsyncIterable<Uint8Array>): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const m of readSse(body)) out.push(m);
  return out;
}

describe('readSse', () => {
  it('reads id, event and multi-line data, and skips comments and data-less blocks', async () => {
    expect(await all(chunks(': keep-alive\n\nid: 42\nevent: change\ndata: {"a":\ndata: 1}\n\nid: 43\n\n'))).toEqual([
      { id: '42', event: 'change', data: '{"a":\n1}' },
    ]);
  });

  it.each([
    ['CRLF', '\r\n'],
    ['CR', '\r'],
    ['LF', '\n'],
  ])('yields every message of a stream whose lines end in %s', async (_name, eol) => {
    const stream = `id: 1${eol}data: one${eol}${eol}id: 2${eol}data: two${eol}${eol}`;
    expect(await all(chunks(stream))).toEqual([
      { id: '1', data: 'one' },
      { id: '2', data: 'two' },
    ]);
  });

  it('joins a message split across chunks, a CRLF and a multi-byte character included', async () => {
    expect(await all(chunks('data: h\u00e9', 'llo\r', '\n\r\n'))).toEqual([{ data: 'h\u00e9llo' }]);
    const encoded = new TextEncoder().encode('data: \u00e9\n\n');
    expect(await all(bytes(encoded.slice(0, 7), encoded.slice(7)))).toEqual([{ data: '\u00e9' }]);
  });
});
