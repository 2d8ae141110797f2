// The kube-vip stand-in of the `local` runtime, for clouds whose load balancers are an address a node announces
// (phoenixNAP: its CCM gives each LoadBalancer Service an IP block on the cluster's public network, writes the
// block's third address into spec.loadBalancerIP and the ingress, and kube-vip, in ARP mode, makes one node
// answer for that address). Here the announcing node is the first running node by name that can serve (the
// leader of kube-vip's one election), and announcing means the address is one of that node's addresses for the
// kube-proxy stand-in: it listens on VIP:port and serves any client there (nodeport-standins.ts). The
// address goes when the Service goes, loses its loadBalancerIP or its ingress.
import type { V1Service } from '@kubernetes/client-node';
import type { StandInNode } from './nodeport-standins.ts';

/** The addresses kube-vip announces: each LoadBalancer Service's spec.loadBalancerIP that is also its ingress. */
export function announcedAddresses(services: readonly V1Service[]): string[] {
  return services.flatMap((s) => {
    const ip = s.spec?.loadBalancerIP;
    if (s.spec?.type !== 'LoadBalancer' || ip === undefined || ip === '') return [];
    return (s.status?.loadBalancer?.ingress ?? []).some((i) => i.ip === ip) ? [ip] : [];
  });
}

/** `nodes` with the announced addresses added to the leader's (the first by name); unchanged without any. */
export function withAnnounced(nodes: readonly StandInNode[], services: readonly V1Service[]): readonly StandInNode[] {
  const vips = [...new Set(announcedAddresses(services))];
  const leader = [...nodes].sort((a, b) => a.name.localeCompare(b.name))[0];
  if (vips.length === 0 || leader === undefined) return nodes;
  return nodes.map((n) => (n === leader ? { ...n, ips: [...n.ips, ...vips.filter((v) => !n.ips.includes(v))] } : n));
}
