/**
 * Node address rules (upstream `node/helpers/address.go`, component-helpers `node/util/ips.go`, and
 * `updateNodeAddress`): the strict `alpha.kubernetes.io/provided-node-ip` parser, the node-IP filter,
 * the change detector and the address list written after initialisation.
 */
import { isIP } from 'node:net';
import type { V1Node, V1NodeAddress } from '@kubernetes/client-node';
import ipaddr from 'ipaddr.js';

export const ProvidedNodeIPAnnotation = 'alpha.kubernetes.io/provided-node-ip';

/**
 * Parses the annotation: one IP, or a comma-separated dual-stack pair (one per family). More than two
 * IPs, two of the same family, or an unspecified address (`0.0.0.0`, `::`) inside a pair is an error.
 */
export function parseNodeIPAnnotation(value: string): string[] {
  const parts = value.split(',').map((p) => p.trim());
  if (parts.length > 2) throw new Error(`could not parse "${value}": must contain 1 or 2 IPs`);
  const ips = parts.map((p) => {
    if (isIP(p) === 0) throw new Error(`could not parse "${p}" as an IP address`);
    return ipaddr.process(p);
  });
  const [first, second] = ips;
  if (first && second) {
    if (first.kind() === second.kind()) throw new Error(`could not parse "${value}": must be a dual-stack pair of IPs`);
    if (ips.some((ip) => ip.range() === 'unspecified')) throw new Error(`could not parse "${value}": dual-stack node IP cannot include '0.0.0.0' or '::'`);
  }
  return ips.map((ip) => ip.toString());
}

function sameIP(address: string, normalizedIP: string): boolean {
  return isIP(address) !== 0 && ipaddr.process(address).toString() === normalizedIP;
}

/**
 * Upstream `GetNodeAddressesFromNodeIP`: for each annotated IP (in order) every cloud address with
 * that IP; the types matched become enforced; then every cloud address of another type.
 * Throws "failed to get node address from cloud provider that matches ip: <ip>" when an IP matches nothing.
 */
export function filterNodeAddressesByNodeIP(annotation: string, cloudAddresses: readonly V1NodeAddress[]): V1NodeAddress[] {
  const nodeIPs = parseNodeIPAnnotation(annotation);
  const enforced: V1NodeAddress[] = [];
  const enforcedTypes = new Set<string>();
  for (const ip of nodeIPs) {
    const matched = cloudAddresses.filter((a) => sameIP(a.address, ip));
    if (matched.length === 0) throw new Error(`failed to get node address from cloud provider that matches ip: ${ip}`);
    enforced.push(...matched);
    for (const a of matched) enforcedTypes.add(a.type);
  }
  return [...enforced, ...cloudAddresses.filter((a) => !enforcedTypes.has(a.type))];
}

/**
 * Upstream `nodeAddressesChangeDetected`: different lengths, or a new (type, address) pair that does
 * not match the old list's type→address map (later entries of a type win). Order is ignored.
 */
export function nodeAddressesChangeDetected(oldAddresses: readonly V1NodeAddress[], newAddresses: readonly V1NodeAddress[]): boolean {
  if (oldAddresses.length !== newAddresses.length) return true;
  const byType = new Map<string, string>();
  for (const a of oldAddresses) byType.set(a.type, a.address);
  return newAddresses.some((a) => byType.get(a.type) !== a.address);
}

/** Why `desiredNodeAddresses` writes nothing; upstream logs each at its own level (sync.ts). */
export const AddressSkip = {
  NoCloudAddresses: 'no-cloud-addresses',
  NodeIP: 'node-ip',
  Unchanged: 'unchanged',
} as const;
export type AddressSkip = (typeof AddressSkip)[keyof typeof AddressSkip];

/** Outcome of `desiredNodeAddresses`. */
export type AddressDecision =
  { readonly action: 'skip'; readonly skip: AddressSkip; readonly reason: string } | { readonly action: 'update'; readonly addresses: V1NodeAddress[] };

/**
 * What `updateNodeAddress` would write for an initialised node, given the cloud's addresses:
 * skip when the cloud returned none; keep the kubelet's Hostname entries when the cloud has no
 * Hostname; apply the node-IP filter when annotated (an error skips); skip when nothing changed.
 * The caller checks the uninitialized taint first.
 */
export function desiredNodeAddresses(node: V1Node, cloudAddresses: readonly V1NodeAddress[]): AddressDecision {
  if (cloudAddresses.length === 0) return { action: 'skip', skip: AddressSkip.NoCloudAddresses, reason: 'cloud returned no addresses' };
  const current = node.status?.addresses ?? [];
  let addresses = withKubeletHostnames(cloudAddresses, current);
  const annotation = node.metadata?.annotations?.[ProvidedNodeIPAnnotation];
  if (annotation !== undefined) {
    try {
      addresses = filterNodeAddressesByNodeIP(annotation, addresses);
    } catch (err) {
      return { action: 'skip', skip: AddressSkip.NodeIP, reason: err instanceof Error ? err.message : String(err) };
    }
  }
  if (!nodeAddressesChangeDetected(current, addresses)) return { action: 'skip', skip: AddressSkip.Unchanged, reason: 'addresses unchanged' };
  return { action: 'update', addresses };
}

/** The cloud's addresses plus the node's existing Hostname entries when the cloud has no Hostname. */
function withKubeletHostnames(cloud: readonly V1NodeAddress[], current: readonly V1NodeAddress[]): V1NodeAddress[] {
  if (cloud.some((a) => a.type === 'Hostname')) return [...cloud];
  return [...cloud, ...current.filter((a) => a.type === 'Hostname')];
}
