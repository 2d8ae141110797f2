// Test-only helpers for the data plane: loopback backends that share one port on several 127.x
// addresses (targets share the listener's destination port), free VIPs, a one-shot TCP client and
// a poller. Everything stays on 127.0.0.0/8.
import dgram from 'node:dgram';
import http from 'node:http';
import net from 'node:net';
import { DataPlane } from '../data-plane.ts';
import type { ApplyResult, DataPlaneListener, DataPlaneLoadBalancer } from '../types.ts';

export const rnd = (lo: number, hi: number): number => lo + Math.floor(Math.random() * (hi - lo + 1));

export interface Backend {
  name: string;
  ip: string;
  port: number;
  /** Raw bytes of every connection that sent something, in arrival order. */
  received: Buffer[];
  /** Connections accepted (including health-check probes). */
  accepted: number;
  open: Set<net.Socket>;
  server: net.Server | http.Server;
  stop(): Promise<void>;
}

function listen(server: net.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

/** Replies `<name>:<bytes received>` once the client half-closes. */
function tcpHandler(b: Backend): (s: net.Socket) => void {
  return (s) => {
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('error', () => undefined);
    s.on('end', () => {
      const all = Buffer.concat(chunks);
      if (all.length > 0) b.received.push(all);
      s.end(Buffer.concat([Buffer.from(`${b.name}:`), all]));
    });
  };
}

export type BackendKind = 'tcp' | 'http';

function makeServer(b: Backend, kind: BackendKind): net.Server {
  if (kind === 'tcp') return net.createServer({ allowHalfOpen: true }, tcpHandler(b));
  return http.createServer((req, res) => {
    res.statusCode = req.url === '/healthz' ? 200 : 500;
    res.end(b.name);
  });
}

export async function startBackend(name: string, ip: string, port: number, kind: BackendKind = 'tcp'): Promise<Backend> {
  const b = { name, ip, port, received: [], accepted: 0, open: new Set<net.Socket>() } as unknown as Backend;
  const server = makeServer(b, kind);
  server.on('connection', (s: net.Socket) => {
    b.accepted += 1;
    b.open.add(s);
    s.once('close', () => b.open.delete(s));
  });
  b.server = server;
  b.port = await listen(server, ip, port);
  b.stop = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      for (const s of b.open) s.destroy();
    });
  return b;
}

/** `count` backends on 127.2.x.1.. sharing one port (the first picks it with port 0). */
export async function startBackends(count: number, kind: BackendKind = 'tcp'): Promise<Backend[]> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const net3 = `127.2.${rnd(0, 255)}`;
    const first = await startBackend('b0', `${net3}.1`, 0, kind);
    const rest: Backend[] = [];
    try {
      for (let i = 1; i < count; i++) rest.push(await startBackend(`b${i}`, `${net3}.${i + 1}`, first.port, kind));
      return [first, ...rest];
    } catch {
      await Promise.all([first, ...rest].map((b) => b.stop()));
    }
  }
  throw new Error('no free backend port');
}

/** A random 127.1.x.y VIP and a port that is free on it right now. */
export async function freeVip(): Promise<{ vip: string; port: number }> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const vip = `127.1.${rnd(0, 255)}.${rnd(1, 254)}`;
    const port = rnd(20_000, 60_000);
    const probe = net.createServer();
    try {
      await listen(probe, vip, port);
      await new Promise((r) => probe.close(r));
      return { vip, port };
    } catch {
      probe.close();
    }
  }
  throw new Error('no free VIP');
}

export interface RequestResult {
  ok: boolean;
  data: string;
  error?: string;
}

/** Connects, sends `payload`, half-closes and collects the reply until the connection ends. */
export function request(host: string, port: number, payload: string, localAddress?: string): Promise<RequestResult> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port, localAddress, allowHalfOpen: false });
    const chunks: Buffer[] = [];
    let error: string | undefined;
    s.on('connect', () => s.end(payload));
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
    });
    s.on('close', () => {
      const data = Buffer.concat(chunks).toString('latin1');
      resolve(error === undefined ? { ok: data.length > 0, data } : { ok: false, data, error });
    });
  });
}

