// The in-cluster capability: a client inside the cluster reaches a PROXY-protocol load balancer's address
// (hcloud-cloud-controller-manager #727, DigitalOcean's #811, cloud-provider-openstack #1287). The backend
// requires a PROXY header, as nginx with `proxy_protocol` does, and closes a connection without one. From
// outside the cluster it answers through the load balancer. From a node's own address it answers only if
// kube-proxy leaves the address alone: kube-proxy captures an ingress IP unless its ipMode is Proxy (KEP-1860)
// and hands the connection straight to a pod, without the header the load balancer would have added. So the
// CCM must write `ipMode: Proxy` (or an ingress hostname, which kube-proxy does not capture either). The node's
// decision is sandbox/kubelet/in-cluster.ts over the Service as the API shows it; the connection is real.
import type { Behaviour } from '../../kubelet/images/schema.ts';
import { nodeDial, type NodeDial } from '../../kubelet/in-cluster.ts';
import { buildProxyTable } from '../../kubelet/proxy-table.ts';
import { CapabilityFailure, check, clusterServers, httpGet, lbNodes, listNodes, NotOffered, readyOf, until, type ConformanceContext } from '../context.ts';
import { createBackend, ingressOf, readService } from './load-balancers.ts';

const IN_CLUSTER = 'conformance-in-cluster';
const PORT = 8082;
/** How long the node-sourced client may take to get through: the outside client already did, so the status and the load balancer are in place. */
const SETTLE_MS = 10_000;

/** A backend that requires the PROXY header and names the client the header carried. */
const REQUIRES_HEADER: Behaviour = {
  proxyProtocol: 'required',
  http: [{ path: '/*', reply: { status: 200, headers: {}, json: { pod: '{{pod.name}}', proxySource: '{{proxy.source}}' } } }],
};

/** The backend's answer from `host:port` (connecting from `from`): the client its PROXY header named, or why none came. */
async function backendReply(host: string, port: number, from?: string): Promise<string> {
  const res = await httpGet(host, port, '/', from).catch((err: unknown) => ({ status: 0, body: err instanceof Error ? err.message : String(err) }));
  if (res.status === 0 && res.body === '') throw new Error('the backend closed the connection unanswered (no PROXY header reached it)');
  if (res.status !== 200) throw new Error(res.status === 0 ? res.body : `HTTP ${res.status}`);
  const source = (JSON.parse(res.body) as { proxySource?: unknown }).proxySource;
  if (typeof source !== 'string' || source === '') throw new Error(`the backend answered without a PROXY header's client: ${res.body.trim()}`);
  return source;
}

/** A ready worker node and its own address (the sandbox's loopback one, not the one its cloud presents). */
async function clientNode(ctx: ConformanceContext): Promise<{ name: string; address: string }> {
  const servers = await clusterServers(ctx);
  const node = lbNodes(await listNodes(ctx)).find((n) => readyOf(n) === 'True' && servers.some((s) => s.name === n.metadata?.name && s.private_ipv4 !== null));
  const server = servers.find((s) => s.name === node?.metadata?.name);
  if (node === undefined || server?.private_ipv4 == null) throw new CapabilityFailure('no ready worker node to run the in-cluster client on');
  return { name: server.name, address: server.private_ipv4 };
}

export async function inCluster(ctx: ConformanceContext): Promise<string> {
  const pp = ctx.cloud.conformance.proxyProtocol;
  if ('none' in pp) throw new NotOffered(pp.none);
  ctx.involve({ kind: 'Service', namespace: ctx.namespace, name: IN_CLUSTER });
  await createBackend(ctx, IN_CLUSTER, 1, JSON.stringify(REQUIRES_HEADER));
  await ctx.core.createNamespacedService({
    namespace: ctx.namespace,
    body: {
      metadata: { name: IN_CLUSTER, annotations: pp.annotations },
      spec: { type: 'LoadBalancer', selector: { app: IN_CLUSTER }, ports: [{ port: PORT, targetPort: 80 }] },
    },
  });
  const vip = await ingressOf(ctx, IN_CLUSTER);
  ctx.memory.moreLbs = { ...ctx.memory.moreLbs, [IN_CLUSTER]: vip };
  await until(ctx, `an answer through ${vip}:${PORT} from outside the cluster, from a backend that requires the PROXY header the load balancer sends`, () =>
    backendReply(vip, PORT, '127.0.0.1'),
  );
  const node = await clientNode(ctx);
  let last: { dial: NodeDial; ingress: string } | undefined;
  const source = await until(
    ctx,
    `an answer through ${vip}:${PORT} to a client on node ${node.name} (${node.address})`,
    async () => {
      const svc = await readService(ctx, IN_CLUSTER);
      const ingress = svc.status?.loadBalancer?.ingress?.[0];
      const dial = nodeDial(buildProxyTable([svc], []), node.address, vip, PORT);
      last = { dial, ingress: ingress?.ip === undefined ? `hostname ${ingress?.hostname ?? '-'}` : `${ingress.ip} (ipMode ${ingress.ipMode ?? 'unset'})` };
      return backendReply(dial.host, dial.port, dial.localAddress);
    },
    SETTLE_MS,
  ).catch((err: unknown) => {
    if (last?.dial.capturedBy == null) throw err;
    throw new CapabilityFailure(
      `Service ${ctx.namespace}/${IN_CLUSTER}'s ingress ${last.ingress} leaves kube-proxy to capture the address although its load balancer sends the PROXY protocol: ` +
        `a client on node ${node.name} reached the backend directly, without a PROXY header, and the backend, which requires one, closed the connection unanswered; ` +
        `the CCM should set ipMode: Proxy (KEP-1860)`,
    );
  });
  const through = last?.dial.capturedBy == null ? 'through the load balancer' : `through kube-proxy (captured by ${last.dial.capturedBy})`;
  check(source.startsWith(`${node.address}:`), `the PROXY header names ${source} as the client, not node ${node.name} at ${node.address}`);
  return `ingress ${last?.ingress ?? vip}: a client on ${node.name} reached the backend ${through}, which got a PROXY header naming ${source}`;
}
