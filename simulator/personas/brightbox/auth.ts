/**
 * Brightbox persona: OAuth2 client credentials, as Brightbox's API grants them at `token/` and gobrightbox's
 * clientcredentials (golang.org/x/oauth2) asks for them, HTTP Basic first.
 *
 * Credentials: a simcloud project token is an API client's secret, and its client id is `cli-` and five base-36
 * digits of the SHA-256 of `brightbox-client:<secret>` (clientIdOf), so a sandbox's credentials come with its token,
 * nothing is stored for them, and deleting the token revokes the client.
 *
 * Access tokens: `<token id>.<expiry>.<HMAC>` with a key derived from the project token's secret, expiring after
 * TOKEN_LIFETIME_S seconds of the wall clock, not simcloud's: the client (golang.org/x/oauth2) computes the expiry
 * on its own clock and does not recover from a 401, so a `simcloud time advance` must not end them. They are
 * checked, not stored, so they survive a restart; the project token itself is refused as a bearer, as Brightbox
 * takes only its own tokens.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Caller, Sim } from '../../server/context.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import type { PersonaAuth } from '../../server/persona.ts';
import { findRecord } from '../../server/resources/common.ts';
import { clientCredentials } from '../oauth2.ts';
import { TOKEN_PATH } from './common.ts';
import { oauthError } from './errors.ts';

export const TOKEN_LIFETIME_S = 7200;

/** The API client id that goes with a client secret (a project token). */
export const clientIdOf = (secret: string): string =>
  `cli-${BigInt(`0x${createHash('sha256').update(`brightbox-client:${secret}`).digest('hex').slice(0, 12)}`)
    .toString(36)
    .slice(0, 5)
    .padStart(5, '0')}`;

const mac = (secret: string, data: string): string =>
  createHmac('sha256', createHmac('sha256', secret).update('brightbox-access-token').digest()).update(data).digest('base64url');

const issue = (tokenId: string, secret: string, exp: number): string => `${tokenId}.${exp}.${mac(secret, `${tokenId}.${exp}`)}`;

/** The caller behind an access token this persona issued, if it is genuine and not expired. */
function bearerCaller(sim: Sim, bearer: string): Caller | undefined {
  const m = /^([a-z]+-\d+)\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(bearer);
  if (m === null) return undefined;
  const token = findRecord(sim, 'tokens', m[1]!);
  if (token === undefined) return undefined;
  const want = Buffer.from(mac(token.secret, `${m[1]}.${m[2]}`));
  const got = Buffer.from(m[3]!);
  if (want.length !== got.length || !timingSafeEqual(want, got) || Number(m[2]) * 1000 <= sim.clock.wallNow()) return undefined;
  return { projectId: token.project_id, tokenId: token.id };
}

const isTokenPath = (path: string): boolean => path === TOKEN_PATH || path === `${TOKEN_PATH}/`;

export const brightboxAuth: PersonaAuth = {
  caller(sim, req, projectToken) {
    if (!isTokenPath(req.path)) return bearerCaller(sim, /^Bearer\s+(\S+)$/i.exec(req.authorization ?? '')?.[1] ?? '');
    const creds = clientCredentials(req);
    const caller = creds === undefined ? undefined : projectToken(creds.secret);
    if (creds === undefined || caller === undefined || clientIdOf(creds.secret) !== creds.id)
      throw oauthError('invalid_client', 'The client credentials are invalid');
    return caller;
  },
};

const TokenForm = z.object({ grant_type: z.unknown(), scope: z.unknown(), client_id: z.unknown(), client_secret: z.unknown() }).partial();

export const TokenResponse = z.strictObject({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int(), scope: z.string() });

export const authRoutes: RouteDef[] = [
  defineRoute({
    method: 'post',
    path: TOKEN_PATH,
    operation: 'brightbox.auth.token',
    summary: "An access token for an API client's credentials",
    body: TokenForm,
    response: TokenResponse,
    handle: (sim, { caller, body }) => {
      if (body.grant_type !== 'client_credentials') throw oauthError('unsupported_grant_type', 'The grant type is not supported');
      if (body.scope !== undefined && (typeof body.scope !== 'string' || body.scope.length > 256)) throw oauthError('invalid_scope', 'The scope is invalid');
      const token = findRecord(sim, 'tokens', caller.tokenId);
      if (token === undefined) throw oauthError('invalid_client', 'The client credentials are invalid');
      const exp = Math.floor(sim.clock.wallNow() / 1000) + TOKEN_LIFETIME_S;
      const scope = typeof body.scope === 'string' && body.scope !== '' ? body.scope : 'infrastructure';
      return { access_token: issue(token.id, token.secret, exp), token_type: 'Bearer' as const, expires_in: TOKEN_LIFETIME_S, scope };
    },
  }),
];
