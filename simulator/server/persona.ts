/**
 * The persona contract: a real cloud's API that simcloud speaks as a view over its one store, handed to the
 * server as one value. The server never imports a persona: `createApp` receives the list and builds a
 * PersonaRegistry from it, and the shared middleware asks that registry. This module owns the shape of the
 * value; each persona's folder builds one (docs/personas.md, "How a persona plugs in").
 */
import type { z } from 'zod';
import type { Region, ServerType } from '../api/schema/catalogue.ts';
import type { Caller, Sim } from './context.ts';
import type { SimcloudError } from './errors.ts';
import type { RouteDef } from './route-definitions.ts';
import type { CollectionName } from './store/state.ts';

/** How a persona writes `RateLimit-Reset`: seconds until the window resets, or the Unix time it resets at. */
export const RateLimitReset = { delta: 'delta', epoch: 'epoch' } as const;
export type RateLimitReset = (typeof RateLimitReset)[keyof typeof RateLimitReset];

/** The collections whose records carry persona attributes (`dialect_attrs`). */
export const AttrsCollection = { servers: 'servers', load_balancers: 'load_balancers', firewall_policies: 'firewall_policies' } as const;
export type AttrsCollection = (typeof AttrsCollection)[keyof typeof AttrsCollection];

/** What the middleware needs to see a persona's path as simcloud's own (fault rules, resource types). */
export interface PersonaPaths {
  /** Persona collection path (one or more segments, e.g. `linode/instances`) -> simcloud collection and id prefix. */
  readonly collections: Readonly<Record<string, { readonly coll: CollectionName; readonly idPrefix: string }>>;
  /** The store number behind a path id that is not an integer (DigitalOcean's load balancer UUIDs), else null. */
  numberOf?(id: string): number | null;
}

/** How a persona renders simcloud's one error type. */
export interface PersonaErrors {
  /** The HTTP status (DigitalOcean's 422 and Linode's busy 400 differ from simcloud's). */
  status(e: SimcloudError): number;
  /** The whole body, in the persona's envelope, sent as exactly `application/json`. */
  body(e: SimcloudError, requestId: string | undefined): unknown;
}

/** The persona's JSON for simcloud's catalogue entries (what its own catalogue routes list). */
export interface PersonaCatalogue {
  /** A region: Hetzner's location, Linode's and DigitalOcean's region. */
  region(r: Region): Record<string, unknown>;
  /** A server type: Hetzner's server type, Linode's type, DigitalOcean's size. */
  serverType(t: ServerType): Record<string, unknown>;
}

/** What a persona's auth sees of a request (the body is parsed: JSON, or a form on a persona with `auth`). */
export interface PersonaRequest {
  readonly path: string;
  readonly authorization: string | undefined;
  readonly body: unknown;
}

/**
 * A persona that authenticates its own paths (OAuth2 client credentials and the tokens it issues: phoenixNAP)
 * instead of taking the project token as /v1 does. `caller` resolves every request under its prefix, its token
 * endpoint included (undefined: 401); `projectToken` finds the project token with a given secret.
 */
export interface PersonaAuth {
  caller(sim: Sim, req: PersonaRequest, projectToken: (secret: string) => Caller | undefined): Caller | undefined;
}

export interface Persona {
  /** Its name, and its key under a record's `dialect_attrs`. */
  readonly name: string;
  /** Mount point, e.g. `/hcloud/v1`; every route's path starts with it. */
  readonly prefix: string;
  /**
   * Other mount points that serve every route as the prefix does (Linode's `/v4beta`: the same API, which
   * its beta endpoints are also reached through). Checked like the prefix; a path under one is the persona's.
   */
  readonly aliases?: readonly string[];
  /** Its routes, in match order, with their request and response schemas (every persona route declares its response). */
  readonly routes: readonly RouteDef[];
  readonly errors: PersonaErrors;
  readonly rateLimitReset: RateLimitReset;
  /** What its rate-limit headers are called: `RateLimit-*` (most), `X-RateLimit-*` (Linode's). */
  readonly rateLimitHeaders?: 'RateLimit' | 'X-RateLimit';
  readonly paths: PersonaPaths;
  /** The schema of its slice of `dialect_attrs`, per collection it keeps attributes on. */
  readonly attrs: Readonly<Partial<Record<AttrsCollection, z.ZodType>>>;
  readonly catalogue: PersonaCatalogue;
  /** Its own tokens; absent: the project token authenticates its paths as it does /v1. */
  readonly auth?: PersonaAuth;
}
