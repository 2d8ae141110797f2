/**
 * Reading a Server-Sent Events stream (the `text/event-stream` body of a fetch): messages are blocks ended
 * by a blank line; `data:` lines join with newlines, `id:` and `event:` are kept; comments (`:`) and blocks
 * without data are skipped. Validation of `data` is the caller's (each stream has its schema).
 */
export interface SseMessage {
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
}

/** One message block (without its blank line), or undefined when it carries no data. */
export function parseSseMessage(block: string): SseMessage | undefined {
  const data: string[] = [];
  let id: string | undefined;
  let event: string | undefined;
  for (const line of block.split('\n')) {
    if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    else if (line.startsWith('id:')) id = line.slice(3).trim();
    else if (line.startsWith('event:')) event = line.slice(6).trim();
  }
  if (data.length === 0) return undefined;
  return { ...(id === undefined ? {} : { id }), ...(event === undefined ? {} : { event }), data: data.join('\n') };
}

/** The messages of a stream body as they arrive; ends with the stream (or throws when it fails). */
export async function* readSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const message = parseSseMessage(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (message) yield message;
    }
  }
}
