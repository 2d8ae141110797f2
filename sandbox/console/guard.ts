// The console's request guard. The console drives the whole sandbox (power servers off, reset, add
// faults), and any page in the developer's browser can send requests to a loopback port, so:
//   - every request names an allowed Host (DNS rebinding: a page on attacker.example re-pointed at
//     127.0.0.1 sends Host: attacker.example:PORT);
//   - every state-changing request (any method but GET/HEAD) carries the per-sandbox console token in
//     X-Console-Token (the page gets it inside index.html, which another origin cannot read), an allowed
//     Origin or none (a non-browser client), and a JSON body: a cross-site form or text/plain fetch, the
//     "simple" requests that skip CORS preflight, is refused with 415 before it could act.
// Nothing here answers CORS preflights with permission, so a preflighted cross-origin fetch fails too.
import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { allowedHostsOf, hostRefusal, originAllowed, tokenMatches } from '../../simulator/api/host-check.ts';

export const TOKEN_HEADER = 'x-console-token';

export function newConsoleToken(): string {
  return randomBytes(32).toString('base64url');
}

interface Refusal {
  readonly error: string;
  readonly field: string;
  readonly message: string;
  readonly allowed_hosts?: readonly string[];
}

function refuse(res: Response, status: number, body: Refusal): void {
  res.status(status).set('cache-control', 'no-store').json(body);
}

export interface GuardOptions {
  readonly token: string;
  readonly allowedHosts: readonly string[];
}

/** Host check for every request. */
export function consoleHostGuard(o: GuardOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const r = hostRefusal(req, o.allowedHosts);
    if (r === undefined) return next();
    refuse(res, 403, { error: 'forbidden_host', field: 'host', message: r.message, allowed_hosts: r.allowed });
  };
}

const SAFE = new Set(['GET', 'HEAD']);

/** Origin, token and JSON for every state-changing request. */
export function consoleWriteGuard(o: GuardOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (SAFE.has(req.method)) return next();
    const origin = req.get('origin');
    if (origin !== undefined && !originAllowed(origin, allowedHostsOf(req, o.allowedHosts), 'http')) {
      const message = `Origin "${origin.slice(0, 100)}" may not change this sandbox; open the console at its own address`;
      return refuse(res, 403, { error: 'forbidden_origin', field: 'origin', message });
    }
    if (!tokenMatches(req.get(TOKEN_HEADER), o.token)) {
      const message = `a state change needs the console token in ${TOKEN_HEADER} (the page served by the console carries it; scripts read it from state.json)`;
      return refuse(res, 401, { error: 'unauthorized', field: TOKEN_HEADER, message });
    }
    if (req.method !== 'OPTIONS' && !req.is('application/json')) {
      return refuse(res, 415, { error: 'unsupported_media_type', field: 'content-type', message: 'state changes take Content-Type: application/json' });
    }
    next();
  };
}
