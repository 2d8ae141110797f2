// Shared contract of the load-balancer data plane (simulator/server/dataplane). The simcloud server
// translates its load-balancer resources into these plain shapes and hands them to DataPlane.apply().
import type { Logger } from 'pino';

export interface DataPlaneHealthCheck {
  /** `none`: no active check; every target counts as healthy once synced. */
  protocol: 'tcp' | 'http' | 'none';
  /** null = destination port */
  port: number | null;
  path: string;
  intervalMs: number;
  timeoutMs: number;
  retries: number;
}

export interface DataPlaneListener {
  /** `udp`: datagrams, forwarded per flow (udp-listener.ts); the others are TCP. */
  protocol: 'tcp' | 'http' | 'https' | 'udp';
  listenPort: number;
  destinationPort: number;
  proxyProtocol: 'none' | 'v1' | 'v2';
  healthCheck: DataPlaneHealthCheck;
}

export interface DataPlaneTarget {
  id: string;
  ip: string;
}

export interface DataPlaneLoadBalancer {
  id: string;
  vip: string;
  algorithm: 'round_robin' | 'least_connections';
  sessionAffinity: 'none' | 'source_ip';
  listeners: DataPlaneListener[];
  targets: DataPlaneTarget[];
  /** null = allow all */
  allowedSourceCidrs: string[] | null;
  /**
   * How a target receives a connection. `proxy` (absent: the same): from the load balancer, to
   * target:destinationPort. `passthrough`: as addressed to the VIP, as a network load balancer that keeps
   * the destination delivers it; on loopback the VIP is this listener's, so the connection goes to
   * target:destinationPort *from* the VIP's address, and the target reads the VIP there.
   */
  forwarding?: 'proxy' | 'passthrough';
}

export interface TargetHealthChange {
  lbId: string;
  listenPort: number;
  targetId: string;
  status: 'healthy' | 'unhealthy' | 'unknown';
}

export interface TargetCounters {
  connections: number;
  activeConnections: number;
  bytesIn: number;
  bytesOut: number;
}

export interface ApplyResult {
  errors: { lbId: string; listenPort: number; message: string }[];
}

export interface DataPlaneOptions {
  onHealthChange: (c: TargetHealthChange) => void;
  logger?: Logger;
}
