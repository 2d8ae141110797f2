/**
 * The Hetzner persona's slice of a load balancer record (`dialect_attrs.hcloud`): its type, reverse DNS (IPv4, IPv6),
 * each target's use_private_ip and each service's HTTP and health-check HTTP settings. Schemas, defaults
 * and the reader. (The public interface switch is simcloud's own `public_interface` field: the data plane
 * acts on it.)
 */
import { z } from 'zod';
import { sliceReader, type AttrsCarrier } from '../attrs.ts';
import { NAME } from './common.ts';

/** A Hetzner service's `http` object (also the request schema: every field optional). */
export const HcloudServiceHttp = z.strictObject({
  cookie_name: z.string().max(64).optional(),
  cookie_lifetime: z.number().int().min(1).optional(),
  certificates: z.array(z.number().int().min(1)).max(50).optional(),
  redirect_http: z.boolean().optional(),
  sticky_sessions: z.boolean().optional(),
  timeout_idle: z.number().int().min(1).max(3600).optional(),
});

const HealthHttp = z.object({
  domain: z.string().nullable(),
  path: z.string(),
  response: z.string().nullable(),
  status_codes: z.array(z.string()),
  tls: z.boolean(),
});

export const HcloudServiceAttrs = z.object({
  http: HcloudServiceHttp.nullable(),
  health_check_protocol: z.enum(['tcp', 'http', 'https']),
  health_check_http: HealthHttp.nullable(),
});
export type HcloudServiceAttrs = z.infer<typeof HcloudServiceAttrs>;
export type ServiceAttrs = HcloudServiceAttrs;

export const HcloudLbAttrs = z.object({
  load_balancer_type: z.string(),
  dns_ptr: z.string().nullable(),
  /** The reverse DNS of the public IPv6 (`public_ipv6`); absent in slices stored before it existed. */
  dns_ptr_ipv6: z.string().nullable().default(null),
  /** Target key (`server:42`, `label_selector:<selector>`, `ip:<address>`) -> use_private_ip. */
  use_private_ip: z.record(z.string(), z.boolean()),
  /** listen_port -> settings. */
  services: z.record(z.string(), HcloudServiceAttrs),
});
export type HcloudLbAttrs = z.infer<typeof HcloudLbAttrs>;

export const defaultAttrs = (type: string): HcloudLbAttrs => ({
  load_balancer_type: type,
  dns_ptr: null,
  dns_ptr_ipv6: null,
  use_private_ip: {},
  services: {},
});

const read = sliceReader(NAME, HcloudLbAttrs);

/** The attributes of a stored LB; an LB made through /v1 gets the defaults (type lb11). */
export const attrsOf = (lb: AttrsCarrier): HcloudLbAttrs => read(lb) ?? defaultAttrs('lb11');
