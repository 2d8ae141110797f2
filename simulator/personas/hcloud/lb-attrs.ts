/**
 * A load balancer's Hetzner-only attributes (schema in api/schema/dialect-attrs.ts), kept on its one store
 * record under `dialect_attrs.hcloud`. The data plane reads only `public_interface`.
 */
import type { HcloudLbAttrs, HcloudServiceAttrs } from '../../api/schema/dialect-attrs.ts';

export type { HcloudLbAttrs };
export type ServiceAttrs = HcloudServiceAttrs;

export const defaultAttrs = (type: string): HcloudLbAttrs => ({ load_balancer_type: type, public_interface: true, dns_ptr: null, use_private_ip: {}, services: {} });

/** The attributes of a stored LB; an LB made through /v1 gets the defaults (type lb11). */
export function attrsOf(lb: { dialect_attrs?: { hcloud?: HcloudLbAttrs } | undefined }): HcloudLbAttrs {
  return lb.dialect_attrs?.hcloud ?? defaultAttrs('lb11');
}
