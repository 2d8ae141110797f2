/**
 * `GET /_sim/events`: Server-Sent Events of every API call and resource change, with Last-Event-ID replay.
 * `?types=` keeps some kinds of event and `?resources=` some resource types of `resource_change`: a
 * follower that reads server changes only need not be sent (and parse) a network with every route each
 * time one route is added.
 */
import type { Request, Response } from 'express';
import { ResourceType } from '../../api/schema/common.ts';
import { SimEventType, type SimEvent } from '../../api/schema/events.ts';
import type { Sim } from '../context.ts';
import { invalidField } from '../errors.ts';

const HEARTBEAT_MS = 15_000;

/**
 * The bus hands each event to every follower in turn, so the last frame is the one to reuse: an event is
 * encoded once however many follow, and no encoding outlives its turn (the replay buffer keeps events,
 * which share their records with the store, not their far larger JSON).
 */
let last: { event: SimEvent; text: string } | undefined;
function frame(e: SimEvent): string {
  if (last?.event !== e) last = { event: e, text: `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n` };
  return last.text;
}

/** A comma-separated subset of `allowed` from the query (null: absent, keep all); anything else is a 400 naming the parameter. */
function subset(req: Request, name: string, allowed: Record<string, string>): Set<string> | null {
  const raw = req.query[name];
  if (raw === undefined) return null;
  const known = new Set(Object.values(allowed));
  // A repeated parameter (?types=a&types=b) arrives as an array: one comma-separated value is the form.
  const values = typeof raw === 'string' ? raw.split(',') : [];
  if (values.length === 0 || values.some((v) => !known.has(v))) {
    throw invalidField(name, `expected one comma-separated list of ${[...known].join(', ')}; got ${JSON.stringify(raw)}`);
  }
  return new Set(values);
}

export function streamEvents(sim: Sim, req: Request, res: Response): void {
  const types = subset(req, 'types', SimEventType);
  const resources = subset(req, 'resources', ResourceType);
  const wanted = (e: SimEvent): boolean =>
    (types === null || types.has(e.type)) && (resources === null || e.type !== 'resource_change' || resources.has(e.resource_type));
  res.status(200).set({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  const send = (e: SimEvent): void => {
    if (wanted(e)) res.write(frame(e));
  };
  const last = Number(req.get('last-event-id') ?? req.query.since ?? NaN);
  if (Number.isFinite(last)) for (const e of sim.events.since(last)) send(e);
  res.write(': connected\n\n');
  const unsubscribe = sim.events.subscribe(send);
  const beat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
  beat.unref();
  req.on('close', () => {
    clearInterval(beat);
    unsubscribe();
  });
}
