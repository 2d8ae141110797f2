/**
 * Per-token request budgets: the configured default (fixed window) and rate_limit fault rules. When
 * a budget applies, responses carry RateLimit-Limit/Remaining/Reset (named and with Reset written as the
 * persona serving the path does: Linode's X-RateLimit-*); over budget, 429 with Retry-After.
 */
import type { RequestHandler } from 'express';
import type { Caller, Sim } from '../context.ts';
import { rateLimited } from '../errors.ts';
import { resourceTypeOfPath, type Budget } from '../faults.ts';

function tighter(a: Budget | null, b: Budget | null): Budget | null {
  if (a === null) return b;
  if (b === null) return a;
  return b.remaining < a.remaining ? b : a;
}

/** Seconds until the reset, or the Unix time of the reset for personas that say it so (Hetzner's). */
function resetHeader(sim: Sim, path: string, seconds: number): string {
  return sim.personas.of(path)?.rateLimitReset === 'epoch' ? String(Math.ceil(sim.clock.now() / 1000) + seconds) : String(seconds);
}

export function rateLimit(sim: Sim): RequestHandler {
  return (req, res, next) => {
    const caller = res.locals.caller as Caller | undefined;
    if (caller === undefined) return next();
    const cfg = sim.config.rateLimit;
    const base = cfg === null ? null : sim.faults.consumeWindow(`config:${caller.tokenId}`, cfg.limit, cfg.windowSeconds);
    const facts = {
      method: req.method,
      path: req.path,
      resourceType: resourceTypeOfPath(sim.personas.canonicalPath(req.path)),
      tokenId: caller.tokenId,
      labels: () => undefined,
    };
    const budget = tighter(base, sim.faults.size === 0 ? null : sim.faults.consumeBudget(facts));
    if (budget === null) return next();
    const name = (sim.personas.of(req.path)?.rateLimitHeaders ?? 'RateLimit').toLowerCase();
    const headers = {
      [`${name}-limit`]: String(budget.limit),
      [`${name}-remaining`]: String(Math.max(0, budget.remaining)),
      [`${name}-reset`]: resetHeader(sim, req.path, budget.resetSeconds),
    };
    if (budget.remaining < 0) {
      sim.metrics.faults.inc({ kind: 'rate_limit' });
      throw rateLimited(budget.resetSeconds, headers);
    }
    res.set(headers);
    next();
  };
}
