// Where kube-apiserver's egress proxy (egress-proxy.ts) sends a CONNECT, as a pure decision: a Node's address
// (any type: InternalIP, ExternalIP, Hostname, …) with the Node's kubelet port goes to that node's kubelet API
// on its loopback address; a loopback target (127.0.0.0/8, ::1, localhost) passes through; everything else is
// refused, so the sandbox never sends a packet off loopback whatever addresses a CCM or a user's objects hold.
import { canonicalIp, isIPv4, isIPv6, isLoopback } from '../../lib/ip.ts';

/** A CONNECT target: host (an IP in canonical form, or a lower-cased name) and port. */
export interface EgressTarget {
  readonly host: string;
  readonly port: number;
  /** Whether host is an IP address (else a name, never resolved). */
  readonly ip: boolean;
}

/** What the decision needs of a Node. */
export interface NodeView {
  readonly name: string;
  readonly addresses: readonly { readonly type: string; readonly address: string }[];
  /** status.daemonEndpoints.kubeletEndpoint.Port */
  readonly kubeletPort: number | undefined;
}

/** A serving kubelet API: the loopback address and port it listens on. */
export interface KubeletLocation {
  readonly address: string;
  readonly port: number;
}

export const EGRESS_RULE = 'ccm-sandbox dials loopback only (127.0.0.0/8, ::1)';

export type EgressDecision =
  | { readonly kind: 'passthrough'; readonly host: string; readonly port: number }
  | {
      readonly kind: 'mapped';
      readonly node: string;
      readonly host: string;
      readonly port: number;
      /** The Node's addresses, which the kubelet's serving certificate must cover (the apiserver verifies it for the address it dialled). */
      readonly names: readonly string[];
    }
  | { readonly kind: 'refused'; readonly status: 400 | 403 | 502; readonly reason: string };

/** `host:port` or `[v6]:port` as a CONNECT request line carries it; undefined if malformed. */
export function parseTarget(target: string): EgressTarget | undefined {
  const split = splitHostPort(target);
  if (!split) return undefined;
  const { host, port, bracketed } = split;
  if (bracketed ? isIPv6(host) : isIPv4(host)) return { host: canonicalIp(host), port, ip: true };
  // A bare IPv6 address without brackets is ambiguous with its port; a name has no colon, brackets or spaces.
  if (bracketed || !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i.test(host)) return undefined;
  return { host: host.toLowerCase(), port, ip: false };
}

function splitHostPort(target: string): { host: string; port: number; bracketed: boolean } | undefined {
  const colon = target.lastIndexOf(':');
  if (colon <= 0 || !/^\d{1,5}$/.test(target.slice(colon + 1))) return undefined;
  const port = Number(target.slice(colon + 1));
  const host = target.slice(0, colon);
  const bracketed = host.startsWith('[') && host.endsWith(']');
  if (port < 1 || port > 65535 || host === '' || host === '[]') return undefined;
  return { host: bracketed ? host.slice(1, -1) : host, port, bracketed };
}

/** A target that never leaves the machine: a loopback IP, or localhost (RFC 6761, never looked up). */
export function isLoopbackTarget(target: EgressTarget): boolean {
  if (!target.ip) return target.host === 'localhost' || target.host.endsWith('.localhost');
  return isLoopback(target.host);
}

function sameAddress(target: EgressTarget, address: string): boolean {
  if (!target.ip) return address.toLowerCase() === target.host;
  return (isIPv4(address) || isIPv6(address)) && canonicalIp(address) === target.host;
}

/**
 * The decision for one target. `nodes` may be empty for a loopback target that no kubelet's port matches; `kubelet`
 * answers where a node's kubelet API serves (undefined: not serving). A Node's address comes first, loopback or not:
 * a Node's loopback InternalIP is not the address its kubelet binds.
 */
export function decideEgress(target: EgressTarget, nodes: readonly NodeView[], kubelet: (node: string) => KubeletLocation | undefined): EgressDecision {
  const display = target.ip && target.host.includes(':') ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
  const node = nodes.find((n) => n.kubeletPort === target.port && n.addresses.some((a) => sameAddress(target, a.address)));
  const location = node && kubelet(node.name);
  if (node && location) return { kind: 'mapped', node: node.name, host: location.address, port: location.port, names: node.addresses.map((a) => a.address) };
  if (isLoopbackTarget(target)) return { kind: 'passthrough', host: target.ip ? target.host : '127.0.0.1', port: target.port };
  if (node)
    return { kind: 'refused', status: 502, reason: `${display} is node ${node.name}'s kubelet, whose API is not serving (its kubelet is silent or has none)` };
  const what = target.ip ? 'not a loopback address' : 'a name the sandbox does not resolve';
  return { kind: 'refused', status: 403, reason: `${EGRESS_RULE}: ${display} is ${what} nor a Node's address with its kubelet port` };
}
