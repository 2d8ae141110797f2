/**
 * The Brightbox persona's slice of simcloud's records (`dialect_attrs.brightbox`): what a Brightbox load
 * balancer and firewall rule have that simcloud's own fields do not. Schemas and readers.
 */
import { z } from 'zod';
import { sliceReader } from '../attrs.ts';
import { NAME } from './common.ts';

const Int = z.number().int().min(0);

/** A load balancer's settings beyond simcloud's services: per listener (in order) its idle timeout and PROXY spelling, and the health check's milliseconds and up threshold. */
export const BbLbAttrs = z.object({
  buffer_size: Int,
  https_redirect: z.boolean(),
  ssl_minimum_version: z.string(),
  policy: z.enum(['least-connections', 'round-robin', 'source-address']),
  listeners: z.array(z.object({ timeout: Int, proxy_protocol: z.enum(['v1', 'v2', 'v2-ssl', 'v2-ssl-cn']).nullable() })),
  healthcheck: z.object({ type: z.enum(['tcp', 'http']), port: Int, request: z.string(), interval: Int, timeout: Int, threshold_up: Int, threshold_down: Int }),
});
export type BbLbAttrs = z.infer<typeof BbLbAttrs>;

/** A Brightbox firewall rule as given (simcloud's rules of a policy are derived from these: one per destination port entry). */
export const BbRule = z.object({
  n: Int,
  source: z.string().nullable(),
  source_port: z.string().nullable(),
  destination: z.string().nullable(),
  destination_port: z.string().nullable(),
  protocol: z.string().nullable(),
  icmp_type_name: z.string().nullable(),
  description: z.string().nullable(),
  created_at: z.string(),
});
export type BbRule = z.infer<typeof BbRule>;

export const BbPolicyAttrs = z.object({ rules: z.array(BbRule), next: Int });
export type BbPolicyAttrs = z.infer<typeof BbPolicyAttrs>;

export const lbAttrsOf = sliceReader(NAME, BbLbAttrs);
export const policyAttrsOf = sliceReader(NAME, BbPolicyAttrs);
