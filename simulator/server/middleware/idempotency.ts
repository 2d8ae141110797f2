/**
 * `Idempotency-Key` for POST and PATCH under /v1: the first request with a key is carried out and its answer
 * kept for an hour of simulated time; a repeat with the same key and the same request (method, path, body)
 * gets that answer again (`Idempotent-Replayed: true`) and changes nothing, even while the first is still
 * running (it waits for it). The same key with another request is invalid_input naming the header. Keys are
 * per project and live in memory only. Mounted after the fault middleware: an injected error or 429 never
 * reached the resource, so it is not kept and a retry is carried out; answers that say nothing was done
 * (423, 429, 503) are not kept either.
 */
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Caller, Sim } from '../context.ts';
import { invalidField } from '../errors.ts';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const WINDOW_MS = 60 * 60_000;
const KEY = /^[\x21-\x7e]{1,255}$/;
const KEYED_METHODS: ReadonlySet<string> = new Set(['POST', 'PATCH']);
const NOT_DONE: ReadonlySet<number> = new Set([423, 429, 503]);

interface Answer {
  readonly status: number;
  /** undefined = no body (204). */
  readonly body: unknown;
}

interface Entry {
  readonly fingerprint: string;
  readonly expiresAt: number;
  /** The first request's answer; undefined when it is not kept (nothing was done). */
  readonly answer: Promise<Answer | undefined>;
}

function fingerprintOf(req: Request): string {
  return createHash('sha256')
    .update(`${req.method} ${req.path}\n${JSON.stringify(req.body ?? null)}`)
    .digest('hex');
}

/** Records the answer when the response is ended (even if the client has gone): `res.json` body, `res.end` status. */
function capture(res: Response, settle: (answer: Answer) => void): void {
  let body: unknown;
  const json = res.json.bind(res);
  res.json = (value: unknown) => {
    body = value;
    return json(value);
  };
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((...args: unknown[]) => {
    settle({ status: res.statusCode, body });
    return end(...args);
  }) as Response['end'];
}

async function replay(sim: Sim, entry: Entry, res: Response): Promise<boolean> {
  const answer = await entry.answer;
  if (answer === undefined) return false;
  sim.metrics.idempotentReplays.inc();
  res.status(answer.status).set('idempotent-replayed', 'true');
  if (answer.body === undefined) res.end();
  else res.json(answer.body);
  return true;
}

export function idempotency(sim: Sim): RequestHandler {
  const entries = new Map<string, Entry>();
  const prune = (now: number): void => {
    // Insertion order is expiry order (the window is fixed and simulated time only moves forward).
    for (const [id, entry] of entries) {
      if (entry.expiresAt > now) return;
      entries.delete(id);
    }
  };
  const carryOut = (id: string, fingerprint: string, res: Response): void => {
    let settle!: (answer: Answer | undefined) => void;
    const answer = new Promise<Answer | undefined>((resolve) => (settle = resolve));
    entries.set(id, { fingerprint, expiresAt: sim.clock.now() + WINDOW_MS, answer });
    capture(res, (a) => {
      if (NOT_DONE.has(a.status)) entries.delete(id);
      settle(NOT_DONE.has(a.status) ? undefined : a);
    });
  };
  return async (req, res, next) => {
    const key = req.get(IDEMPOTENCY_HEADER);
    if (key === undefined || !KEYED_METHODS.has(req.method) || !req.path.startsWith('/v1/')) return next();
    if (!KEY.test(key)) throw invalidField(IDEMPOTENCY_HEADER, 'must be 1 to 255 visible ASCII characters');
    prune(sim.clock.now());
    const id = `${(res.locals.caller as Caller).projectId} ${key}`;
    const fingerprint = fingerprintOf(req);
    const earlier = entries.get(id);
    if (earlier && earlier.fingerprint !== fingerprint) {
      throw invalidField(IDEMPOTENCY_HEADER, 'was already used with another request (method, path or body); send a new key');
    }
    if (earlier && (await replay(sim, earlier, res))) return;
    carryOut(id, fingerprint, res);
    next();
  };
}
