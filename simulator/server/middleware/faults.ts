/** Request-level fault injection: latency, injected errors and intermittent not_found for labelled servers. */
import type { Request, RequestHandler } from 'express';
import type { Caller, Sim } from '../context.ts';
import { SimcloudError, notFound } from '../errors.ts';
import { resourceTypeOfPath, type RequestFacts } from '../faults.ts';
import type { CollectionName } from '../store/state.ts';

const ADDRESSED = /^\/v1\/([a-z_]+)\/([^/]+)/;

/** Rules match the path as sent; resource types, labels and ids come from the canonical /v1 path. */
function facts(sim: Sim, req: Request, caller: Caller | undefined): RequestFacts {
  const canonical = sim.personas.canonicalPath(req.path);
  return {
    method: req.method,
    path: req.path,
    resourceType: resourceTypeOfPath(canonical),
    tokenId: caller?.tokenId,
    labels: () => {
      const m = ADDRESSED.exec(canonical);
      const coll = sim.store.state[m?.[1] as CollectionName] as Record<string, { labels?: Record<string, string>; project_id?: string }> | undefined;
      const doc = m === null || coll === undefined ? undefined : coll[m[2]!];
      return doc !== undefined && doc.project_id === caller?.projectId ? doc.labels : undefined;
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function injectLatency(sim: Sim, f: RequestFacts): Promise<void> {
  for (const rule of sim.faults.fire('latency', f)) {
    if (rule.kind !== 'latency') continue;
    sim.metrics.faults.inc({ kind: 'latency' });
    await sleep(rule.latency_ms + Math.random() * (rule.jitter_ms ?? 0));
  }
}

function injectError(sim: Sim, f: RequestFacts): void {
  const error = sim.faults.fire('error', f, 1)[0];
  if (error?.kind !== 'error') return;
  sim.metrics.faults.inc({ kind: 'error' });
  const headers: Record<string, string> = error.retry_after_seconds === undefined ? {} : { 'retry-after': String(error.retry_after_seconds) };
  throw new SimcloudError(error.code, error.message ?? `injected ${error.code}`, { status: error.status, headers });
}

/** GET /v1/servers/{id} (or a persona's path to it) of a server matching an intermittent_not_found rule. */
function injectNotFound(sim: Sim, req: Request, f: RequestFacts): void {
  const m = /^\/v1\/servers\/([^/]+)$/.exec(sim.personas.canonicalPath(req.path));
  if (req.method !== 'GET' || m === null) return;
  if (sim.faults.fire('intermittent_not_found', { ...f, resourceType: 'server' }, 1).length === 0) return;
  sim.metrics.faults.inc({ kind: 'intermittent_not_found' });
  throw notFound('server', m[1]!);
}

export function faults(sim: Sim): RequestHandler {
  return async (req, res, next) => {
    if (sim.faults.size === 0 || !sim.personas.isApiPath(req.path)) return next();
    const f = facts(sim, req, res.locals.caller as Caller | undefined);
    await injectLatency(sim, f);
    injectError(sim, f);
    injectNotFound(sim, req, f);
    next();
  };
}
