/**
 * Bearer-token auth. `/v1/*` and every persona's paths (e.g. `/hcloud/v1/*`, as the registry says) take a
 * project token (the caller's project scopes everything);
 * a persona with its own `auth` (OAuth2 tokens it issues) resolves the caller of its paths itself;
 * `/_sim/*` takes the admin token (also as `?token=` for EventSource); a project token there is
 * forbidden. `/metrics`, `/openapi.json` and `/_sim/health` are open.
 */
import type { Request, RequestHandler } from 'express';
import { tokenMatches } from '../../api/host-check.ts';
import type { Caller, Sim } from '../context.ts';
import { forbidden, unauthorized } from '../errors.ts';
import type { TokenRec } from '../store/state.ts';

const OPEN = new Set(['/metrics', '/openapi.json', '/_sim/health']);

function bearer(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  return m?.[1];
}

export class TokenIndex {
  #bySecret = new Map<string, TokenRec>();

  constructor(sim: Pick<Sim, 'store'>) {
    const rebuild = (): void => {
      this.#bySecret = new Map(sim.store.all('tokens').map((t) => [t.secret, t]));
    };
    rebuild();
    sim.store.onChange((applied) => {
      if (applied.length === 0 || applied.some((c) => c.coll === 'tokens' || c.coll === 'projects')) rebuild();
    });
  }

  find(secret: string): TokenRec | undefined {
    return this.#bySecret.get(secret);
  }
}

const callerOf = (t: TokenRec | undefined): Caller | undefined => (t === undefined ? undefined : { projectId: t.project_id, tokenId: t.id });

function checkAdmin(sim: Sim, tokens: TokenIndex, given: string | undefined): void {
  if (tokenMatches(given, sim.config.adminToken)) return;
  throw given !== undefined && tokens.find(given) !== undefined ? forbidden('the admin token is required for /_sim') : unauthorized();
}

/** The project token's caller, or the one a persona with its own auth resolves. */
function apiCaller(sim: Sim, tokens: TokenIndex, req: Request, given: string | undefined): Caller | undefined {
  const own = sim.personas.of(req.path)?.auth;
  if (own === undefined) return callerOf(given === undefined ? undefined : tokens.find(given));
  return own.caller(sim, { path: req.path, authorization: req.get('authorization'), body: req.body as unknown }, (s) => callerOf(tokens.find(s)));
}

export function auth(sim: Sim, tokens: TokenIndex): RequestHandler {
  return (req, res, next) => {
    if (OPEN.has(req.path)) return next();
    const internal = req.path.startsWith('/_sim/');
    const queryToken = internal && typeof req.query.token === 'string' ? req.query.token : undefined;
    const given = bearer(req.get('authorization')) ?? queryToken;
    if (internal) return (checkAdmin(sim, tokens, given), next());
    if (!sim.personas.isApiPath(req.path)) return next();
    const caller = apiCaller(sim, tokens, req, given);
    if (caller === undefined || sim.store.state.projects[caller.projectId] === undefined) throw unauthorized();
    res.locals.caller = caller;
    next();
  };
}
