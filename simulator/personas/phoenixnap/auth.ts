/**
 * phoenixNAP persona: OAuth2 client credentials, as phoenixNAP's identity service (a Keycloak realm) grants
 * them and golang.org/x/oauth2's clientcredentials asks for them.
 *
 * Credentials: a simcloud project token is a client secret, and its client id is `simcloud-` and the first 20
 * hex digits of the SHA-256 of `phoenixnap-client:<secret>` (clientIdOf), so a sandbox's credentials come with
 * its token and nothing is stored for them; deleting the token revokes the client. The secret travels only in
 * the token request (Basic auth or the form), which no log records (the access log writes the path).
 *
 * Access tokens: JWTs (HS256) whose subject is the project token's id, signed with a key derived from the
 * state's realm signing key (state.ts), so the signature is checked before the subject is believed or looked
 * up; deleting the project token still revokes them. They expire after TOKEN_LIFETIME_S seconds of the wall
 * clock, not simcloud's: a client (golang.org/x/oauth2) computes the expiry from `expires_in` on its own clock
 * and never recovers from a 401, so a `simcloud time advance` must not end them. They are checked, not
 * stored: they survive a restart, and the project token itself is refused on the persona's API paths, as
 * phoenixNAP's API refuses anything but its access tokens.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { Id } from '../../api/schema/common.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import type { PersonaAuth } from '../../server/persona.ts';
import { PlantedFault, isPlanted } from '../../server/planted.ts';
import { findRecord } from '../../server/resources/common.ts';
import { clientCredentials } from '../oauth2.ts';
import { PREFIX, TOKEN_PATH } from './common.ts';
import { oauthError } from './errors.ts';

export const TOKEN_LIFETIME_S = 3600;
const ISSUER = `${PREFIX}/auth/realms/BMC`;

/** The client id that goes with a client secret (a project token). */
export const clientIdOf = (secret: string): string => `simcloud-${createHash('sha256').update(`phoenixnap-client:${secret}`).digest('hex').slice(0, 20)}`;

const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64url');
/** The realm's key for this persona's tokens, from the state's signing key (one key per persona). */
const realmKey = (sim: Sim): Buffer => createHmac('sha256', Buffer.from(sim.store.state.signing_key, 'hex')).update('phoenixnap-access-token').digest();
const sign = (key: Buffer | string, data: string): string => createHmac('sha256', key).update(data).digest('base64url');
/** The wall clock, in seconds: what the token's client reads its expiry against. */
const wallSeconds = (sim: Sim): number => Math.floor(sim.clock.wallNow() / 1000);

/** The subject is the id of the project token the access token was issued for, and nothing else. */
const Claims = z.object({ sub: Id, exp: z.number(), iat: z.number(), azp: z.string(), scope: z.string(), iss: z.string() });

/** The one header this persona issues: a token with any other is not one of its own. */
const HEADER = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
/** header.claims.signature, each base64url; the signature is an HMAC-SHA256 (43 characters). */
const JWT = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{1,2048})\.([A-Za-z0-9_-]{43})$/;

function accessToken(sim: Sim, claims: z.infer<typeof Claims>): string {
  const data = `${HEADER}.${b64(JSON.stringify(claims))}`;
  return `${data}.${sign(realmKey(sim), data)}`;
}

function claimsOf(body: string): z.infer<typeof Claims> | undefined {
  try {
    const r = Claims.safeParse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The caller behind an access token this persona issued, if it is genuine, not expired and its project token
 * still exists. The signature is checked first, with the realm's key: nothing the token says is read before.
 */
function bearerCaller(sim: Sim, bearer: string): Caller | undefined {
  if (isPlanted(PlantedFault.jwtClaimsFirst)) return claimsFirst(sim, bearer);
  const m = JWT.exec(bearer);
  if (m === null || m[1] !== HEADER) return undefined;
  const want = Buffer.from(sign(realmKey(sim), `${m[1]}.${m[2]}`));
  const got = Buffer.from(m[3]!);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return undefined;
  const claims = claimsOf(m[2]!);
  if (claims === undefined || claims.exp <= wallSeconds(sim)) return undefined;
  const token = findRecord(sim, 'tokens', claims.sub);
  return token === undefined ? undefined : { projectId: token.project_id, tokenId: token.id };
}

/**
 * The fault the fuzz suite must find (planted.ts): the subject looked up unchecked, on a plain object, before
 * the signature, as when each token's key was derived from its project token's secret: `__proto__` reaches
 * Object.prototype, whose secret is undefined.
 */
function claimsFirst(sim: Sim, bearer: string): Caller | undefined {
  const [head, body, sig = ''] = bearer.split('.');
  let sub: unknown;
  try {
    sub = (JSON.parse(Buffer.from(body ?? '', 'base64url').toString('utf8')) as { sub?: unknown }).sub;
  } catch {
    return undefined;
  }
  if (typeof sub !== 'string') return undefined;
  const token = sim.store.state.tokens[sub];
  if (token === undefined || token.secret.length === 0 || sign(realmKey(sim), `${head}.${body}`) !== sig) return undefined;
  return { projectId: token.project_id, tokenId: token.id };
}

export const phoenixnapAuth: PersonaAuth = {
  caller(sim, req, projectToken) {
    if (req.path !== TOKEN_PATH) return bearerCaller(sim, /^Bearer\s+(\S+)$/i.exec(req.authorization ?? '')?.[1] ?? '');
    const creds = clientCredentials(req);
    const caller = creds === undefined ? undefined : projectToken(creds.secret);
    if (creds === undefined || caller === undefined || clientIdOf(creds.secret) !== creds.id)
      throw oauthError('invalid_client', 'Invalid client or Invalid client credentials');
    return caller;
  },
};

const TokenForm = z.object({ grant_type: z.unknown(), scope: z.unknown(), client_id: z.unknown(), client_secret: z.unknown() }).partial();

export const TokenResponse = z.strictObject({
  access_token: z.string(),
  expires_in: z.number().int(),
  refresh_expires_in: z.number().int(),
  token_type: z.literal('Bearer'),
  'not-before-policy': z.number().int(),
  scope: z.string(),
});

export const authRoutes: RouteDef[] = [
  defineRoute({
    method: 'post',
    path: TOKEN_PATH,
    operation: 'phoenixnap.auth.token',
    summary: 'An access token for client credentials',
    body: TokenForm,
    response: TokenResponse,
    handle: (sim, { caller, body }) => {
      if (body.grant_type !== 'client_credentials') throw oauthError('unsupported_grant_type', 'Unsupported grant_type');
      if (body.scope !== undefined && (typeof body.scope !== 'string' || body.scope.length > 512)) throw oauthError('invalid_scope', 'Invalid scopes');
      const token = findRecord(sim, 'tokens', caller.tokenId);
      if (token === undefined) throw oauthError('invalid_client', 'Invalid client or Invalid client credentials');
      const now = wallSeconds(sim);
      const scope = typeof body.scope === 'string' && body.scope !== '' ? body.scope : 'bmc bmc.read tags tags.read';
      const claims = { sub: token.id, iat: now, exp: now + TOKEN_LIFETIME_S, azp: clientIdOf(token.secret), scope, iss: ISSUER };
      return {
        access_token: accessToken(sim, claims),
        expires_in: TOKEN_LIFETIME_S,
        refresh_expires_in: 0,
        token_type: 'Bearer' as const,
        'not-before-policy': 0,
        scope,
      };
    },
  }),
];
