// Where a connection a node opens itself to `ip:port` goes, as the node's kube-proxy decides (pure): an
// ingress IP kube-proxy captures (proxy-table.ts: every IPv4 ingress whose ipMode is not Proxy, KEP-1860)
// never reaches the load balancer, kube-proxy hands the connection straight to an endpoint of the Service;
// any other address is left to the network. On loopback the stand-ins (nodeport-standins.ts) take a
// connection *from* an ingress IP to a node's address at the Service port as addressed to that IP, so a
// captured connection is dialled that way round: from the ingress IP to the client's own node. This is
// what an in-cluster client (a pod or the node itself) of a LoadBalancer's address meets.
import type { ProxiedService } from './proxy-table.ts';

export interface NodeDial {
  /** Where to connect and from where. */
  readonly host: string;
  readonly port: number;
  readonly localAddress: string;
  /** The Service whose ingress kube-proxy captured the address, or null: the connection goes out to `ip`. */
  readonly capturedBy: string | null;
}

/** How a client on the node at `nodeAddress` reaches `ip:port` (TCP), given the node's kube-proxy table. */
export function nodeDial(table: readonly ProxiedService[], nodeAddress: string, ip: string, port: number): NodeDial {
  const service = table.find((s) => s.ingressIps.includes(ip) && s.ports.some((p) => p.port === port && p.protocol === 'TCP'));
  if (service === undefined) return { host: ip, port, localAddress: nodeAddress, capturedBy: null };
  return { host: nodeAddress, port, localAddress: ip, capturedBy: `${service.namespace}/${service.name}` };
}
