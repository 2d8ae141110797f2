/**
 * Access log, metrics (with the requests in flight) and the `api_call` event (with the caller and
 * cloud-provider method headers): measured from here to the response's end, so the latency includes
 * injected faults, and recorded also for a client that went away before the answer. Routes are labelled by their pattern, not the raw path.
 */
import type { RequestHandler, Response } from 'express';
import type { Caller, Sim } from '../context.ts';

/** The URL as logged: a `token` query parameter (EventSource auth) never reaches logs or events. */
const loggedUrl = (url: string): string => url.replace(/([?&]token=)[^&]*/g, '$1[redacted]');

/**
 * Calls `fn` once the handler has ended the response. A client that went away mid-request (a killed
 * CCM) gets no `finish`, yet its call still ran and changed the cloud; `prefinish` still marks the end.
 */
function onEnded(res: Response, fn: () => void): void {
  let done = false;
  const once = (): void => {
    if (done) return;
    done = true;
    fn();
  };
  res.once('finish', once);
  res.once('close', () => (res.writableEnded ? once() : res.once('prefinish', once)));
}

export function accessLog(sim: Sim): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    const stream = req.path.startsWith('/_sim/events');
    if (!stream) sim.metrics.inFlight.inc();
    onEnded(res, () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const route = req.route === undefined ? 'unmatched' : String((req.route as { path: string }).path);
      const status = res.statusCode;
      sim.metrics.requests.inc({ method: req.method, route, status: String(status) });
      sim.metrics.requestDuration.observe({ method: req.method, route }, seconds);
      const caller = res.locals.caller as Caller | undefined;
      const fields = {
        method: req.method,
        path: loggedUrl(req.originalUrl),
        status,
        ms: Math.round(seconds * 1e4) / 10,
        requestId: res.locals.requestId as string,
      };
      if (sim.config.accessLog) sim.logger.info(fields, 'request');
      if (stream) return;
      sim.metrics.inFlight.dec();
      sim.events.publish({
        type: 'api_call',
        method: req.method,
        path: fields.path,
        status,
        latency_ms: fields.ms,
        project_id: caller?.projectId ?? null,
        request_id: fields.requestId,
        caller: req.get('x-simcloud-caller') ?? null,
        upstream_method: req.get('x-simcloud-method') ?? null,
        error_code: (res.locals.errorCode as string | undefined) ?? null,
      });
    });
    next();
  };
}
