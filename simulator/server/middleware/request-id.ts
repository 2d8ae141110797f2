/**
 * Request id: the client's `X-Request-Id` when sane, else a new one; echoed on the response. The rest of the
 * request runs inside it (`currentRequestId`), so a store commit made on a request's behalf names that request
 * in its `resource_change` events, however many requests are in flight.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const SANE = /^[A-Za-z0-9._:-]{1,128}$/;

const current = new AsyncLocalStorage<string>();

/** The id of the request whose handling (or work it scheduled on simcloud's clock) is running now; undefined outside any. */
export function currentRequestId(): string | undefined {
  return current.getStore();
}

export function requestId(): RequestHandler {
  return (req, res, next) => {
    const given = req.get('x-request-id');
    const id = given !== undefined && SANE.test(given) ? given : `req-${randomUUID()}`;
    res.locals.requestId = id;
    res.setHeader('x-request-id', id);
    current.run(id, next);
  };
}