/** Opens a connection and keeps it; resolves once connected. */
export function hold(host: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host, port, allowHalfOpen: true });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

/** A UDP backend: answers every datagram with `<name>:<payload>` and records who sent it. */
export interface UdpBackend {
  readonly name: string;
  readonly ip: string;
  readonly port: number;
  /** Sender addresses of the datagrams received, as `ip:port`. */
  readonly senders: string[];
  stop(): Promise<void>;
}

function bindUdp(ip: string, port: number): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket('udp4');
    socket.once('error', reject);
    socket.bind({ address: ip, port, exclusive: true }, () => {
      socket.off('error', reject);
      resolve(socket);
    });
  });
}

export async function startUdpBackend(name: string, ip: string, port: number): Promise<UdpBackend> {
  const socket = await bindUdp(ip, port);
  const senders: string[] = [];
  socket.on('message', (msg, from) => {
    senders.push(`${from.address}:${from.port}`);
    socket.send(Buffer.concat([Buffer.from(`${name}:`), msg]), from.port, from.address);
  });
  return { name, ip, port: socket.address().port, senders, stop: () => new Promise((r) => socket.close(() => r())) };
}

/** `count` UDP backends on 127.3.x.1.. sharing one port. */
export async function startUdpBackends(count: number): Promise<UdpBackend[]> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const net3 = `127.3.${rnd(0, 255)}`;
    const first = await startUdpBackend('u0', `${net3}.1`, 0);
    const rest: UdpBackend[] = [];
    try {
      for (let i = 1; i < count; i++) rest.push(await startUdpBackend(`u${i}`, `${net3}.${i + 1}`, first.port));
      return [first, ...rest];
    } catch {
      await Promise.all([first, ...rest].map((b) => b.stop()));
    }
  }
  throw new Error('no free UDP backend port');
}

/** A UDP client socket (bound to `localAddress` when given) that sends datagrams and waits for one answer each. */
export async function udpClient(
  localAddress?: string,
): Promise<{ ask(host: string, port: number, payload: string, timeoutMs?: number): Promise<string | null>; close(): void }> {
  const socket = await bindUdp(localAddress ?? '127.0.0.1', 0);
  let waiting: ((answer: string | null) => void) | undefined;
  socket.on('message', (msg) => waiting?.(msg.toString()));
  return {
    ask: (host, port, payload, timeoutMs = 1000) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => done(null), timeoutMs);
        const done = (answer: string | null): void => {
          clearTimeout(timer);
          waiting = undefined;
          resolve(answer);
        };
        waiting = done;
        socket.send(payload, port, host);
      }),
    close: () => socket.close(),
  };
}

/**
 * A data plane with one load balancer on a free VIP and port in front of `backends` (which share one port),
 * applied; `close` is the caller's to register. `listener` sets the protocol, PROXY setting and health check.
 */
export async function dataPlaneFor(
  backends: readonly { readonly name: string; readonly ip: string; readonly port: number }[],
  listener: Pick<DataPlaneListener, 'protocol' | 'proxyProtocol' | 'healthCheck'>,
  over: Partial<DataPlaneLoadBalancer> = {},
): Promise<{ vip: string; port: number; dp: DataPlane; lb: DataPlaneLoadBalancer; errors: ApplyResult['errors'] }> {
  const { vip, port } = await freeVip();
  const dp = new DataPlane({ onHealthChange: () => undefined });
  const lb: DataPlaneLoadBalancer = {
    id: `lb-${vip}`,
    vip,
    algorithm: 'round_robin',
    sessionAffinity: 'none',
    allowedSourceCidrs: null,
    listeners: [{ ...listener, listenPort: port, destinationPort: backends[0]!.port }],
    targets: backends.map((b) => ({ id: b.name, ip: b.ip })),
    ...over,
  };
  const { errors } = await dp.apply([lb]);
  return { vip, port, dp, lb, errors };
}
