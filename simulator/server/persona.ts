/**
 * The persona contract: a real cloud's API that simcloud speaks as a view over its one store, handed to the
 * server as one value. The server never imports a persona: `createApp` receives the list and builds a
 * PersonaRegistry from it, and the shared middleware asks that registry. This module owns the shape of the
 * value; each persona's folder builds one (docs/personas.md, "How a persona plugs in").
 */
import type { z } from 'zod';
import type { Region, ServerType } from '../api/schema/catalogue.ts';
import type { SimcloudError } from './errors.ts';
import type { RouteDef } from './http.ts';
import type { CollectionName } from './store/state.ts';

/** How a persona writes `RateLimit-Reset`: seconds until the window resets, or the Unix time it resets at. */
export const RateLimitReset = { delta: 'delta', epoch: 'epoch' } as const;
export type RateLimitReset = (typeof RateLimitReset)[keyof typeof RateLimitReset];

/** The collections whose records carry persona attributes (`dialect_attrs`). */
export const AttrsCollection = { load_balancers: 'load_balancers', firewall_policies: 'firewall_policies' } as const;
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

export interface Persona {
  /** Its name, and its key under a record's `dialect_attrs`. */
  readonly name: string;
  /** Mount point, e.g. `/hcloud/v1`; every route's path starts with it. */
  readonly prefix: string;
  /** Its routes, in match order, with their request (and, where declared, response) schemas. */
  readonly routes: readonly RouteDef[];
  readonly errors: PersonaErrors;
  readonly rateLimitReset: RateLimitReset;
  readonly paths: PersonaPaths;
  /** The schema of its slice of `dialect_attrs`, per collection it keeps attributes on. */
  readonly attrs: Readonly<Partial<Record<AttrsCollection, z.ZodType>>>;
  readonly catalogue: PersonaCatalogue;
}
