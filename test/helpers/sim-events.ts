/**
 * What a real simcloud sends on `/_sim/events`, for tests of its consumers: `recordSimEvents` follows the
 * stream with the sandbox's own reader (so every event passes the wire schema, and a failure is kept), and
 * `runCloudScenario` drives a simcloud with a data plane through the resource lifecycles the console and
 * the sandbox explain: a server with a network and a route, a load balancer whose target turns healthy and
 * then unhealthy on real TCP, the Service's server group, firewall policy and IP block, power off, and
 * deletion of everything.
 */
import net from 'node:net';
import type { SimEvent } from '../../simulator/api/schema/events.ts';
import { followSimEvents } from '../../sandbox/cloud/events.ts';
import { waitFor } from '../../sandbox/wait.ts';
import type { SimcloudHandle } from './simcloud.ts';

export interface SimEventRecorder {
  readonly events: SimEvent[];
  /** Events the reader could not parse, or stream errors: a consumer test expects none. */
  readonly errors: unknown[];
  /** Resolves with the first recorded event matching `match` (recorded before or after the call). */
  next<E extends SimEvent>(description: string, match: (e: SimEvent) => e is E, timeoutMs?: number): Promise<E>;
  next(description: string, match: (e: SimEvent) => boolean, timeoutMs?: number): Promise<SimEvent>;
  stop(): void;
}

/** Follows `/_sim/events` from the start of the replay buffer; connected when this resolves. */
export async function recordSimEvents(sc: Pick<SimcloudHandle, 'url' | 'adminToken' | 'admin'>): Promise<SimEventRecorder> {
  const events: SimEvent[] = [];
  const errors: unknown[] = [];
  const abort = new AbortController();
  void followSimEvents({
    endpoint: sc.url,
    adminToken: sc.adminToken,
    signal: abort.signal,
    onEvent: (e) => events.push(e),
    onError: (err) => errors.push(err),
  });
  const next = (description: string, match: (e: SimEvent) => boolean, timeoutMs = 15_000): Promise<SimEvent> =>
    waitFor(() => events.find(match), { description, timeoutMs, intervalMs: 20 });
  // The stream is live once it carries a call made after the subscription.
  const probe = `probe-${Date.now()}`;
  await waitFor(
    async () => {
      await sc.admin.health({ caller: probe });
      return events.some((e) => e.type === 'api_call' && e.caller === probe);
    },
    { description: 'the event stream to carry a call', timeoutMs: 15_000, intervalMs: 50 },
  );
  return { events, errors, next, stop: () => abort.abort() };
}

/** A TCP server on `ip:port` answering every connection, as a node port would; `close` stops it. */
async function listen(ip: string, port: number): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined).on('close', () => sockets.delete(s));
    s.end('ok\n');
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, ip, () => resolve()));
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface CloudScenario {
  readonly serverId: string;
  readonly serverName: string;
  readonly networkId: string;
  readonly loadBalancerId: string;
  readonly route: { destination: string; gateway: string };
  readonly serverGroupId: string;
  readonly firewallPolicyId: string;
  readonly ipBlockId: string;
  readonly listenPort: number;
}

/** The owner label and tag of the Service `default/web`, as the CCM writes them. */
export const SERVICE_LABEL = { 'simcloud.dev/service': 'default.web' } as const;

const healthIs =
  (lbId: string, status: string) =>
  (e: SimEvent): boolean =>
    e.type === 'target_health' && e.load_balancer_id === lbId && e.status === status;

/**
 * Runs the scenario on `sc` (a simcloud with its data plane on, fast transitions) while `rec` records;
 * `clusterLabel` marks the server as one of a sandbox cluster's. Ports are picked at random.
 */
export async function runCloudScenario(sc: SimcloudHandle, rec: SimEventRecorder, clusterLabel: Record<string, string>): Promise<CloudScenario> {
  const c = sc.client;
  const suffix = Math.random().toString(36).slice(2, 8);
  const network = await c.networks.create({ name: `net-${suffix}` });
  const { server, action } = await c.servers.create({
    name: `node-${suffix}`,
    server_type: 'sc-small',
    image: 'ubuntu-24.04',
    zone: 'sim-1a',
    networks: [network.id],
    labels: clusterLabel,
  });
  await c.waitForAction(action.id);
  const nodePort = 20_000 + Math.floor(Math.random() * 10_000);
  const listenPort = 30_000 + Math.floor(Math.random() * 10_000);
  const backend = await listen(server.public_ipv4!, nodePort);
  try {
    const hc = { protocol: 'tcp' as const, port: null, path: '/', interval_seconds: 0.1, timeout_seconds: 0.5, retries: 1 };
    const { load_balancer: lb, action: lbAction } = await c.loadBalancers.create({
      name: `lb-${suffix}`,
      labels: SERVICE_LABEL,
      targets: [{ kind: 'server', server_id: server.id }],
      services: [{ protocol: 'tcp', listen_port: listenPort, destination_port: nodePort, proxy_protocol: 'none', health_check: hc }],
    });
    await c.waitForAction(lbAction.id);
    await rec.next('the target healthy', healthIs(lb.id, 'healthy'));
    await backend.close();
    await rec.next('the target unhealthy', healthIs(lb.id, 'unhealthy'));
    const route = { destination: '10.244.1.0/24', gateway: server.private_ipv4! };
    const { route: created, action: routeAction } = await c.networks.createRoute(network.id, route);
    await c.waitForAction(routeAction.id);
    const group = await c.serverGroups.create({ name: `sg-${suffix}`, labels: SERVICE_LABEL, servers: [server.id] });
    const policy = await c.firewallPolicies.create({ name: `fw-${suffix}`, labels: SERVICE_LABEL, rules: [] });
    const block = await c.ipBlocks.allocate({ location: 'sim-1', tags: { service: 'default.web' } });
    await c.waitForAction((await c.servers.poweroff(server.id)).id);
    await c.waitForAction((await c.networks.deleteRoute(network.id, created.id)).id);
    await c.waitForAction((await c.loadBalancers.delete(lb.id)).id);
    await c.ipBlocks.release(block.id);
    await c.firewallPolicies.delete(policy.id);
    await c.serverGroups.delete(group.id);
    await c.waitForAction((await c.servers.delete(server.id)).id);
    await c.networks.delete(network.id);
    await rec.next('the network deleted', (e) => e.type === 'resource_change' && e.resource_id === network.id && e.change === 'deleted');
    return {
      serverId: server.id,
      serverName: server.name,
      networkId: network.id,
      loadBalancerId: lb.id,
      route,
      serverGroupId: group.id,
      firewallPolicyId: policy.id,
      ipBlockId: block.id,
      listenPort,
    };
  } finally {
    await backend.close();
  }
}
