/** Request id: the client's `X-Request-Id` when sane, else a new one; echoed on the response. */
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const SANE = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(): RequestHandler {
  return (req, res, next) => {
    const given = req.get('x-request-id');
    const id = given !== undefined && SANE.test(given) ? given : `req-${randomUUID()}`;
    res.locals.requestId = id;
    res.setHeader('x-request-id', id);
    next();
  };
}
