import { describe, expect, it } from 'vitest';
import { readSse, type SseMessage } from './sse.ts';

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  for (const p of parts) yield encoder.encode(p);
}

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
    expect(await all(chunks(stream))).toEqual([{ id: '1', data: 'one' }, { id: '2', data: 'two' }]);
  });

  it('joins a message split across chunks, a CRLF and a multi-byte character included', async () => {
    expect(await all(chunks('data: h\u00e9', 'llo\r', '\n\r\n'))).toEqual([{ data: 'h\u00e9llo' }]);
    const bytes = new TextEncoder().encode('data: \u00e9\n\n');
    async function* split(): AsyncGenerator<Uint8Array> {
      yield bytes.slice(0, 7);
      yield bytes.slice(7);
    }
    expect(await all(split())).toEqual([{ data: '\u00e9' }]);
  });
});
