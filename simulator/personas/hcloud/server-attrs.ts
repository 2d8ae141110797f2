/**
 * The Hetzner persona's slice of a server record (`dialect_attrs.hcloud`): the reverse DNS of its public
 * addresses, set by change_dns_ptr (Hetzner takes the IPv4 and any address of the server's IPv6 /64).
 */
import { isIPv6 } from 'node:net';
import { z } from 'zod';
import { canonicalIpv6, contains6, enclosingRange6 } from '../../../lib/ip.ts';
import type { ServerRec } from '../../server/store/state.ts';
import { SERVER_IPV6_PREFIX } from '../../server/store/state.ts';
import { invalidField } from '../../server/errors.ts';
import { sliceReader, type AttrsCarrier } from '../attrs.ts';
import { NAME } from './common.ts';

export const HcloudServerAttrs = z.object({
  /** Address (IPv6 in canonical form) -> its reverse DNS name. */
  dns_ptr: z.record(z.string(), z.string()),
});
export type HcloudServerAttrs = z.infer<typeof HcloudServerAttrs>;

const read = sliceReader(NAME, HcloudServerAttrs);

/** The attributes of a stored server; one made through /v1, or never given a name, has none set. */
export const serverAttrsOf = (s: AttrsCarrier): HcloudServerAttrs => read(s) ?? { dns_ptr: {} };

/** The key of `ip` among the server's public addresses (its IPv4, or an address of its IPv6 /64), else invalid_input on `ip`. */
function addressOf(server: ServerRec, ip: string): string {
  if (ip === server.public_ipv4) return ip;
  if (server.public_ipv6 !== null && isIPv6(ip) && contains6(enclosingRange6(server.public_ipv6, SERVER_IPV6_PREFIX), ip)) return canonicalIpv6(ip);
  const own = [server.public_ipv4, server.public_ipv6 === null ? null : `${server.public_ipv6.slice(0, -1)}/${SERVER_IPV6_PREFIX}`].filter((a) => a !== null);
  throw invalidField('ip', `${ip} is not a public address of this server (${own.join(', ') || 'it has none'})`);
}

/** The server's attributes with the reverse DNS of `ip` set (null: back to the default). */
export function withDnsPtr(server: ServerRec, ip: string, name: string | null): HcloudServerAttrs {
  const key = addressOf(server, ip);
  const attrs = structuredClone(serverAttrsOf(server));
  if (name === null) delete attrs.dns_ptr[key];
  else attrs.dns_ptr[key] = name;
  return attrs;
}
