/**
 * Reading a Server-Sent Events stream (the `text/event-stream` body of a fetch) with eventsource-parser,
 * which follows the WHATWG grammar: lines end in CR, LF or CRLF, `data:` lines join with newlines, comments
 * and unknown fields are skipped. A message with no data is not yielded. Validation of `data` is the
 * caller's (each stream has its schema).
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface SseMessage {
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
}

const toMessage = (m: EventSourceMessage): SseMessage | undefined =>
  m.data === '' ? undefined : { ...(m.id === undefined ? {} : { id: m.id }), ...(m.event === undefined ? {} : { event: m.event }), data: m.data };

/** The messages of a stream body as they arrive; ends with the stream (or throws when it fails). */
export async function* readSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  const ready: SseMessage[] = [];
  const parser = createParser({
    onEvent: (m) => {
      const message = toMessage(m);
      if (message) ready.push(message);
    },
  });
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    yield* ready.splice(0);
  }
}
