// Follows simcloud's `/_sim/events` Server-Sent Events stream (API calls, resource changes, target health),
// validating each event with the wire schema. Reconnects with backoff and resumes from the last seen
// event id (Last-Event-ID), so a simcloud restart or a dropped connection loses nothing in the buffer.
import { setTimeout as sleep } from 'node:timers/promises';
import { readSse, type SseMessage } from '../../lib/sse.ts';
import { parseChecked } from '../../lib/zod-guard.ts';
import type { ResourceType } from '../../simulator/api/schema/common.ts';
import { SimEvent, type SimEventType } from '../../simulator/api/schema/events.ts';

export interface EventStreamOptions {
  readonly endpoint: string;
  readonly adminToken: string;
  readonly onEvent: (event: SimEvent) => void;
  readonly signal: AbortSignal;
  readonly onError?: (err: unknown) => void;
  /** Only these kinds of event, and of `resource_change` only these resource types (default: everything). */
  readonly only?: { readonly types?: readonly SimEventType[]; readonly resources?: readonly ResourceType[] };
}

/** Runs until the signal aborts. */
export async function followSimEvents(options: EventStreamOptions): Promise<void> {
  let lastId: string | undefined;
  let backoffMs = 200;
  while (!options.signal.aborted) {
    try {
      await readStream(options, lastId, (id) => {
        lastId = id;
        backoffMs = 200;
      });
    } catch (err) {
      if (options.signal.aborted) return;
      options.onError?.(err);
    }
    await sleep(backoffMs, undefined, { signal: options.signal }).catch(() => undefined);
    backoffMs = Math.min(backoffMs * 2, 5000);
  }
}

async function readStream(options: EventStreamOptions, lastId: string | undefined, seen: (id: string) => void): Promise<void> {
  const headers: Record<string, string> = { authorization: `Bearer ${options.adminToken}`, accept: 'text/event-stream' };
  if (lastId) headers['last-event-id'] = lastId;
  const query = new URLSearchParams();
  if (options.only?.types) query.set('types', options.only.types.join(','));
  if (options.only?.resources) query.set('resources', options.only.resources.join(','));
  const url = `${options.endpoint}/_sim/events${query.size > 0 ? `?${query.toString()}` : ''}`;
  const res = await fetch(url, { headers, signal: options.signal });
  if (!res.ok || !res.body) throw new Error(`GET /_sim/events: HTTP ${res.status}`);
  for await (const message of readSse(res.body)) handleMessage(message, options, seen);
}

function handleMessage(message: SseMessage, options: EventStreamOptions, seen: (id: string) => void): void {
  if (message.id) seen(message.id);
  const parsed = parseChecked(SimEvent, JSON.parse(message.data));
  if (parsed.success) options.onEvent(parsed.data);
  else options.onError?.(new Error(`unexpected event on /_sim/events: ${parsed.error.message}`));
}
