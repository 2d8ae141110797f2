/** `GET /_sim/events`: Server-Sent Events of every API call and resource change, with Last-Event-ID replay. */
import type { Request, Response } from 'express';
import type { SimEvent } from '../../api/schema/events.ts';
import type { Sim } from '../context.ts';

const HEARTBEAT_MS = 15_000;

export function streamEvents(sim: Sim, req: Request, res: Response): void {
  const types = typeof req.query.types === 'string' ? new Set(req.query.types.split(',')) : null;
  res.status(200).set({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  const send = (e: SimEvent): void => {
    if (types === null || types.has(e.type)) res.write(`id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
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
