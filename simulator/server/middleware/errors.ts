/**
 * The last middleware: renders every error in the envelope of the API that was called (simcloud's, or the
 * persona's serving the path). Anything but a SimcloudError is a bug: logged, 500.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Sim } from '../context.ts';
import { SimcloudError, notFound } from '../errors.ts';
import { PlantedFault, isPlanted } from '../planted.ts';

/** A client error the framework raised before any route ran: an unreadable body, or a path whose %-escapes do not decode. */
function clientError(err: unknown): SimcloudError | undefined {
  const e = err as { type?: string; status?: number; message?: string };
  if (err instanceof URIError && e.status === 400 && !isPlanted(PlantedFault.uriDecode)) {
    const message = 'the path has a malformed %-escape';
    return new SimcloudError('invalid_input', message, { fields: [{ name: '(path)', messages: [message] }] });
  }
  if (typeof e.type !== 'string' || typeof e.status !== 'number' || e.status >= 500) return undefined;
  const message = e.type === 'entity.too.large' ? 'request body too large' : `unreadable request body: ${e.message ?? e.type}`;
  return new SimcloudError('invalid_input', message, { fields: [{ name: '(body)', messages: [message] }] });
}

export function notFoundRoute(): RequestHandler {
  return (req) => {
    throw Object.assign(notFound('route', `${req.method} ${req.path}`), { route: true });
  };
}

export function errorRenderer(sim: Sim): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    let e = err instanceof SimcloudError ? err : clientError(err);
    if (e === undefined) {
      sim.logger.error({ err, requestId: res.locals.requestId as string }, 'unhandled error');
      e = new SimcloudError('server_error', 'internal error');
    }
    res.locals.errorCode = e.code;
    const requestId = res.locals.requestId as string | undefined;
    const persona = sim.personas.of(req.path);
    if (persona !== undefined) {
      // Exactly application/json, no charset: linodego compares the error's Content-Type with its Accept header.
      // (res.setHeader, since express's res.set and res.json append a charset.)
      res.status(persona.errors.status(e)).set(e.headers).setHeader('content-type', 'application/json');
      return void res.end(JSON.stringify(persona.errors.body(e, requestId)));
    }
    const details = e.fields === undefined ? undefined : { fields: e.fields };
    res
      .status(e.status)
      .set(e.headers)
      .json({ error: { code: e.code, message: e.message, ...(details ? { details } : {}), request_id: requestId } });
  };
}
