/**
 * Bearer-token auth. `/v1/*` and every persona's paths (e.g. `/hcloud/v1/*`, as the registry says) take a
 * project token (the caller's project scopes everything);
 * `/_sim/*` takes the admin token (also as `?token=` for EventSource); a project token there is
 * forbidden. `/metrics`, `/openapi.json` and `/_sim/health` are open.
 */
import type { RequestHandler } from 'express';
import { tokenMatches } from '../../api/host-check.ts';
import type { Sim } from '../context.ts';
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

function checkAdmin(sim: Sim, tokens: TokenIndex, given: string | undefined): void {
  if (tokenMatches(given, sim.config.adminToken)) return;
  throw given !== undefined && tokens.find(given) !== undefined ? forbidden('the admin token is required for /_sim') : unauthorized();
}

export function auth(sim: Sim, tokens: TokenIndex): RequestHandler {
  return (req, res, next) => {
    if (OPEN.has(req.path)) return next();
    const internal = req.path.startsWith('/_sim/');
    const queryToken = internal && typeof req.query.token === 'string' ? req.query.token : undefined;
    const given = bearer(req.get('authorization')) ?? queryToken;
    if (internal) return (checkAdmin(sim, tokens, given), next());
    if (!sim.personas.isApiPath(req.path)) return next();
    const token = given === undefined ? undefined : tokens.find(given);
    if (token === undefined || sim.store.state.projects[token.project_id] === undefined) throw unauthorized();
    res.locals.caller = { projectId: token.project_id, tokenId: token.id };
    next();
  };
}
